#!/usr/bin/python3
"""A client of org.freedesktop.portal.Location as a sandboxed app uses it: CreateSession (accuracy exact), Start,
then the first LocationUpdated. Prints {"latitude", "longitude", "accuracy"} as one JSON line, or {"error": ...}
when the portal's Start answered a non-zero response or no location came in SECONDS (argv[1])."""
import json
import sys

from gi.repository import Gio, GLib

DESKTOP = ("org.freedesktop.portal.Desktop", "/org/freedesktop/portal/desktop")
LOCATION = "org.freedesktop.portal.Location"


def main(seconds):
    bus = Gio.bus_get_sync(Gio.BusType.SESSION, None)
    loop = GLib.MainLoop()
    result = {"error": "timeout", "message": "no LocationUpdated in %d s" % seconds}

    def signal(_connection, _sender, _path, _interface, member, parameters, _data):
        nonlocal result
        values = parameters.unpack()
        if member == "Response" and values[0] != 0:
            result = {"error": "response", "message": "Start answered response %d" % values[0]}
            loop.quit()
        elif member == "LocationUpdated":
            location = values[1]
            result = {"latitude": location["Latitude"], "longitude": location["Longitude"],
                      "accuracy": location["Accuracy"]}
            loop.quit()

    bus.signal_subscribe(DESKTOP[0], None, None, None, None, Gio.DBusSignalFlags.NONE, signal, None)
    options = {"session_handle_token": GLib.Variant("s", "t1"), "accuracy": GLib.Variant("u", 5),
               "distance-threshold": GLib.Variant("u", 0)}
    (session,) = bus.call_sync(*DESKTOP, LOCATION, "CreateSession", GLib.Variant("(a{sv})", (options,)), None,
                               Gio.DBusCallFlags.NONE, 5000, None).unpack()
    bus.call_sync(*DESKTOP, LOCATION, "Start",
                  GLib.Variant("(osa{sv})", (session, "", {"handle_token": GLib.Variant("s", "r1")})), None,
                  Gio.DBusCallFlags.NONE, 5000, None)
    GLib.timeout_add_seconds(seconds, loop.quit)
    loop.run()
    bus.call_sync(DESKTOP[0], session, "org.freedesktop.portal.Session", "Close", None, None,
                  Gio.DBusCallFlags.NONE, 5000, None)
    print(json.dumps(result), flush=True)
    sys.exit(0 if "latitude" in result else 1)


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 10)
