#!/bin/bash
# Runs inside the second boot-test container as a oneshot service, with systemd as PID 1, on a writable copy of this
# machine's /usr and /etc: GeoClue 2.6 is installed as Debian installs it, and nothing of locd is. It does what a
# maintainer does: where-am-i served by GeoClue as an ordinary user; `make install`; USAGE's switch, command by
# command; where-am-i served by locd, started by D-Bus and socket activation on the first try from the location source
# the installed configuration finds (gpsd); a grant revoked and given back, and a locd restart, while it runs; then USAGE's way
# back, and GeoClue serves where-am-i again. Prints PASS/FAIL lines and, when every check passed, "ALL PASSED".
# Arguments: the shared work directory, the checkout, the folder of the binaries.
set -uo pipefail
work=$1
checkout=$2
build=$3
source "$work/geoclue-machine.sh"
source "$work/checks.sh"
# The machine: GeoClue as Debian installs it, a GPS receiver that GeoClue and gpsd read, and the person's agent.
geoclue_machine
[ "$(systemctl is-active geoclue.service)" = inactive ] || fail "GeoClue ran before any client"
served_once_by /usr/libexec/geoclue "$work/geoclue-first.log"
pass "GeoClue 2.6 served where-am-i as $person from the receiver"

# make install, as USAGE says (the binaries are built already: BUILD names them).
make -s -C "$checkout" install BUILD="$build" >"$work/install.log" 2>&1 || fail "make install: $(cat "$work/install.log")"
pass "make install"

# USAGE's switch, each command as written there, without sudo (this script is root).
while IFS= read -r command; do
    bash -c "$command" >"$work/command.log" 2>&1 || fail "USAGE's \"$command\" failed: $(cat "$work/command.log")"
    pass "USAGE: $command"
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

# Back to GeoClue as USAGE says; the next client is GeoClue's again.
while IFS= read -r command; do
    bash -c "$command" >"$work/command.log" 2>&1 || fail "USAGE's \"$command\" failed: $(cat "$work/command.log")"
    pass "USAGE: $command"
done <"$work/switch-back.txt"
served_once_by /usr/libexec/geoclue "$work/geoclue-again.log"
pass "switched back: GeoClue served where-am-i again"

echo "ALL PASSED"
