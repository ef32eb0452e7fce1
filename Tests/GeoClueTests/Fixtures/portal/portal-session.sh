#!/usr/bin/env bash
# Runs inside `dbus-run-session`: xdg-desktop-portal 1.16 and the headless Access backend (fake_access.py) on the
# new session bus, talking to org.freedesktop.GeoClue2 on $DBUS_SYSTEM_BUS_ADDRESS; then portal_client.py uses
# org.freedesktop.portal.Location as a sandboxed app would. Each start waits for its bus name (gdbus wait), never
# for a fixed time. Exits with portal_client.py's status; logs go to $1 (a directory).
set -u
here=$(dirname "$(readlink -f "$0")")
logs=$1
export XDG_CURRENT_DESKTOP=test XDG_DESKTOP_PORTAL_DIR="$here"
/usr/bin/python3 "$here/fake_access.py" >"$logs/access.log" 2>&1 &
access=$!
/usr/libexec/xdg-desktop-portal --verbose >"$logs/xdg-desktop-portal.log" 2>&1 &
portal=$!
trap 'kill $access $portal 2>/dev/null' EXIT
gdbus wait --session --timeout 10 org.freedesktop.impl.portal.desktop.test || { echo "no Access backend" >&2; exit 2; }
gdbus wait --session --timeout 10 org.freedesktop.portal.Desktop || { echo "no xdg-desktop-portal" >&2; exit 2; }
/usr/bin/python3 "$here/portal_client.py" 10
