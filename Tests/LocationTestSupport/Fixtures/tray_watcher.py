"""A stand-in tray: org.kde.StatusNotifierWatcher on the session bus (DBUS_SESSION_BUS_ADDRESS). Prints one JSON line
for each event: {"ready": true} once it owns the name; {"registered": SERVICE, "sender": NAME} for each
RegisterStatusNotifierItem; then, at the registration and at each signal of the item (NewStatus, NewToolTip), the
item's properties as a tray reads them: {"status", "tooltip": [icon, title, text], "category", "id", "icon", "menu"}.
A line "activate" on standard input clicks the item (Activate(0, 0)), as a person would."""
import json
import sys

from gi.repository import Gio, GLib

INTERFACE = """
<node><interface name="org.kde.StatusNotifierWatcher">
  <method name="RegisterStatusNotifierItem"><arg type="s" direction="in"/></method>
  <method name="RegisterStatusNotifierHost"><arg type="s" direction="in"/></method>
  <property name="RegisteredStatusNotifierItems" type="as" access="read"/>
  <property name="IsStatusNotifierHostRegistered" type="b" access="read"/>
  <property name="ProtocolVersion" type="i" access="read"/>
  <signal name="StatusNotifierItemRegistered"><arg type="s"/></signal>
  <signal name="StatusNotifierItemUnregistered"><arg type="s"/></signal>
  <signal name="StatusNotifierHostRegistered"/>
</interface></node>
"""
ITEM = "org.kde.StatusNotifierItem"
items = []


def say(value):
    print(json.dumps(value), flush=True)


def read_item(service, path):
    def got(connection, result, _):
        try:
            values = connection.call_finish(result).unpack()[0]
        except GLib.Error as error:
            say({"error": error.message})
            return
        tooltip = values.get("ToolTip")
        say({
            "status": values.get("Status"),
            "tooltip": [tooltip[0], tooltip[2], tooltip[3]] if tooltip else None,
            "category": values.get("Category"),
            "id": values.get("Id"),
            "icon": values.get("IconName"),
            "menu": values.get("ItemIsMenu"),
        })

    bus.call(service, path, "org.freedesktop.DBus.Properties", "GetAll", GLib.Variant("(s)", (ITEM,)),
             GLib.VariantType("(a{sv})"), Gio.DBusCallFlags.NONE, -1, None, got, None)


def call(connection, sender, path, interface, method, parameters, invocation):
    service = parameters.unpack()[0]
    invocation.return_value(None)
    if method != "RegisterStatusNotifierItem":
        return
    # The service is a bus name whose item is at /StatusNotifierItem, or an object path of the caller's.
    item_path = "/StatusNotifierItem"
    if service.startswith("/"):
        item_path, service = service, sender
    items.append((service, item_path))
    say({"registered": service, "sender": sender})
    bus.signal_subscribe(service, ITEM, None, item_path, None, Gio.DBusSignalFlags.NONE,
                         lambda *_: read_item(service, item_path), None)
    read_item(service, item_path)


def get_property(connection, sender, path, interface, name):
    if name == "RegisteredStatusNotifierItems":
        return GLib.Variant("as", [service for service, _ in items])
    if name == "IsStatusNotifierHostRegistered":
        return GLib.Variant("b", True)
    return GLib.Variant("i", 0)


def command(channel, condition):
    line = sys.stdin.readline()
    if not line:
        loop.quit()
        return False
    if line.strip() == "activate" and items:
        service, path = items[-1]
        bus.call(service, path, ITEM, "Activate", GLib.Variant("(ii)", (0, 0)), None, Gio.DBusCallFlags.NONE, -1,
                 None, None, None)
    return True


bus = Gio.bus_get_sync(Gio.BusType.SESSION, None)
bus.register_object("/StatusNotifierWatcher", Gio.DBusNodeInfo.new_for_xml(INTERFACE).interfaces[0], call,
                    get_property, None)
Gio.bus_own_name_on_connection(
    bus, "org.kde.StatusNotifierWatcher", Gio.BusNameOwnerFlags.NONE, lambda *_: say({"ready": True}), None
)
GLib.io_add_watch(GLib.IOChannel.unix_new(0), GLib.PRIORITY_DEFAULT, GLib.IOCondition.IN | GLib.IOCondition.HUP,
                  command)
loop = GLib.MainLoop()
loop.run()
