#!/usr/bin/env bash
# The Debian packages (`make deb`, in .build/deb) on a Debian 12 machine that has GeoClue 2.6 and no Swift: a root made
# by debootstrap, booted with systemd as PID 1 in systemd-nspawn. deb-in-container.sh, run there as a oneshot
# service, checks where-am-i served by GeoClue, `apt install ./locd*.deb` removing GeoClue and where-am-i then served
# by locd on the first try, an upgrade to a rebuilt package keeping a decision and the live session, `apt remove` and
# `apt install geoclue-2.0` giving GeoClue the name back, and `apt purge` leaving nothing of locd behind.
#
# Usage: Tests/System/deb-test.sh [DEB_DIR]     (default .build/deb)
#        Tests/System/deb-test.sh --prepare     (only the root, below, which the test then finds made)
# Needs root, systemd-nspawn (as the boot test, Tests/System/container.sh) and debootstrap; the first run makes the
# root from Debian's archive (the apt sources of this machine) and keeps it, as a tar file, in
# /var/cache/locd-deb-test: later runs need no network. The container has none (--private-network): apt installs
# geoclue-2.0 back from the root's own package cache, filled when the root was made.
set -euo pipefail
cd "$(dirname "$0")/../.."

test_name=locd-deb-test
source Tests/System/container.sh
container_checks
command -v debootstrap >/dev/null || skip "debootstrap is not installed"


# The root: Debian 12 with systemd, D-Bus, GeoClue 2.6 and its demo (where-am-i), gpsd and python3 (the NMEA feeder),
# and in apt's cache the packages that `apt install geoclue-2.0` takes again.
# debootstrap takes no alternative of a dependency: dbus-user-session is dconf-service's session bus (GeoClue's
# libsoup needs glib-networking, which needs gsettings, which needs dconf). Its downloads are kept in $cache/debs.
# libxcb1, libxcb-res0 and libwayland-client0 are what the locd package itself needs beyond them (locd-agent reads an
# X11 desktop and a wlroots compositor through them, SEMANTICS L15, L17), which the container, with no network, could
# not fetch.
packages=systemd,systemd-sysv,dbus,dbus-user-session,geoclue-2.0,geoclue-2-demo,gpsd,python3,util-linux,libxcb1,libxcb-res0,libwayland-client0
cache=/var/cache/locd-deb-test
root_tar=$cache/bookworm-$(echo "$packages" | md5sum | cut -c1-8).tar
if [ ! -f "$root_tar" ]; then
    # The machine's own Debian 12 archive, as apt reads its sources (one-line or deb822 files, a local mirror or a
    # proxy's URI alike): the main suite's repository, not a host this script would name.
    mirror=$(apt-get indextargets --format '$(REPO_URI)' 'Identifier: Packages' 'Codename: bookworm' 'Component: main' \
        2>/dev/null | head -1)
    [ -n "$mirror" ] || skip "apt lists no Debian 12 (bookworm) main repository: add one to apt's sources and run apt-get update"
    echo "deb-test: making the Debian 12 root with debootstrap from $mirror (once; kept in $root_tar)"
    staging=$(mktemp -d /var/tmp/locd-deb-root.XXXXXX)
    mkdir -p "$cache/debs"
    if ! debootstrap --variant=minbase --include="$packages" --cache-dir="$cache/debs" bookworm "$staging/root" "$mirror" \
        >"$staging/log" 2>&1; then
        tail -5 "$staging/log"
        rm -rf "$staging"
        skip "debootstrap could not make the root (no network to Debian's archive?)"
    fi
    chroot "$staging/root" apt-get update -qq
    chroot "$staging/root" apt-get install -qq --download-only --reinstall geoclue-2.0 geoclue-2-demo >/dev/null
    mkdir -p "$cache"
    tar -C "$staging/root" -cf "$root_tar.partial" . && mv "$root_tar.partial" "$root_tar"
    rm -rf "$staging"
fi
# --prepare: only the root, made while the packages are built (CI does so in the background).
[ "${1:-}" != --prepare ] || { echo "deb-test: the Debian 12 root is ready ($root_tar)"; exit 0; }

debs=$(cd "${1:-.build/deb}" && pwd)
for package in locd locd-network locd-geoclue; do
    ls "$debs/${package}_"*.deb >/dev/null 2>&1 || { echo "deb-test: no $package package in $debs: make deb first" >&2; exit 1; }
done

container_begin locd-deb

mkdir -p "$work/root"
tar -C "$work/root" -xf "$root_tar"
cp "$debs"/locd*.deb Tests/System/deb-in-container.sh Tests/System/geoclue-machine.sh Tests/System/nmea_feeder.py \
    Tests/System/checks.sh "$work/"
# The next upgrade: each package rebuilt as a higher version of the same files, the packages' own dependencies on
# each other (locd (= VERSION)) following.
mkdir -p "$work/upgrade"
for deb in "$work"/locd*.deb; do
    tree=$(mktemp -d "$work/rebuilt.XXXXXX")
    dpkg-deb -R "$deb" "$tree"
    sed -i -e 's/^Version: \(.*\)$/Version: \1+rebuilt/' -e 's/locd (= \([^)]*\))/locd (= \1+rebuilt)/' "$tree/DEBIAN/control"
    dpkg-deb -Znone -b "$tree" "$work/upgrade/" >/dev/null
    rm -rf "$tree"
done
cat > "$work/root/etc/systemd/system/locd-deb-test.target" <<UNIT
[Unit]
Description=locd package test
Requires=locd-deb-test.service dbus.socket
After=locd-deb-test.service
AllowIsolate=yes
UNIT
cat > "$work/root/etc/systemd/system/locd-deb-test.service" <<UNIT
[Unit]
Description=locd package test
After=dbus.socket systemd-sysusers.service systemd-tmpfiles-setup.service
Requires=dbus.socket
[Service]
Type=oneshot
Environment=PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive
ExecStart=/bin/bash $work/deb-in-container.sh $work
ExecStopPost=/bin/systemctl poweroff --no-block
StandardOutput=append:$work/result.txt
StandardError=append:$work/result.txt
UNIT
echo "deb-test: booting Debian 12 with GeoClue in a container (work dir $work)"
timeout 300 systemd-nspawn -D "$work/root" --register=no --keep-unit --private-network -q --machine="locd-deb-$$" \
    --bind="$work" -b systemd.unit=locd-deb-test.target systemd.firstboot=off </dev/null >"$work/console.txt" 2>&1 || true
[ -f "$work/result.txt" ] || { echo "deb-test: the test never ran; console:" >&2; tail -40 "$work/console.txt" >&2; exit 1; }
cat "$work/result.txt"
grep -q '^ALL PASSED$' "$work/result.txt" || { echo "deb-test: FAILED" >&2; exit 1; }
echo "deb-test: passed"
