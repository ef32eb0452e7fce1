#!/bin/bash
# Runs inside the second boot-test container as a oneshot service, with systemd as PID 1, on a writable copy of this
# machine's /usr and /etc: GeoClue 2.6 is installed as Debian installs it, and nothing of locd is. It does what a
# maintainer does: where-am-i served by GeoClue as an ordinary user; `make install`; README's switch, command by
# command; where-am-i served by locd, started by D-Bus and socket activation on the first try from the location source
# the installed configuration finds (gpsd); a grant revoked and given back, and a locd restart, while it runs; then README's way
# back, and GeoClue serves where-am-i again. Prints PASS/FAIL lines and, when every check passed, "ALL PASSED".
# Arguments: the shared work directory, the checkout, the folder of the binaries.
set -uo pipefail
work=$1
checkout=$2
build=$3
person=alice
where_am_i=/usr/libexec/geoclue-2.0/demos/where-am-i

fail() {
    echo "FAIL: $*"
    systemctl status locd.socket locd.service locd-geoclue.service geoclue.service --no-pager 2>&1 | head -40
    journalctl -u locd.service -u locd-geoclue.service -u geoclue.service -u dbus.service --no-pager 2>&1 | tail -40
    exit 1
}
source "$work/checks.sh"
# where-am-i as the person: no groups, no capabilities, as a desktop's client runs. Its output goes to $1. Run in
# the background, its pid is where-am-i's.
where_am_i() {
    local log=$1
    shift
    exec setpriv --reuid=$person --regid=$person --clear-groups --inh-caps=-all --bounding-set=-all \
        $where_am_i "$@" >"$log" 2>&1
}
latitudes() {
    local count
    count=$(grep -c '^Latitude:' "$1" 2>/dev/null)
    echo "${count:-0}"
}
# The process that owns org.freedesktop.GeoClue2 now.
owner_exe() {
    local pid
    pid=$(busctl --system status org.freedesktop.GeoClue2 2>/dev/null | sed -n 's/^PID=//p')
    [ -n "$pid" ] && readlink "/proc/$pid/exe"
}

# The machine: GeoClue as Debian installs it (its unit, bus policy and activation file are this machine's), and a GPS
# receiver on it: an NMEA stream (nmea_feeder.py) that GeoClue reads from its nmea-socket, and that gpsd, installed and
# socket-activated as Debian sets it up, reads as its device. where-am-i is a system component in GeoClue's
# configuration (no agent asked), as an administrator might have set it up.
useradd --uid 61001 --create-home $person 2>/dev/null || fail "useradd $person"
python3 "$work/nmea_feeder.py" /run/nmea.sock 10110 >"$work/nmea.log" 2>&1 &
wait_for 10 'grep -q ready "$work/nmea.log"' || fail "the NMEA feeder did not start: $(cat "$work/nmea.log")"
cat >/etc/geoclue/geoclue.conf <<CONF
[agent]
whitelist=geoclue-demo-agent;gnome-shell
[network-nmea]
enable=true
nmea-socket=/run/nmea.sock
[3g]
enable=false
[cdma]
enable=false
[modem-gps]
enable=false
[wifi]
enable=false
[compass]
enable=false
[geoclue-where-am-i]
allowed=true
system=true
users=
CONF
printf '%s\n' 'DEVICES="tcp://127.0.0.1:10110"' 'GPSD_OPTIONS="-n"' 'USBAUTO="false"' >/etc/default/gpsd
systemctl start gpsd.socket || fail "gpsd.socket"
# GeoClue gives no client a location until an agent of the client's user is there: the person's desktop runs GeoClue's
# demo agent (its XDG autostart entry), here in a session bus of its own.
setpriv --reuid=$person --regid=$person --init-groups env HOME=/home/$person \
    dbus-run-session -- /usr/libexec/geoclue-2.0/demos/agent >"$work/agent.log" 2>&1 &
