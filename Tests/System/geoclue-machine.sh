# What the in-container scripts of the switch from GeoClue (switch-from-geoclue.sh) and of the package test
# (deb-in-container.sh) share: the person, where-am-i run as them, what a failure shows, and a machine where
# GeoClue 2.6 serves where-am-i from a GPS receiver. Sourced, not run, before checks.sh (whose checks call fail);
# needs $work set.
person=alice
where_am_i=/usr/libexec/geoclue-2.0/demos/where-am-i

fail() {
    echo "FAIL: $*"
    systemctl status locd.socket locd.service locd-geoclue.service geoclue.service --no-pager 2>&1 | head -40
    journalctl -u locd.service -u locd-geoclue.service -u geoclue.service -u dbus.service --no-pager 2>&1 | tail -40
    exit 1
}

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
# The process that owns org.freedesktop.GeoClue2 now: its pid, its executable and its name (/proc/PID/comm).
owner_pid() {
    busctl --system status org.freedesktop.GeoClue2 2>/dev/null | sed -n 's/^PID=//p'
}
owner_exe() {
    local pid
    pid=$(owner_pid)
    [ -n "$pid" ] && readlink "/proc/$pid/exe"
}
owner_name() {
    local pid
    pid=$(owner_pid)
    [ -n "$pid" ] && cat "/proc/$pid/comm"
}

# The machine (geoclue_machine): GeoClue as Debian installs it (its unit, bus policy and activation file are this
# machine's), and a GPS receiver on it: an NMEA stream (nmea_feeder.py) that GeoClue reads from its nmea-socket, and that gpsd, installed and
# socket-activated as Debian sets it up, reads as its device. where-am-i is a system component in GeoClue's
# configuration (no agent asked), as an administrator might have set it up.
geoclue_machine() {
    useradd --uid 61001 --create-home $person 2>/dev/null || fail "useradd $person"
    python3 "$work/nmea_feeder.py" /run/nmea.sock 10110 >"$work/nmea.log" 2>&1 &
    wait_for 10 'grep -qs ready "$work/nmea.log"' || fail "the NMEA feeder did not start: $(cat "$work/nmea.log")"
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
}

# where-am-i run once as the person: served (a latitude, the receiver's) within 30 s by the owner of
# org.freedesktop.GeoClue2 that $1 names (its executable), its output in $2; it is stopped then.
served_once_by() {
    local owner=$1 log=$2 client
    where_am_i "$log" -t 20 -a 8 &
    client=$!
    wait_for 30 '[ "$(latitudes "$log")" -ge 1 ]' || fail "where-am-i was not served: $(cat "$log")"
    grep -q '^Latitude: *52.516275' "$log" || fail "where-am-i was served: $(cat "$log")"
    # The owner runs $owner, links followed (the packages' /usr/bin/locd-geoclue is a link to locd's multi-call
    # binary), and bears its name.
    [ "$(owner_exe)" = "$(readlink -f "$owner")" ] || fail "org.freedesktop.GeoClue2 is owned by $(owner_exe), not $owner"
    [ "$(owner_name)" = "${owner##*/}" ] || fail "org.freedesktop.GeoClue2 is owned by a process named $(owner_name)"
    kill $client 2>/dev/null
    wait $client
}
