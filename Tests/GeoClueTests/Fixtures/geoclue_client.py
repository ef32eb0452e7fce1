#!/usr/bin/python3
"""GeoClue2 clients as real programs use the API, for GeoClueTests. Run with /usr/bin/python3 (it has gi).

Modes (one JSON object per line on stdout):
  where-am-i APP LEVEL   GetClient, Set DesktopId, Set RequestedAccuracyLevel LEVEL, Start, GetAll of the
                         Location of the first LocationUpdated, DeleteClient (as where-am-i does).
  gammastep APP          GetClient, Set DesktopId, Set DistanceThreshold 50000, Start, GetAll of the first
                         Location, then exits without DeleteClient (as gammastep and redshift do).
  twice APP              where-am-i's cycle at level 8 twice, the second with CreateClient, each printing its
                         location; then prints {"deleted": 2} and waits for stdin to close.
  apps A B C D E         One peer starts a client for each app id in turn (CreateClient, Set DesktopId, Start),
                         printing {"app": A, "started": true} or the error with "app"; then deletes A's client
                         and starts E's again, printing that too.
  start APP              GetClient, Set DesktopId, Start: prints the reply or the error.
  no-desktop-id          GetClient, Start without DesktopId: prints the error.
  set-active             GetClient, Set Active true: prints the error.
  set NAME TYPE VALUE    GetClient, Set the property NAME to VALUE of D-Bus type TYPE (s or u): prints the error.
  hold APP               GetClient, Set DesktopId, prints the client path, then waits for stdin to close.
  hold-started APP       GetClient, Set DesktopId, Start, prints that it started, then waits for stdin to close.
  follow APP DISTANCE SECONDS
                         GetClient, Set DesktopId, Set DistanceThreshold DISTANCE, Start, then counts the
                         LocationUpdated signals for SECONDS and reads each replaced Location 1 s after the
                         signal that replaced it: prints {"updates": n, "replaced": n, "readable": n,
                         "positions": [[latitude, longitude], ...]}.
  flood APP N            GetClient, Set DesktopId, then N times Start and Stop without waiting for replies:
                         prints how many replies came, by error name ("ok" for success), then exits.
  cycles APP N           N times, as locd-bench's churn: CreateClient, Set DesktopId, Set RequestedAccuracyLevel 8,
                         Start, Stop, DeleteClient; prints {"cycles": n}, or the error with "cycles" done.
  create-clients N       CreateClient N times: prints how many were made and the first error.
  hold-clients N         create-clients N, then holds them until stdin closes.
  pending APP...         For each app id: CreateClient, Set DesktopId, then Start without waiting for its reply;
                         prints {"sent": n} once every Start is sent, then serves the bus until stdin closes,
                         printing each Start's outcome as it comes: {"app": A, "started": true} or the error
                         with "app".
  hog APP N              An attacker: CreateClient, Set DesktopId APP and Start N times in a row, holding every
                         client; prints {"started": n, "errors": {name: count}}, then holds them all until stdin
                         closes.
  watch APP LEVEL        GetClient, Set DesktopId, Set RequestedAccuracyLevel LEVEL, Start, then prints the
                         Latitude, Longitude and Accuracy of each Location a LocationUpdated names as
                         {"location": {...}}, until stdin closes; a line "level N" sets
                         RequestedAccuracyLevel N while it runs.
  listen                 No client: prints {"listening": true} once its match rule for the service's
                         PropertiesChanged is in place, then {"path": P, "changed": [names]} for each one it
                         receives, until stdin closes.
  start-waiting APP      GetClient, Set DesktopId, subscribe to LocationUpdated, then Start with the D-Bus default
                         timeout (25 s, as libgeoclue, gammastep and where-am-i call it): prints the reply or the
                         error with "seconds" it took, then prints {"location": {...}} for each LocationUpdated
                         until stdin closes.
Errors are printed as {"error": name, "message": text}; the process exits 0 unless the bus itself failed.
"""
import json
import sys

from gi.repository import Gio, GLib

