#!/usr/bin/env bash
# Boots a real systemd (PID 1) in a throwaway container and checks locd's integration with it:
# socket activation, Type=notify with its STATUS text, structured journal fields, reload and restart
# keeping sessions, the watchdog restarting a hung locd, and the unit's security exposure; then locd-geoclue,
# installed as `make install` installs it, started by D-Bus activation when a GeoClue client calls the
# container's system bus, and that client (where-am-i) getting locd's location through it; last locd-network,
# started by its socket when locd's network provider connects, asking a geolocation service on 127.0.0.1.
#
# Last, a person's graphical session: their systemd user manager and session bus, dunst on an X display, and
# locd-agent started by the installed user unit with graphical-session.target, answering the prompt of their app.
#
# Usage: Tests/System/boot-test.sh [BUILD_DIR]     (default .build/debug; needs locd, locctl, locd-geoclue,
# locd-network and locd-agent there)
# Needs root and systemd-nspawn (Debian: systemd-container). Where either is missing it prints why and
# exits 0, so that `make test` runs everywhere; CI installs systemd-container and runs as root.
# Recipe and precautions: the container boots the host's /usr with --volatile=yes; the launching shell
# first moves into a cgroup of its own, so the container's systemd cannot adopt the host's root cgroup.
set -euo pipefail
cd "$(dirname "$0")/../.."

test_name=locd-boot-test
source Tests/System/container.sh
container_checks

build=$(cd "${1:-.build/debug}" && pwd)
for binary in locd locctl locd-geoclue locd-network locd-agent; do
    [ -x "$build/$binary" ] || { echo "boot-test: $build/$binary missing: build first (swift build)" >&2; exit 1; }
done
swift_root=$(dirname "$(dirname "$(readlink -f "$(command -v swift)")")")

container_begin locd-boot

# The project's units, pointing at the binaries bound under /opt/locd (DynamicUser-style PrivateTmp and
# ProtectSystem=strict forbid /tmp; the container's /usr is the host's, read-only).
mkdir -p "$work/units" "$work/opt/bin" "$work/etc/apps.d" "$work/etc/sysusers.d"
cp "$build/locd" "$build/locctl" "$work/opt/bin/"
for unit in locd.service locd.socket; do
    sed 's|/usr/bin/locd|/opt/locd/bin/locd|g' "systemd/$unit" > "$work/units/$unit"
done
cp systemd/locd.sysusers.conf "$work/etc/sysusers.d/locd.conf"
# The test's own settings, as an administrator would put them in a drop-in: a short watchdog, and the
# hidden hang switch (only this test sets it).
mkdir -p "$work/units/locd.service.d"
cat > "$work/units/locd.service.d/test.conf" <<UNIT
[Service]
WatchdogSec=3s
RestartSec=0.2s
Environment=LOCD_DEBUG_HANG_ON_SIGUSR1=1
UNIT
cat > "$work/etc/locd.toml" <<TOML
state-dir = "/var/lib/locd"
apps-dirs = ["/etc/locd/apps.d"]
[lifecycle]
relaunch-window = 30.0
relaunch-adopt = 10.0
# The demo's fixed point, which the checks below expect (the built-in providers find nothing here, U28).
[provider]
kind = "static"
TOML
# The test client is python3 running as root: identity by executable exercises /proc/PID/exe under
# ProtectProc=invisible with CAP_SYS_PTRACE, the path real apps take.
python=$(readlink -f /usr/bin/python3)
cat > "$work/etc/apps.d/com.example.boot.toml" <<TOML
id = "com.example.boot"
NSLocationWhenInUseUsageDescription = "The boot test checks sessions survive restarts."
identity = "executable"
executables = ["$python"]
TOML
# locd-geoclue's unit, system user, D-Bus policy and activation file, as `make install` installs them (staged
# with PREFIX=/opt/locd, so every path in them names the binaries bound there). Policy and sysusers go to /etc
# (the container's /etc is its own); the activation file must be in a system-services directory, all of which
# are in the host's /usr: an overlay puts ours above them, in place of GeoClue's file of the same name.
make -s -f systemd/install.mk install DESTDIR="$work/stage" PREFIX=/opt/locd BUILD="$build" >/dev/null
cp "$work/stage/opt/locd/bin/locd-geoclue" "$work/opt/bin/"
cp "$work/stage/usr/lib/systemd/system/locd-geoclue.service" "$work/units/"
cp "$work/stage/usr/lib/sysusers.d/locd-geoclue.conf" "$work/etc/sysusers.d/locd-geoclue.conf"
mkdir -p "$work/system-services"
cp "$work/stage/opt/locd/share/dbus-1/system-services/org.freedesktop.GeoClue2.service" "$work/system-services/"
# The app of the person at the desktop (last part of the test), which nobody has decided for.
cat > "$work/etc/apps.d/com.example.person.toml" <<TOML
id = "com.example.person"
NSLocationWhenInUseUsageDescription = "The boot test asks the person at the desktop."
identity = "executable"
executables = ["$python"]
TOML
# where-am-i is the GeoClue client; locd-geoclue speaks for it as the app of its DesktopId, a broker named in the
# drop-in `make install` staged, and locd checks the manifest against where-am-i's own process (SEMANTICS I8, I9).
cat > "$work/etc/apps.d/geoclue-where-am-i.toml" <<TOML
id = "geoclue-where-am-i"
NSLocationWhenInUseUsageDescription = "The boot test's GeoClue client."
identity = "executable"
executables = ["/usr/libexec/geoclue-2.0/demos/where-am-i"]
TOML
# locd-network, its units, static user and D-Bus policy, as `make install` staged them. The configuration drop-ins
# are a folder of the test's own, so that the script can add the network provider's while locd runs.
cp "$work/stage/opt/locd/bin/locd-network" "$work/opt/bin/"
cp "$work/stage/usr/lib/systemd/system/locd-network.socket" "$work/stage/usr/lib/systemd/system/locd-network.service" \
    "$work/units/"
