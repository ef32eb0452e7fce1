"""A stand-in org.freedesktop.Notifications on the session bus (DBUS_SESSION_BUS_ADDRESS), for servers that show no
buttons: GetCapabilities answers the comma-separated capabilities of argv[1] (without "actions"). Every Notify and
CloseNotification is printed as one JSON line; {"ready": true} once it owns the name."""
import json
import sys

from gi.repository import Gio, GLib

INTERFACE = """
<node><interface name="org.freedesktop.Notifications">
  <method name="GetCapabilities"><arg type="as" direction="out"/></method>
  <method name="Notify">
    <arg type="s"/><arg type="u"/><arg type="s"/><arg type="s"/><arg type="s"/><arg type="as"/><arg type="a{sv}"/>
    <arg type="i"/><arg type="u" direction="out"/>
  </method>
  <method name="CloseNotification"><arg type="u"/></method>
  <method name="GetServerInformation">
    <arg type="s" direction="out"/><arg type="s" direction="out"/><arg type="s" direction="out"/>
    <arg type="s" direction="out"/>
  </method>
  <signal name="NotificationClosed"><arg type="u"/><arg type="u"/></signal>
  <signal name="ActionInvoked"><arg type="u"/><arg type="s"/></signal>
</interface></node>
"""
capabilities = [c for c in sys.argv[1].split(",") if c]
counter = [0]


def say(value):
    print(json.dumps(value), flush=True)


def call(connection, sender, path, interface, method, parameters, invocation):
    if method == "GetCapabilities":
        invocation.return_value(GLib.Variant("(as)", (capabilities,)))
    elif method == "Notify":
        name, replaces, icon, summary, body, actions, hints, timeout = parameters.unpack()
        counter[0] += 1
        number = replaces or counter[0]
        say({"notify": number, "summary": summary, "body": body, "actions": actions, "hints": sorted(hints)})
        invocation.return_value(GLib.Variant("(u)", (number,)))
    elif method == "CloseNotification":
        say({"close": parameters.unpack()[0]})
        invocation.return_value(None)
    else:
        invocation.return_value(GLib.Variant("(ssss)", ("stand-in", "locd", "1", "1.2")))


bus = Gio.bus_get_sync(Gio.BusType.SESSION, None)
bus.register_object("/org/freedesktop/Notifications", Gio.DBusNodeInfo.new_for_xml(INTERFACE).interfaces[0], call)
Gio.bus_own_name_on_connection(
    bus, "org.freedesktop.Notifications", Gio.BusNameOwnerFlags.NONE, lambda *_: say({"ready": True}), None
)
GLib.MainLoop().run()