BUS_NAME = "org.freedesktop.GeoClue2"
MANAGER = "/org/freedesktop/GeoClue2/Manager"
CLIENT = "org.freedesktop.GeoClue2.Client"
PROPERTIES = "org.freedesktop.DBus.Properties"


def out(value):
    print(json.dumps(value), flush=True)


def call(bus, path, interface, method, args=None, reply=None):
    return bus.call_sync(BUS_NAME, path, interface, method, args,
                         GLib.VariantType(reply) if reply else None, Gio.DBusCallFlags.NONE, 10000, None)


def set_property(bus, path, name, value):
    call(bus, path, PROPERTIES, "Set", GLib.Variant("(ssv)", (CLIENT, name, value)))


def error_of(error):
    name = Gio.DBusError.get_remote_error(error)
    prefix = "GDBus.Error:%s: " % name
    message = error.message[len(prefix):] if error.message.startswith(prefix) else error.message
    return {"error": name, "message": message}


def first_location(bus, path):
    """Starts the client and returns the properties of the Location its first LocationUpdated names."""
    loop = GLib.MainLoop()
    seen = {}

    def updated(_connection, _sender, _path, _interface, _signal, parameters, _data):
        seen["old"], seen["new"] = parameters.unpack()
        loop.quit()

    def changed(_connection, _sender, _path, _interface, _signal, parameters, _data):
        _interface_name, properties, _invalidated = parameters.unpack()
        seen.setdefault("changed", []).extend(sorted(properties.keys()))

    bus.signal_subscribe(BUS_NAME, CLIENT, "LocationUpdated", path, None, Gio.DBusSignalFlags.NONE, updated, None)
    bus.signal_subscribe(BUS_NAME, PROPERTIES, "PropertiesChanged", path, None, Gio.DBusSignalFlags.NONE, changed, None)
    call(bus, path, CLIENT, "Start")
    GLib.timeout_add_seconds(10, loop.quit)
    loop.run()
    # PropertiesChanged of Location follows the signal: let the bus deliver what is already on its way.
    context = GLib.MainContext.default()
    while context.iteration(False):
        pass
    if "new" not in seen:
        return {"error": "timeout", "message": "no LocationUpdated in 10 s"}
    (properties,) = call(bus, seen["new"], PROPERTIES, "GetAll",
                         GLib.Variant("(s)", ("org.freedesktop.GeoClue2.Location",)), "(a{sv})").unpack()
    properties["old"], properties["new"] = seen["old"], seen["new"]
    properties["changed"] = seen.get("changed", [])
    return properties


def follow(bus, path, seconds):
    loop = GLib.MainLoop()
    counts = {"updates": 0, "replaced": 0, "readable": 0, "positions": []}

    def read_later(old):
        try:
            call(bus, old, PROPERTIES, "GetAll", GLib.Variant("(s)", ("org.freedesktop.GeoClue2.Location",)))
            counts["readable"] += 1
        except GLib.Error:
            pass
        return False

    def updated(_connection, _sender, _path, _interface, _signal, parameters, _data):
        old, new = parameters.unpack()
        counts["updates"] += 1
        (properties,) = call(bus, new, PROPERTIES, "GetAll",
                             GLib.Variant("(s)", ("org.freedesktop.GeoClue2.Location",)), "(a{sv})").unpack()
        counts["positions"].append([properties["Latitude"], properties["Longitude"]])
        if old != "/":
            counts["replaced"] += 1
            GLib.timeout_add(1000, read_later, old)

    subscription = bus.signal_subscribe(BUS_NAME, CLIENT, "LocationUpdated", path, None,
                                        Gio.DBusSignalFlags.NONE, updated, None)
    call(bus, path, CLIENT, "Start")
    GLib.timeout_add(int(seconds * 1000), loop.quit)
    loop.run()
    bus.signal_unsubscribe(subscription)
    # The reads scheduled in the last second are still due: give them their second.
    end = GLib.MainLoop()
    GLib.timeout_add(1100, end.quit)
    end.run()
    return counts


