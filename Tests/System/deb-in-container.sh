#!/bin/bash
# Runs inside the package test's container (deb-test.sh) as a oneshot service, with systemd as PID 1, on a Debian 12
# root made by debootstrap: GeoClue 2.6 installed, no Swift. It does what an administrator does with the packages:
# where-am-i served by GeoClue as an ordinary user; `apt install ./locd*.deb`, which removes GeoClue; where-am-i served
# by locd on the first try; an upgrade to a rebuilt package; `apt remove` and `apt install geoclue-2.0`, and GeoClue
# serves it again; `apt purge`, which leaves nothing of locd. Prints PASS/FAIL lines and, when every check passed, "ALL PASSED".
# Argument: the shared work directory, with the packages.
set -uo pipefail
work=$1
source "$work/geoclue-machine.sh"
source "$work/checks.sh"
apt_get() {
    apt-get -y -q -o Dpkg::Use-Pty=0 "$@" >"$work/apt.log" 2>&1 || fail "apt-get $*: $(tail -20 "$work/apt.log")"
}

! command -v swift >/dev/null || fail "Swift is on this machine"
geoclue_machine
served_once_by /usr/libexec/geoclue "$work/geoclue-first.log"
pass "GeoClue 2.6 served where-am-i as $person from the receiver"

# where-am-i is GeoClue's demo, whose package asks for GeoClue's own build and goes with it: the test keeps a copy, at
# its place (the manifest names that executable), to ask locd-geoclue with.
cp -a $where_am_i "$work/where-am-i"
apt_get install --no-install-recommends "$work"/locd_*.deb "$work"/locd-network_*.deb "$work"/locd-geoclue_*.deb
pass "apt install ./locd*.deb"
dpkg-query -W -f='${Status}' geoclue-2.0 2>/dev/null | grep -q 'install ok installed' && fail "geoclue-2.0 is still installed"
[ ! -e /usr/libexec/geoclue ] || fail "GeoClue's daemon is still there"
[ "$(systemctl is-enabled locd.socket)" = enabled ] || fail "locd.socket is not enabled"
[ "$(systemctl is-active locd.socket)" = active ] || fail "locd.socket is not listening"
[ "$(systemctl is-active locd.service)" = inactive ] || fail "locd ran before any client"
pass "GeoClue was removed; locd.socket is enabled and listening, locd waits for its first client"

# The five programs are links to locd's one multi-call binary, and the three packages take at most 100 MB installed
# (dpkg's Installed-Size, in KiB): each program with its own copy of the Swift runtime took 332 MB.
multicall=/usr/libexec/locd/locd-multicall
[ -x $multicall ] && [ ! -L $multicall ] || fail "$multicall is not an executable file"
for program in locd locctl locd-agent locd-network locd-geoclue; do
    [ -L /usr/bin/$program ] && [ "$(readlink -f /usr/bin/$program)" = $multicall ] \
        || fail "/usr/bin/$program is not a link to $multicall: $(ls -l /usr/bin/$program)"
done
extra=$(dpkg -L locd locd-network locd-geoclue | while read -r path; do
    [ -f "$path" ] && [ ! -L "$path" ] && [ -x "$path" ] && [ "$path" != $multicall ] && echo "$path"
done)
[ -z "$extra" ] || fail "executables beside the multi-call binary: $extra"
installed=0
for size in $(dpkg-query -W -f='${Installed-Size}\n' locd locd-network locd-geoclue); do
    installed=$((installed + size))
done
[ "$installed" -le 102400 ] || fail "the packages take $installed KiB installed, more than 102400 (100 MB)"
pass "locd, locctl, locd-agent, locd-network and locd-geoclue are links to $multicall; $installed KiB installed"
# Each program is its own name: its help, and its process (/proc/PID/comm, the journal's identifier).
locctl --help | grep -q '^USAGE: locctl' || fail "locctl --help: $(locctl --help 2>&1 | head -3)"
locd-network --help | grep -q '^USAGE: locd-network' || fail "locd-network --help: $(locd-network --help 2>&1 | head -3)"
$multicall >"$work/multicall.log" 2>&1
status=$?
[ $status = 64 ] && grep -q 'locd, locctl, locd-agent, locd-network, locd-geoclue' "$work/multicall.log" \
    || fail "$multicall run by its own name exited $status: $(cat "$work/multicall.log")"
pass "each program's help names it; the multi-call binary run as itself names the programs and exits 64"
install -D -m 0755 "$work/where-am-i" $where_am_i
served_once_by /usr/bin/locd-geoclue "$work/locd.log"
[ "$(systemctl is-active locd.service)" = active ] || fail "locd.service is not active"
pass "where-am-i as $person was served by locd on the first try, from the receiver through gpsd"
pid=$(systemctl show -P MainPID locd.service)
[ "$(cat /proc/$pid/comm)" = locd ] || fail "locd's process is named $(cat /proc/$pid/comm)"
for program in locd locd-geoclue; do
    journalctl -b -q SYSLOG_IDENTIFIER=$program _COMM=$program | grep -q . \
        || fail "no journal entry of a process named $program says $program"
