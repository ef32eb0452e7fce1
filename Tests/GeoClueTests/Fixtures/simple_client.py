#!/usr/bin/python3
"""A client written with libgeoclue's own convenience API, Geoclue.Simple from Python GI (gir1.2-geoclue-2.0), as
GNOME apps use it. Run with /usr/bin/python3 (it has gi).

  simple_client.py APP LEVEL [hold]
Creates a Geoclue.Simple for DesktopId APP at accuracy level LEVEL (4 city, 8 exact), which returns once its first
location came, and prints {"latitude", "longitude", "accuracy"} as one JSON line; with "hold" it then keeps its
client until stdin closes. A failure prints {"error": name, "message": text} and exits 1."""
import json
import sys

import gi

gi.require_version("Geoclue", "2.0")
from gi.repository import Geoclue, Gio, GLib  # noqa: E402


def main(app, level, hold):
    try:
        simple = Geoclue.Simple.new_sync(app, Geoclue.AccuracyLevel(level), None)
    except GLib.Error as error:
        print(json.dumps({"error": Gio.DBusError.get_remote_error(error) or error.domain, "message": error.message}),
              flush=True)
        sys.exit(1)
    location = simple.get_location()
    print(json.dumps({"latitude": location.props.latitude, "longitude": location.props.longitude,
                      "accuracy": location.props.accuracy}), flush=True)
    if hold:
        sys.stdin.read()


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]), sys.argv[3:] == ["hold"])