[ "$(systemctl is-active geoclue.service)" = inactive ] || fail "GeoClue ran before any client"
where_am_i "$work/geoclue-first.log" -t 20 -a 8 &
client=$!
wait_for 30 '[ "$(latitudes "$work/geoclue-first.log")" -ge 1 ]' || fail "GeoClue did not serve where-am-i: $(cat "$work/geoclue-first.log")"
grep -q '^Latitude: *52.516275' "$work/geoclue-first.log" || fail "GeoClue served: $(cat "$work/geoclue-first.log")"
[ "$(owner_exe)" = /usr/libexec/geoclue ] || fail "org.freedesktop.GeoClue2 is owned by $(owner_exe)"
kill $client 2>/dev/null
wait $client
pass "GeoClue 2.6 served where-am-i as $person from the receiver"

# make install, as README says (the binaries are built already: BUILD names them).
make -s -C "$checkout" install BUILD="$build" >"$work/install.log" 2>&1 || fail "make install: $(cat "$work/install.log")"
pass "make install"

# README's switch, each command as written there, without sudo (this script is root).
while IFS= read -r command; do
    bash -c "$command" >"$work/command.log" 2>&1 || fail "README's \"$command\" failed: $(cat "$work/command.log")"
    pass "README: $command"
done <"$work/switch.txt"

# locd is not running; the first GeoClue client starts locd-geoclue by D-Bus activation, whose first connection starts
# locd by its socket; locd-geoclue's brokered Hello arrives while locd starts, and is judged once it is ready (I4).
[ "$(systemctl is-active locd.service)" = inactive ] || fail "locd ran before any client"
[ "$(systemctl is-active locd.socket)" = active ] || fail "locd.socket is not listening"
where_am_i "$work/locd.log" -t 120 -a 8 &
client=$!
wait_for 30 '[ "$(latitudes "$work/locd.log")" -ge 1 ]' || fail "where-am-i got nothing from locd: $(cat "$work/locd.log")"
grep -q '^Latitude: *52.516275' "$work/locd.log" || fail "locd served: $(cat "$work/locd.log")"
[ "$(owner_exe)" = /usr/bin/locd-geoclue ] || fail "org.freedesktop.GeoClue2 is owned by $(owner_exe)"
[ "$(systemctl is-active locd.service)" = active ] || fail "locd.service is not active"
pass "where-am-i as $person was served by locd on the first try, from the receiver through gpsd"

# A grant revoked and given back while the client runs: it is served again without a Start (G16).
seen=$(latitudes "$work/locd.log")
locctl auth geoclue-where-am-i never --user $person >/dev/null || fail "locctl auth never"
locctl auth geoclue-where-am-i while-using --user $person >/dev/null || fail "locctl auth while-using"
wait_for 30 '[ "$(latitudes "$work/locd.log")" -gt $seen ]' || fail "where-am-i was not served again after its grant came back: $(cat "$work/locd.log")"
kill -0 $client 2>/dev/null || fail "where-am-i ended: $(cat "$work/locd.log")"
pass "a grant revoked and given back: where-am-i was served again by itself"

# locd restarts: locd-geoclue takes its session back and the client carries on (R3).
seen=$(latitudes "$work/locd.log")
systemctl restart locd.service || fail "systemctl restart locd"
wait_for 30 '[ "$(latitudes "$work/locd.log")" -gt $seen ]' || fail "where-am-i was not served after locd restarted: $(cat "$work/locd.log")"
kill -0 $client 2>/dev/null || fail "where-am-i ended: $(cat "$work/locd.log")"
pass "locd restarted: where-am-i was served again by itself"
kill $client 2>/dev/null
wait $client

# Back to GeoClue as README says; the next client is GeoClue's again.
while IFS= read -r command; do
    bash -c "$command" >"$work/command.log" 2>&1 || fail "README's \"$command\" failed: $(cat "$work/command.log")"
    pass "README: $command"
done <"$work/switch-back.txt"
where_am_i "$work/geoclue-again.log" -t 20 -a 8 &
client=$!
wait_for 30 '[ "$(latitudes "$work/geoclue-again.log")" -ge 1 ]' || fail "GeoClue did not serve where-am-i again: $(cat "$work/geoclue-again.log")"
[ "$(owner_exe)" = /usr/libexec/geoclue ] || fail "org.freedesktop.GeoClue2 is owned by $(owner_exe)"
kill $client 2>/dev/null
wait $client
pass "switched back: GeoClue served where-am-i again"

echo "ALL PASSED"