cp "$work/stage/usr/lib/sysusers.d/locd-network.conf" "$work/etc/sysusers.d/locd-network.conf"
mkdir -p "$work/etc/locd.toml.d"
cp "$work/stage/etc/locd/locd.toml.d/geoclue.toml" "$work/etc/locd.toml.d/"
cp Tests/System/in-container.sh Tests/System/session_client.py Tests/LocationTestSupport/Fixtures/geolocate_standin.py \
    Tests/LocationTestSupport/Fixtures/pick.sh Tests/System/checks.sh "$work/"
# locd-agent, its user unit and its session-bus activation file, as `make install` staged them; the activation file
# goes over the host's session-services directory as GeoClue's does over the system one. The person is alice, a
# user of the container's own (sysusers), and the test's desktop is a user target that binds
# graphical-session.target, as a desktop session's own target does.
cp "$work/stage/opt/locd/bin/locd-agent" "$work/opt/bin/"
mkdir -p "$work/user-units" "$work/session-services"
cp "$work/stage/usr/lib/systemd/user/locd-agent.service" "$work/user-units/"
cp "$work/stage/opt/locd/share/dbus-1/services/io.locd.Agent.service" "$work/session-services/"
cat > "$work/user-units/boot-desktop.target" <<UNIT
[Unit]
Description=The boot test's desktop session
BindsTo=graphical-session.target
Wants=graphical-session-pre.target
After=graphical-session-pre.target
UNIT
cat > "$work/etc/sysusers.d/person.conf" <<CONF
u alice 61001 "A person at the desktop" /home/alice /bin/bash
u bob 61002 "A person without a desktop yet" /home/bob /bin/bash
CONF
cat > "$work/units/locd-test.target" <<UNIT
[Unit]
Description=locd boot test
Requires=locd-test.service locd.socket
After=locd-test.service
AllowIsolate=yes
UNIT
cat > "$work/units/locd-test.service" <<UNIT
[Unit]
Description=locd boot test script
After=locd.socket dbus.socket systemd-sysusers.service systemd-tmpfiles-setup.service
Requires=locd.socket dbus.socket
[Service]
Type=oneshot
Environment=PATH=/opt/locd/bin:/usr/sbin:/usr/bin:/sbin:/bin
ExecStart=/bin/bash $work/in-container.sh $work
ExecStopPost=/bin/systemctl poweroff --no-block
StandardOutput=append:$work/result.txt
StandardError=append:$work/result.txt
UNIT

# LOCD_BOOT_TEST=switch runs the second boot alone.
if [ "${LOCD_BOOT_TEST:-}" != switch ]; then
    echo "boot-test: booting systemd in a container (work dir $work)"
    binds=(
        --bind="$work"
        --bind-ro="$swift_root"
        --bind-ro="$work/opt:/opt/locd"
        --bind-ro="$work/etc/locd.toml:/etc/locd/locd.toml"
        --bind-ro="$work/etc/apps.d:/etc/locd/apps.d"
        --bind-ro="$work/etc/locd.toml.d:/etc/locd/locd.toml.d"
        --bind-ro="$work/etc/sysusers.d/locd.conf:/etc/sysusers.d/locd.conf"
        --bind-ro="$work/etc/sysusers.d/locd-geoclue.conf:/etc/sysusers.d/locd-geoclue.conf"
        --bind-ro="$work/etc/sysusers.d/locd-network.conf:/etc/sysusers.d/locd-network.conf"
        --bind-ro="$work/stage/opt/locd/share/dbus-1/system.d/locd-network.conf:/etc/dbus-1/system.d/locd-network.conf"
        --bind-ro="$work/stage/opt/locd/share/dbus-1/system.d/org.freedesktop.GeoClue2.conf:/etc/dbus-1/system.d/org.freedesktop.GeoClue2.conf"
        --overlay-ro="/usr/share/dbus-1/system-services:$work/system-services:/usr/share/dbus-1/system-services"
        --overlay-ro="/usr/share/dbus-1/services:$work/session-services:/usr/share/dbus-1/services"
        --bind-ro="$work/etc/sysusers.d/person.conf:/etc/sysusers.d/person.conf"
        --bind-ro="$work/user-units/locd-agent.service:/etc/systemd/user/locd-agent.service"
        --bind-ro="$work/user-units/boot-desktop.target:/etc/systemd/user/boot-desktop.target"
        # The user manager's PAM stack (systemd-user) reads the host's common-* files and limits.conf: the container's /etc is empty.
        --bind-ro=/etc/pam.d
        --bind-ro=/etc/security
        --bind-ro=/etc/fonts
    )
    for unit in locd.service locd.socket locd-geoclue.service locd-network.service locd-network.socket locd-test.target \
        locd-test.service; do
        binds+=(--bind-ro="$work/units/$unit:/etc/systemd/system/$unit")
    done
    binds+=(--bind-ro="$work/units/locd.service.d:/etc/systemd/system/locd.service.d")
    timeout 180 systemd-nspawn -D / --volatile=yes --register=no --keep-unit --private-network -q \
        --machine="locd-boot-$$" "${binds[@]}" \
        -b systemd.unit=locd-test.target systemd.firstboot=off </dev/null >"$work/console.txt" 2>&1 || true

    [ -f "$work/result.txt" ] || { echo "boot-test: the test service never ran; console:" >&2; tail -40 "$work/console.txt" >&2; exit 1; }
    cat "$work/result.txt"
    grep -q '^ALL PASSED$' "$work/result.txt" || { echo "boot-test: FAILED" >&2; exit 1; }