def watch(bus, path):
    loop = GLib.MainLoop()

    def updated(_connection, _sender, _path, _interface, _signal, parameters, _data):
        _old, new = parameters.unpack()
        (properties,) = call(bus, new, PROPERTIES, "GetAll",
                             GLib.Variant("(s)", ("org.freedesktop.GeoClue2.Location",)), "(a{sv})").unpack()
        out({"location": {name: properties[name] for name in ("Latitude", "Longitude", "Accuracy")}})

    def command(channel, _condition):
        words = channel.readline().split()
        if not words:
            loop.quit()
            return False
        if words[0] == "level":
            set_property(bus, path, "RequestedAccuracyLevel", GLib.Variant("u", int(words[1])))
        return True

    bus.signal_subscribe(BUS_NAME, CLIENT, "LocationUpdated", path, None, Gio.DBusSignalFlags.NONE, updated, None)
    call(bus, path, CLIENT, "Start")
    out({"started": path})
    GLib.io_add_watch(GLib.IOChannel.unix_new(0), GLib.IO_IN | GLib.IO_HUP, command)
    loop.run()


def start_waiting(bus, path):
    loop = GLib.MainLoop()

    def updated(_connection, _sender, _path, _interface, _signal, parameters, _data):
        _old, new = parameters.unpack()
        (properties,) = call(bus, new, PROPERTIES, "GetAll",
                             GLib.Variant("(s)", ("org.freedesktop.GeoClue2.Location",)), "(a{sv})").unpack()
        out({"location": {name: properties[name] for name in ("Latitude", "Longitude", "Accuracy")}})

    def started(connection, result, begun):
        seconds = GLib.get_monotonic_time() / 1e6 - begun
        try:
            connection.call_finish(result)
            out({"started": path, "seconds": seconds})
        except GLib.Error as error:
            failure = error_of(error)
            failure["seconds"] = seconds
            out(failure)

    def command(channel, _condition):
        if not channel.readline():
            loop.quit()
            return False
        return True

    bus.signal_subscribe(BUS_NAME, CLIENT, "LocationUpdated", path, None, Gio.DBusSignalFlags.NONE, updated, None)
    # -1: the connection's default timeout, 25 s, as a GeoClue client that sets none waits.
    bus.call(BUS_NAME, path, CLIENT, "Start", None, None, Gio.DBusCallFlags.NONE, -1, None, started,
             GLib.get_monotonic_time() / 1e6)
    GLib.io_add_watch(GLib.IOChannel.unix_new(0), GLib.IO_IN | GLib.IO_HUP, command)
    loop.run()


def flood(bus, path, times):
    loop = GLib.MainLoop()
    outcomes = {}
    expected = 2 * times

    def done(connection, result, _data):
        try:
            connection.call_finish(result)
            name = "ok"
        except GLib.Error as error:
            name = Gio.DBusError.get_remote_error(error) or error.message
        outcomes[name] = outcomes.get(name, 0) + 1
        if sum(outcomes.values()) == expected:
            loop.quit()

    for _ in range(times):
        for method in ("Start", "Stop"):
            bus.call(BUS_NAME, path, CLIENT, method, None, None, Gio.DBusCallFlags.NONE, 20000, None, done, None)
    GLib.timeout_add_seconds(20, loop.quit)
    loop.run()
    return outcomes


def pending(bus, first, apps):
    def started(connection, result, app):
        try:
            connection.call_finish(result)
            out({"app": app, "started": True})
        except GLib.Error as error:
            failure = error_of(error)
            failure["app"] = app
            out(failure)

    path = first
    for index, app in enumerate(apps):
        if index > 0:
            (path,) = call(bus, MANAGER, "org.freedesktop.GeoClue2.Manager", "CreateClient", None, "(o)").unpack()
        set_property(bus, path, "DesktopId", GLib.Variant("s", app))
        bus.call(BUS_NAME, path, CLIENT, "Start", None, None, Gio.DBusCallFlags.NONE, 120000, None, started, app)
    out({"sent": len(apps)})
    loop = GLib.MainLoop()
    GLib.io_add_watch(GLib.IOChannel.unix_new(0), GLib.IO_IN | GLib.IO_HUP, lambda *_: loop.quit())
    loop.run()


