/// The client process of the GeoClue scenario: a Python GI program (GDBus, as GNOME's GeoClue clients use) that
/// runs the churn cycle CreateClient → Set DesktopId → Set RequestedAccuracyLevel → Start → Stop → DeleteClient
/// against whatever owns `org.freedesktop.GeoClue2` on `$DBUS_SYSTEM_BUS_ADDRESS`.
///
/// Each cycle's client is watched as real clients watch theirs: after `CreateClient` the program makes a
/// `Gio.DBusProxy` for the client's path with no flags, as libgeoclue's `GClueClientProxy` is made
/// (`gclue_client_proxy_new_for_bus(…, G_DBUS_PROXY_FLAGS_NONE, …)`), and calls `Set`, `Start` and `Stop` through it.
/// Being GLib's own proxy, it does what gammastep's, GNOME's and libgeoclue's proxies do (GLib's `gdbusproxy.c`,
/// `async_initable_init_first` and `async_initable_init_second_async`): it subscribes to the client's
/// `PropertiesChanged` (arg0 the Client interface), to every signal of the Client interface on its path and to
/// the name's `NameOwnerChanged` (three `AddMatch`; a GLib with the fix of CVE-2024-34397, 2.80.1 or Debian 12's
/// 2.74.6, also asks `GetNameOwner` for the well-known sender), then calls `StartServiceByName`, `GetNameOwner`
/// and `GetAll`. Its signals are read as they
/// come, after each call, as a main loop would, and its `LocationUpdated` is counted, as libgeoclue's client
/// listens to it (libgeoclue's `GClueSimple` then makes a proxy of the new Location object: this program does not,
/// so that the trivial service, which sends no signal, gets the same calls). The proxy is dropped after
/// `DeleteClient` (three `RemoveMatch`). The same program and the same calls run against every service.
///
/// It keeps one bus connection for its whole life and takes commands on stdin, one a line, so the same processes
/// measure every service in turn:
/// - `owned SECONDS` / `unowned SECONDS`: waits until the name has an owner / has none; answers `ok` or `error …`.
/// - `run SECONDS`: cycles for that long; answers `done N` and each cycle's time in microseconds, or `error …` with
///   the D-Bus error of the call that failed.
/// It says `ready` once connected and exits at the end of its input.
enum GeoClueChurnClient {
    static let script = #"""
        import sys, time
        from gi.repository import Gio, GLib

        NAME = "org.freedesktop.GeoClue2"
        MANAGER, MANAGER_IFACE = "/org/freedesktop/GeoClue2/Manager", "org.freedesktop.GeoClue2.Manager"
        CLIENT_IFACE, PROPERTIES = "org.freedesktop.GeoClue2.Client", "org.freedesktop.DBus.Properties"
        address = Gio.dbus_address_get_for_bus_sync(Gio.BusType.SYSTEM, None)
        bus = Gio.DBusConnection.new_for_address_sync(
            address,
            Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT | Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION,
            None, None)

        def say(line):
            sys.stdout.write(line + "\n")
            sys.stdout.flush()

        def call(path, interface, method, args=None):
            return bus.call_sync(NAME, path, interface, method, args, None, Gio.DBusCallFlags.NONE, 10000, None)

        def has_owner():
            (owned,) = bus.call_sync("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                                     "NameHasOwner", GLib.Variant("(s)", (NAME,)), None, Gio.DBusCallFlags.NONE,
                                     5000, None).unpack()
            return owned

        def wait_owner(want, seconds):
            deadline = time.monotonic() + seconds
            while has_owner() != want:
                if time.monotonic() > deadline:
                    return "error %s %s after %g s" % (NAME, "has no owner" if want else "still has an owner", seconds)
                time.sleep(0.01)
            return "ok"

        context = GLib.MainContext.default()
        updates = [0]

        def on_signal(proxy, sender, signal, parameters):
            if signal == "LocationUpdated":
                updates[0] += 1

        def dispatch():
            while context.iteration(False):
                pass

        def cycle():
            (client,) = call(MANAGER, MANAGER_IFACE, "CreateClient").unpack()
            proxy = Gio.DBusProxy.new_sync(bus, Gio.DBusProxyFlags.NONE, None, NAME, client, CLIENT_IFACE, None)
            handler = proxy.connect("g-signal", on_signal)
            for method, args in (
                    (PROPERTIES + ".Set",
                     GLib.Variant("(ssv)", (CLIENT_IFACE, "DesktopId", GLib.Variant("s", "gnome-datetime-panel")))),
                    (PROPERTIES + ".Set",
                     GLib.Variant("(ssv)", (CLIENT_IFACE, "RequestedAccuracyLevel", GLib.Variant("u", 8)))),
                    ("Start", None),
                    ("Stop", None)):
                proxy.call_sync(method, args, Gio.DBusCallFlags.NONE, 10000, None)
                dispatch()
            call(MANAGER, MANAGER_IFACE, "DeleteClient", GLib.Variant("(o)", (client,)))
            dispatch()
            proxy.disconnect(handler)

        def run(seconds):
            times = []
            end = time.monotonic() + seconds
            try:
                while time.monotonic() < end:
                    started = time.perf_counter_ns()
                    cycle()
                    times.append((time.perf_counter_ns() - started) // 1000)
            except GLib.Error as error:
                return "error " + error.message.replace("\n", " ")
            return "done %d %s" % (len(times), " ".join(map(str, times)))

        say("ready")
        for line in sys.stdin:
            command, _, argument = line.strip().partition(" ")
            if command == "owned":
                say(wait_owner(True, float(argument)))
            elif command == "unowned":
                say(wait_owner(False, float(argument)))
            elif command == "run":
                say(run(float(argument)))
            else:
                say("error unknown command " + command)
        """#
}