fi

# The second boot: a machine with GeoClue 2.6 switches to locd as USAGE says (Tests/System/switch-from-geoclue.sh).
# Its /usr and /etc are this machine's, each under a writable overlay whose changes vanish with the container, so
# `make install` installs into /usr and /etc as on a real machine. GeoClue must be installed for it.
if [ ! -x /usr/libexec/geoclue ] || [ ! -x /usr/libexec/geoclue-2.0/demos/where-am-i ] || ! command -v make >/dev/null; then
    echo "boot-test: the switch from GeoClue SKIPPED: GeoClue 2.6 (geoclue-2.0, geoclue-2-demo) or make is not installed"
    echo "boot-test: passed"
    exit 0
fi
switch=$work/switch
mkdir -p "$switch/units"
# USAGE's commands: the switch's block after its build-and-install line, and the command that goes back; run as
# root, so without sudo.
awk '/To switch a machine from GeoClue/ { found = 1 } found && /^```sh/ { block = 1; next } block && /^```/ { exit } block' \
    docs/USAGE.md | grep -v 'make install' | sed 's/^sudo //' >"$switch/switch.txt"
sed -n 's/^Back to GeoClue, one command: `sudo \([^`]*\)`.*/\1/p' docs/USAGE.md >"$switch/switch-back.txt"
[ -s "$switch/switch.txt" ] && [ -s "$switch/switch-back.txt" ] || { echo "boot-test: USAGE's switch not found" >&2; exit 1; }
cp Tests/System/switch-from-geoclue.sh Tests/System/geoclue-machine.sh Tests/System/nmea_feeder.py Tests/System/checks.sh \
    "$switch/"
cat > "$switch/units/locd-switch.target" <<UNIT
[Unit]
Description=locd boot test: the switch from GeoClue
Requires=locd-switch.service dbus.socket
After=locd-switch.service
AllowIsolate=yes
UNIT
cat > "$switch/units/locd-switch.service" <<UNIT
[Unit]
Description=locd boot test: the switch from GeoClue
After=dbus.socket systemd-sysusers.service systemd-tmpfiles-setup.service
Requires=dbus.socket
[Service]
Type=oneshot
Environment=PATH=/usr/sbin:/usr/bin:/sbin:/bin
ExecStart=/bin/bash $switch/switch-from-geoclue.sh $switch $PWD $build
ExecStopPost=/bin/systemctl poweroff --no-block
StandardOutput=append:$switch/result.txt
StandardError=append:$switch/result.txt
UNIT
echo "boot-test: booting a machine with GeoClue that switches to locd (work dir $switch)"
timeout 240 systemd-nspawn -D / --volatile=yes --overlay=/usr::/usr --overlay=/etc::/etc --register=no --keep-unit \
    --private-network -q --machine="locd-switch-$$" --bind="$switch" --bind-ro="$PWD" --bind-ro="$build" \
    --bind-ro="$swift_root" --bind-ro="$switch/units/locd-switch.target:/etc/systemd/system/locd-switch.target" \
    --bind-ro="$switch/units/locd-switch.service:/etc/systemd/system/locd-switch.service" \
    -b systemd.unit=locd-switch.target systemd.firstboot=off </dev/null >"$switch/console.txt" 2>&1 || true
[ -f "$switch/result.txt" ] || { echo "boot-test: the switch never ran; console:" >&2; tail -40 "$switch/console.txt" >&2; exit 1; }
cat "$switch/result.txt"
grep -q '^ALL PASSED$' "$switch/result.txt" || { echo "boot-test: FAILED" >&2; exit 1; }
echo "boot-test: passed"