def hog(bus, first, app, times):
    started, errors, path = [], {}, first
    for index in range(times):
        try:
            if index > 0:
                (path,) = call(bus, MANAGER, "org.freedesktop.GeoClue2.Manager", "CreateClient", None,
                               "(o)").unpack()
            set_property(bus, path, "DesktopId", GLib.Variant("s", app))
            call(bus, path, CLIENT, "Start")
            started.append(path)
        except GLib.Error as error:
            name = error_of(error)["error"]
            errors[name] = errors.get(name, 0) + 1
    return {"started": len(started), "errors": errors}


def listen(bus):
    """Another peer's view: every PropertiesChanged from the service that an ordinary match rule (sender, member)
    brings, printed as {"path": P, "changed": [names]}, until stdin closes."""
    loop = GLib.MainLoop()

    def changed(_connection, _sender, path, _interface, _signal, parameters, _data):
        _interface_name, properties, _invalidated = parameters.unpack()
        out({"path": path, "changed": sorted(properties.keys())})

    bus.signal_subscribe(BUS_NAME, PROPERTIES, "PropertiesChanged", None, None, Gio.DBusSignalFlags.NONE, changed,
                         None)
    # The bus handles a connection's messages in order: once this call is answered, the match rule is in place.
    bus.call_sync("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "GetId", None, None,
                  Gio.DBusCallFlags.NONE, 10000, None)
    out({"listening": True})
    GLib.io_add_watch(GLib.IOChannel.unix_new(0), GLib.IO_IN | GLib.IO_HUP, lambda *_: loop.quit())
    loop.run()


