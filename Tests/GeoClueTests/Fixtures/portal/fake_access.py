#!/usr/bin/python3
"""A headless org.freedesktop.impl.portal.Access backend for the Location portal test: it grants every AccessDialog
(response 0) and prints each one it was asked. It owns org.freedesktop.impl.portal.desktop.test on the session
bus, the name test.portal gives xdg-desktop-portal for desktop "test"."""
from gi.repository import Gio, GLib

XML = """<node><interface name="org.freedesktop.impl.portal.Access">
<method name="AccessDialog"><arg type="o" direction="in"/><arg type="s" direction="in"/><arg type="s" direction="in"/>
<arg type="s" direction="in"/><arg type="s" direction="in"/><arg type="s" direction="in"/>
<arg type="a{sv}" direction="in"/><arg type="u" direction="out"/><arg type="a{sv}" direction="out"/></method>
</interface></node>"""


def on_call(_connection, _sender, _path, _interface, _method, parameters, invocation):
    print("AccessDialog", parameters.unpack()[1:4], flush=True)
    invocation.return_value(GLib.Variant("(ua{sv})", (0, {})))


def on_bus(connection, _name):
    interface = Gio.DBusNodeInfo.new_for_xml(XML).interfaces[0]
    connection.register_object("/org/freedesktop/portal/desktop", interface, on_call, None, None)


Gio.bus_own_name(Gio.BusType.SESSION, "org.freedesktop.impl.portal.desktop.test", Gio.BusNameOwnerFlags.NONE,
                 on_bus, None, None)
GLib.MainLoop().run()
