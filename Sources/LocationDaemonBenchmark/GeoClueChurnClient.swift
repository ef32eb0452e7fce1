/// The client process of the GeoClue scenario: a Python GI program (GDBus, as GNOME's GeoClue clients use) that
/// runs the churn cycle CreateClient → Set DesktopId → Set RequestedAccuracyLevel → Start → Stop → DeleteClient
/// against whatever owns `org.freedesktop.GeoClue2` on `$DBUS_SYSTEM_BUS_ADDRESS`.
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

        def cycle():
            (client,) = call(MANAGER, MANAGER_IFACE, "CreateClient").unpack()
            call(client, PROPERTIES, "Set",
                 GLib.Variant("(ssv)", (CLIENT_IFACE, "DesktopId", GLib.Variant("s", "gnome-datetime-panel"))))
            call(client, PROPERTIES, "Set",
                 GLib.Variant("(ssv)", (CLIENT_IFACE, "RequestedAccuracyLevel", GLib.Variant("u", 8))))
            call(client, CLIENT_IFACE, "Start")
            call(client, CLIENT_IFACE, "Stop")
            call(MANAGER, MANAGER_IFACE, "DeleteClient", GLib.Variant("(o)", (client,)))

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