def main(mode, args):
    bus = Gio.bus_get_sync(Gio.BusType.SYSTEM, None)
    if mode == "listen":
        listen(bus)
        return
    (path,) = call(bus, MANAGER, "org.freedesktop.GeoClue2.Manager", "GetClient", None, "(o)").unpack()
    try:
        if mode == "where-am-i":
            set_property(bus, path, "DesktopId", GLib.Variant("s", args[0]))
            set_property(bus, path, "RequestedAccuracyLevel", GLib.Variant("u", int(args[1])))
            out(first_location(bus, path))
            call(bus, MANAGER, "org.freedesktop.GeoClue2.Manager", "DeleteClient", GLib.Variant("(o)", (path,)))
        elif mode == "twice":
            for index in range(2):
                if index > 0:
                    (path,) = call(bus, MANAGER, "org.freedesktop.GeoClue2.Manager", "CreateClient", None,
                                   "(o)").unpack()
                set_property(bus, path, "DesktopId", GLib.Variant("s", args[0]))
                set_property(bus, path, "RequestedAccuracyLevel", GLib.Variant("u", 8))
                out(first_location(bus, path))
                call(bus, MANAGER, "org.freedesktop.GeoClue2.Manager", "DeleteClient", GLib.Variant("(o)", (path,)))
            out({"deleted": 2})
            sys.stdin.read()
        elif mode == "apps":
            made = {}

            def start(app):
                try:
                    (client,) = call(bus, MANAGER, "org.freedesktop.GeoClue2.Manager", "CreateClient", None,
                                     "(o)").unpack()
                    made[app] = client
                    set_property(bus, client, "DesktopId", GLib.Variant("s", app))
                    call(bus, client, CLIENT, "Start")
                    out({"app": app, "started": True})
                except GLib.Error as error:
                    failure = error_of(error)
                    failure["app"] = app
                    out(failure)

            for app in args:
                start(app)
            call(bus, MANAGER, "org.freedesktop.GeoClue2.Manager", "DeleteClient", GLib.Variant("(o)", (made[args[0]],)))
            start(args[-1])
        elif mode == "gammastep":
            set_property(bus, path, "DesktopId", GLib.Variant("s", args[0]))
            set_property(bus, path, "DistanceThreshold", GLib.Variant("u", 50000))
            out(first_location(bus, path))
        elif mode == "follow":
            set_property(bus, path, "DesktopId", GLib.Variant("s", args[0]))
            set_property(bus, path, "DistanceThreshold", GLib.Variant("u", int(args[1])))
            set_property(bus, path, "RequestedAccuracyLevel", GLib.Variant("u", 8))
            out(follow(bus, path, float(args[2])))
        elif mode == "watch":
            set_property(bus, path, "DesktopId", GLib.Variant("s", args[0]))
            set_property(bus, path, "RequestedAccuracyLevel", GLib.Variant("u", int(args[1])))
            watch(bus, path)
        elif mode == "start-waiting":
            set_property(bus, path, "DesktopId", GLib.Variant("s", args[0]))
            start_waiting(bus, path)
        elif mode == "stop-early":
            # A first client starts and stops, which leaves the peer a connection to locd for the app. On a line of
            # input, a second client of the app starts and, before any answer, stops; then the peer leaves.
            set_property(bus, path, "DesktopId", GLib.Variant("s", args[0]))
            call(bus, path, CLIENT, "Start")
            call(bus, path, CLIENT, "Stop")
            out({"first": "stopped"})
            sys.stdin.readline()
            (second,) = call(bus, MANAGER, "org.freedesktop.GeoClue2.Manager", "CreateClient", None, "(o)").unpack()
            set_property(bus, second, "DesktopId", GLib.Variant("s", args[0]))
            bus.call(BUS_NAME, second, CLIENT, "Start", None, None, Gio.DBusCallFlags.NONE, -1, None, None, None)
            call(bus, second, CLIENT, "Stop")
            out({"second": "stopped"})
        elif mode == "cycles":
            done = 0
            try:
                call(bus, MANAGER, "org.freedesktop.GeoClue2.Manager", "DeleteClient", GLib.Variant("(o)", (path,)))
                for _ in range(int(args[1])):
                    (client,) = call(bus, MANAGER, "org.freedesktop.GeoClue2.Manager", "CreateClient", None,
                                     "(o)").unpack()
                    set_property(bus, client, "DesktopId", GLib.Variant("s", args[0]))
                    set_property(bus, client, "RequestedAccuracyLevel", GLib.Variant("u", 8))
                    call(bus, client, CLIENT, "Start")
                    call(bus, client, CLIENT, "Stop")
                    call(bus, MANAGER, "org.freedesktop.GeoClue2.Manager", "DeleteClient",
                         GLib.Variant("(o)", (client,)))
                    done += 1
                out({"cycles": done})
            except GLib.Error as error:
                failure = error_of(error)
                failure["cycles"] = done
                out(failure)
        elif mode == "flood":
            set_property(bus, path, "DesktopId", GLib.Variant("s", args[0]))
            out(flood(bus, path, int(args[1])))
        elif mode in ("create-clients", "hold-clients"):
            made = 1
            try:
                for _ in range(int(args[0]) - 1):
                    call(bus, MANAGER, "org.freedesktop.GeoClue2.Manager", "CreateClient", None, "(o)")
                    made += 1
                out({"made": made})
            except GLib.Error as error:
                failure = error_of(error)
                failure["made"] = made
                out(failure)
            if mode == "hold-clients":
                sys.stdin.read()
        elif mode == "pending":
            pending(bus, path, args)
        elif mode == "hog":
            out(hog(bus, path, args[0], int(args[1])))
            sys.stdin.read()
        elif mode == "start":
            set_property(bus, path, "DesktopId", GLib.Variant("s", args[0]))
            call(bus, path, CLIENT, "Start")
            out({"started": path})
        elif mode == "no-desktop-id":
            call(bus, path, CLIENT, "Start")
            out({"started": path})
        elif mode == "set-active":
            set_property(bus, path, "Active", GLib.Variant("b", True))
            out({"set": path})
        elif mode == "set":
            value = GLib.Variant(args[1], int(args[2]) if args[1] == "u" else args[2])
            set_property(bus, path, args[0], value)
            out({"set": path})
        elif mode == "hold-started":
            set_property(bus, path, "DesktopId", GLib.Variant("s", args[0]))
            call(bus, path, CLIENT, "Start")
            out({"started": path})
            sys.stdin.read()
        elif mode == "hold":
            set_property(bus, path, "DesktopId", GLib.Variant("s", args[0]))
            out({"client": path})
            sys.stdin.read()
    except GLib.Error as error:
        out(error_of(error))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