done
pass "locd's process is named locd; locd and locd-geoclue write to the journal as themselves"

# An upgrade to a rebuilt package (deb-test.sh's, a higher version of the same files): locd restarts and takes its
# sessions back from the store (SEMANTICS R2, R3); locd-geoclue is not restarted, so that the GeoClue clients it
# serves carry on: it runs the replaced file until its next start, and the new locd still takes it as the broker (I8).
# where-am-i, started before the upgrade, is served after it with no new Start; a decision stays (gammastep's never).
locctl auth gammastep never >/dev/null || fail "locctl auth gammastep never"
where_am_i "$work/across.log" -t 90 -a 8 &
client=$!
wait_for 30 '[ "$(latitudes "$work/across.log")" -ge 1 ]' || fail "where-am-i was not served: $(cat "$work/across.log")"
pid=$(systemctl show -P MainPID locd.service)
broker=$(systemctl show -P MainPID locd-geoclue.service)
[ "$pid" != 0 ] && [ "$broker" != 0 ] || fail "locd ($pid) or locd-geoclue ($broker) is not running before the upgrade"
session=$(locctl sessions --json | python3 -c 'import json,sys; print(" ".join(s["id"] for s in json.load(sys.stdin)))')
apt_get install --no-install-recommends "$work"/upgrade/locd*.deb
case $(dpkg-query -W -f='${Version}' locd-geoclue) in *+rebuilt) ;; *) fail "locd-geoclue was not upgraded" ;; esac
[ "$(systemctl show -P MainPID locd.service)" != "$pid" ] || fail "the upgrade did not restart locd"
[ "$(systemctl show -P MainPID locd-geoclue.service)" = "$broker" ] || fail "the upgrade restarted locd-geoclue"
case $(readlink /proc/$broker/exe) in *" (deleted)") ;; *) fail "locd-geoclue runs $(readlink /proc/$broker/exe), not the replaced file" ;; esac
seen=$(latitudes "$work/across.log")
wait_for 40 '[ "$(latitudes "$work/across.log")" -gt '"$seen"' ]' ||
    fail "where-am-i was not served after the upgrade: $(tail -5 "$work/across.log")"
kill -0 $client 2>/dev/null || fail "where-am-i stopped across the upgrade: $(tail -5 "$work/across.log")"
after=$(locctl sessions --json | python3 -c 'import json,sys; print(" ".join(s["id"] for s in json.load(sys.stdin)))')
[ -n "$session" ] && [ "$after" = "$session" ] || fail "where-am-i's session was $session before the upgrade, $after after"
kill $client 2>/dev/null
wait $client
locctl app gammastep >"$work/gammastep.txt" 2>&1 || fail "locctl app gammastep: $(cat "$work/gammastep.txt")"
grep -q 'denied' "$work/gammastep.txt" || fail "the decision was lost: $(cat "$work/gammastep.txt")"
pass "an upgrade restarted locd, not locd-geoclue: where-am-i's session $session carried on, served; a decision stayed"

apt_get remove locd locd-network locd-geoclue
for unit in locd.socket locd.service locd-geoclue.service locd-network.socket; do
    [ "$(systemctl is-active $unit)" != active ] || fail "$unit is still active after apt remove"
done
[ ! -e /usr/share/dbus-1/system-services/org.freedesktop.GeoClue2.service ] || fail "locd-geoclue's activation file stayed"
pass "apt remove stopped locd and locd-geoclue"
apt_get install --no-install-recommends geoclue-2.0
install -D -m 0755 "$work/where-am-i" $where_am_i
served_once_by /usr/libexec/geoclue "$work/geoclue-again.log"
pass "apt install geoclue-2.0: GeoClue served where-am-i again"

apt_get purge locd locd-network locd-geoclue
left=$(dpkg-query -W -f='${Package} ${Status}\n' 'locd*' 2>/dev/null | grep -v 'not-installed')
[ -z "$left" ] || fail "packages left: $left"
for user in locd locd-geoclue locd-network; do
    ! getent passwd $user >/dev/null || fail "the user $user is still there"
    ! getent group $user >/dev/null || fail "the group $user is still there"
done
left=$(find /etc /usr /lib /var /run -name '*locd*' -not -path "$work*" -not -name '*locd-deb-test*' 2>/dev/null)
[ -z "$left" ] || fail "files left: $left"
pass "apt purge left no package, user, group, file, unit or link of locd"

echo "ALL PASSED"
