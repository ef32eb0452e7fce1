#!/usr/bin/python3
"""A GeoClue2 agent of the project's own, for GeoClueTests: it exports org.freedesktop.GeoClue2.Agent at
/org/freedesktop/GeoClue2/Agent on the system bus, as GNOME Shell and GeoClue's demo agent do, and calls the
Manager's AddAgent. Run with /usr/bin/python3 (it has gi).

  geoclue_agent.py MODE MAX_ACCURACY_LEVEL

MODE is how it answers AuthorizeApp(desktop_id, req_accuracy_level):
  allow:N    authorized, allowed_accuracy_level N
  refuse     not authorized, 0
  silent     never answers
  leave      exits at once, without answering (the agent leaves the bus mid-prompt)
It prints one JSON object a line: {"registered": true} once AddAgent returned, {"asked": [desktop_id, level]}
for each AuthorizeApp. A line "max N" on its standard input sets MaxAccuracyLevel to N (with PropertiesChanged);
a line "answer N" answers the calls a silent agent holds, authorized with level N ({"answered": count}); the end of
its input ends it.
"""
import json
import os
import sys

from gi.repository import Gio, GLib

INTERFACE = """
<node>
  <interface name="org.freedesktop.GeoClue2.Agent">
    <method name="AuthorizeApp">
      <arg name="desktop_id" type="s" direction="in"/>
      <arg name="req_accuracy_level" type="u" direction="in"/>
      <arg name="authorized" type="b" direction="out"/>
      <arg name="allowed_accuracy_level" type="u" direction="out"/>
    </method>
    <property name="MaxAccuracyLevel" type="u" access="read"/>
  </interface>
</node>
"""
PATH = "/org/freedesktop/GeoClue2/Agent"
NAME = "org.freedesktop.GeoClue2.Agent"


def out(value):
    print(json.dumps(value), flush=True)


def main(mode, max_level):
    bus = Gio.bus_get_sync(Gio.BusType.SYSTEM, None)
    state = {"max": max_level, "held": []}
    loop = GLib.MainLoop()

    def method(_connection, _sender, _path, _interface, _method, parameters, invocation):
        desktop_id, level = parameters.unpack()
        out({"asked": [desktop_id, level]})
        if mode == "silent":
            state["held"].append(invocation)  # kept, never answered
        elif mode == "leave":
            os._exit(0)
        elif mode == "refuse":
            invocation.return_value(GLib.Variant("(bu)", (False, 0)))
        else:
            invocation.return_value(GLib.Variant("(bu)", (True, int(mode.split(":")[1]))))

    def get_property(_connection, _sender, _path, _interface, name):
        return GLib.Variant("u", state["max"]) if name == "MaxAccuracyLevel" else None

    node = Gio.DBusNodeInfo.new_for_xml(INTERFACE)
    bus.register_object(PATH, node.interfaces[0], method, get_property, None)

    def added(connection, result, _data):
        try:
            connection.call_finish(result)
        except GLib.Error as error:
            out({"refused": error.message})
            return
        out({"registered": True})

    agent_id = os.environ.get("GEOCLUE_AGENT_ID", "test-agent")
    bus.call("org.freedesktop.GeoClue2", "/org/freedesktop/GeoClue2/Manager", "org.freedesktop.GeoClue2.Manager",
             "AddAgent", GLib.Variant("(s)", (agent_id,)), None, Gio.DBusCallFlags.NONE, 10000, None, added, None)

    def line(channel, _condition):
        text = channel.readline()
        if not text:
            loop.quit()
            return False
        words = text.split()
        if len(words) == 2 and words[0] == "max":
            state["max"] = int(words[1])
            bus.emit_signal(None, PATH, "org.freedesktop.DBus.Properties", "PropertiesChanged",
                            GLib.Variant("(sa{sv}as)", (NAME, {"MaxAccuracyLevel": GLib.Variant("u", state["max"])}, [])))
            out({"max": state["max"]})
        elif len(words) == 2 and words[0] == "answer":
            held, state["held"] = state["held"], []
            for invocation in held:
                invocation.return_value(GLib.Variant("(bu)", (True, int(words[1]))))
            out({"answered": len(held)})
        return True

    GLib.io_add_watch(GLib.IOChannel.unix_new(0), GLib.IO_IN | GLib.IO_HUP, line)
    loop.run()


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]))
