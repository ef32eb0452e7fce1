#!/usr/bin/python3
"""A stand-in for wpa_supplicant or NetworkManager on a private system bus ($DBUS_SYSTEM_BUS_ADDRESS), for tests of
locd-network: it serves the objects and properties that locd-network (and GeoClue) read, with the access points
the test gives it. Run with /usr/bin/python3 (it has gi).

  wifi_standin.py wpa|nm BSSID,SSID,SIGNAL ...

SIGNAL is in dBm; the NetworkManager stand-in reports it as NetworkManager's Strength percent. Lines on its
standard input change the access points, with the signals the real services send:
  add BSSID,SSID,SIGNAL   a new access point (wpa: BSSAdded and Interface.BSSs changed; nm: AccessPointAdded)
  remove BSSID            an access point gone (wpa: BSSRemoved; nm: AccessPointRemoved)
  reads                   prints how many property reads and method calls it answered so far
  scans                   prints how many scans it was asked for (wpa: Interface.Scan; nm: RequestScan), and the
                          Type of wpa's last ({"scans": N, "type": T})
  age SECONDS             the list was last scanned that long ago (wpa: every BSS's Age; nm: LastScan)
  state STATE             wpa: the interface's State (completed, disconnected, ...); nm: NetworkManager's State
                          (70 connected, 20 disconnected); with PropertiesChanged (nm: and StateChanged)
A scan asked for makes the list fresh (age 0) and is signalled as the real services do (wpa: ScanDone; nm:
LastScan changed).
The end of its input ends it. It prints one JSON object a line: {"ready": true} once it owns its name, then one
answer per command ({"added": BSSID}, {"removed": BSSID}, {"reads": N}, {"age": N}, {"state": S}).
"""
import json
import sys
import time

from gi.repository import Gio, GLib

WPA = "fi.w1.wpa_supplicant1"
NM = "org.freedesktop.NetworkManager"

WPA_XML = """
<node>
  <interface name="fi.w1.wpa_supplicant1"><property name="Interfaces" type="ao" access="read"/></interface>
  <interface name="fi.w1.wpa_supplicant1.Interface">
    <method name="Scan"><arg name="args" type="a{sv}" direction="in"/></method>
    <property name="BSSs" type="ao" access="read"/>
    <property name="State" type="s" access="read"/>
    <signal name="ScanDone"><arg name="success" type="b"/></signal>
    <signal name="BSSAdded"><arg name="path" type="o"/><arg name="properties" type="a{sv}"/></signal>
    <signal name="BSSRemoved"><arg name="path" type="o"/></signal>
  </interface>
  <interface name="fi.w1.wpa_supplicant1.BSS">
    <property name="BSSID" type="ay" access="read"/>
    <property name="SSID" type="ay" access="read"/>
    <property name="Signal" type="n" access="read"/>
    <property name="Age" type="u" access="read"/>
  </interface>
</node>
"""

NM_XML = """
<node>
  <interface name="org.freedesktop.NetworkManager">
    <method name="GetDevices"><arg name="devices" type="ao" direction="out"/></method>
    <property name="Devices" type="ao" access="read"/>
    <property name="State" type="u" access="read"/>
    <signal name="StateChanged"><arg name="state" type="u"/></signal>
  </interface>
  <interface name="org.freedesktop.NetworkManager.Device.Wireless">
    <method name="RequestScan"><arg name="options" type="a{sv}" direction="in"/></method>
    <property name="AccessPoints" type="ao" access="read"/>
    <property name="LastScan" type="x" access="read"/>
    <signal name="AccessPointAdded"><arg name="access_point" type="o"/></signal>
    <signal name="AccessPointRemoved"><arg name="access_point" type="o"/></signal>
  </interface>
  <interface name="org.freedesktop.NetworkManager.AccessPoint">
    <property name="HwAddress" type="s" access="read"/>
    <property name="Ssid" type="ay" access="read"/>
    <property name="Strength" type="y" access="read"/>
  </interface>
</node>
"""


def out(value):
    print(json.dumps(value), flush=True)


def parse(text):
    bssid, ssid, signal = text.split(",")
    return {"bssid": bssid.lower(), "ssid": ssid, "signal": int(signal)}


def percent(dbm):
    """NetworkManager's own conversion: -100..-40 dBm onto 0..100 %."""
    return max(0, min(100, round((max(-100, min(-40, dbm)) + 100) * 100 / 60)))


class StandIn:
    def __init__(self, kind, points):
        self.kind = kind
        self.bus = Gio.bus_get_sync(Gio.BusType.SYSTEM, None)
        self.node = Gio.DBusNodeInfo.new_for_xml(WPA_XML if kind == "wpa" else NM_XML)
        self.points = {}  # path -> point
        self.ids = {}  # path -> registration id
        self.next = 0
        self.reads = 0
        self.scans = 0
        self.scan_type = None
        self.scanned = time.clock_gettime(time.CLOCK_BOOTTIME)
        self.state = "completed" if kind == "wpa" else 70
        if kind == "wpa":
            self.root, self.device = "/fi/w1/wpa_supplicant1", "/fi/w1/wpa_supplicant1/Interfaces/0"
            self.register(self.root, 0)
            self.register(self.device, 1)
        else:
            self.root, self.device = "/org/freedesktop/NetworkManager", "/org/freedesktop/NetworkManager/Devices/1"
            self.register(self.root, 0)
            self.register(self.device, 1)
        for point in points:
            self.add(point, announce=False)

    def register(self, path, index):
        return self.bus.register_object(path, self.node.interfaces[index], self.method, self.get_property, None)

    def method(self, _connection, _sender, _path, _interface, name, parameters, invocation):
        self.reads += 1
        if name == "GetDevices":
            invocation.return_value(GLib.Variant("(ao)", ([self.device],)))
        elif name in ("Scan", "RequestScan"):
            self.scans += 1
            options = parameters.unpack()[0]
            self.scan_type = options.get("Type")
            invocation.return_value(None)
            self.scanned = time.clock_gettime(time.CLOCK_BOOTTIME)
            if self.kind == "wpa":
                self.bus.emit_signal(None, self.device, WPA + ".Interface", "ScanDone", GLib.Variant("(b)", (True,)))
            else:
                self.emit_changed(self.device, NM + ".Device.Wireless", {"LastScan": self.last_scan()})

    def age(self):
        return max(0, int(time.clock_gettime(time.CLOCK_BOOTTIME) - self.scanned))

    def last_scan(self):
        return GLib.Variant("x", int(self.scanned * 1000))

    def emit_changed(self, path, interface, values):
        self.bus.emit_signal(None, path, "org.freedesktop.DBus.Properties", "PropertiesChanged",
                             GLib.Variant("(sa{sv}as)", (interface, values, [])))

    def set_state(self, text):
        if self.kind == "wpa":
            self.state = text
            self.emit_changed(self.device, WPA + ".Interface", {"State": GLib.Variant("s", text)})
        else:
            self.state = int(text)
            self.bus.emit_signal(None, self.root, NM, "StateChanged", GLib.Variant("(u)", (self.state,)))
            self.emit_changed(self.root, NM, {"State": GLib.Variant("u", self.state)})

    def get_property(self, _connection, _sender, path, _interface, name):
        self.reads += 1
        if name == "Interfaces":
            return GLib.Variant("ao", [self.device])
        if name == "Devices":
            return GLib.Variant("ao", [self.device])
        if name in ("BSSs", "AccessPoints"):
            return GLib.Variant("ao", sorted(self.points))
        if name == "State":
            return GLib.Variant("s", self.state) if self.kind == "wpa" else GLib.Variant("u", self.state)
        if name == "LastScan":
            return self.last_scan()
        point = self.points.get(path)
        if point is None:
            return None
        octets = bytes(int(part, 16) for part in point["bssid"].split(":"))
        return {
            "BSSID": lambda: GLib.Variant("ay", octets),
            "SSID": lambda: GLib.Variant("ay", point["ssid"].encode()),
            "Signal": lambda: GLib.Variant("n", point["signal"]),
            "Age": lambda: GLib.Variant("u", self.age()),
            "HwAddress": lambda: GLib.Variant("s", point["bssid"].upper()),
            "Ssid": lambda: GLib.Variant("ay", point["ssid"].encode()),
            "Strength": lambda: GLib.Variant("y", percent(point["signal"])),
        }[name]()

    def list_name(self):
        return "BSSs" if self.kind == "wpa" else "AccessPoints"

    def changed(self):
        interface = WPA + ".Interface" if self.kind == "wpa" else NM + ".Device.Wireless"
        value = {self.list_name(): GLib.Variant("ao", sorted(self.points))}
        self.bus.emit_signal(None, self.device, "org.freedesktop.DBus.Properties", "PropertiesChanged",
                             GLib.Variant("(sa{sv}as)", (interface, value, [])))

    def add(self, point, announce=True):
        path = (self.device + "/BSSs/" if self.kind == "wpa" else "/org/freedesktop/NetworkManager/AccessPoint/") + str(self.next)
        self.next += 1
        self.points[path] = point
        self.ids[path] = self.register(path, 2)
        if announce:
            if self.kind == "wpa":
                self.bus.emit_signal(None, self.device, WPA + ".Interface", "BSSAdded",
                                     GLib.Variant("(oa{sv})", (path, {})))
            else:
                self.bus.emit_signal(None, self.device, NM + ".Device.Wireless", "AccessPointAdded",
                                     GLib.Variant("(o)", (path,)))
            self.changed()

    def remove(self, bssid):
        for path, point in list(self.points.items()):
            if point["bssid"] == bssid.lower():
                del self.points[path]
                self.bus.unregister_object(self.ids.pop(path))
                if self.kind == "wpa":
                    self.bus.emit_signal(None, self.device, WPA + ".Interface", "BSSRemoved",
                                         GLib.Variant("(o)", (path,)))
                else:
                    self.bus.emit_signal(None, self.device, NM + ".Device.Wireless", "AccessPointRemoved",
                                         GLib.Variant("(o)", (path,)))
                self.changed()
                return True
        return False


def main(kind, points):
    stand_in = StandIn(kind, [parse(point) for point in points])
    loop = GLib.MainLoop()

    def acquired(_connection, _name):
        out({"ready": True})

    Gio.bus_own_name_on_connection(stand_in.bus, WPA if kind == "wpa" else NM, Gio.BusNameOwnerFlags.NONE,
                                   acquired, None)

    def line(channel, _condition):
        text = channel.readline()
        if not text:
            loop.quit()
            return False
        words = text.split()
        if len(words) == 2 and words[0] == "add":
            point = parse(words[1])
            stand_in.add(point)
            out({"added": point["bssid"]})
        elif len(words) == 2 and words[0] == "remove":
            out({"removed": words[1].lower()} if stand_in.remove(words[1]) else {"unknown": words[1]})
        elif words == ["reads"]:
            out({"reads": stand_in.reads})
        elif words == ["scans"]:
            out({"scans": stand_in.scans, "type": stand_in.scan_type})
        elif len(words) == 2 and words[0] == "age":
            stand_in.scanned = time.clock_gettime(time.CLOCK_BOOTTIME) - int(words[1])
            out({"age": int(words[1])})
        elif len(words) == 2 and words[0] == "state":
            stand_in.set_state(words[1])
            out({"state": words[1]})
        return True

    GLib.io_add_watch(GLib.IOChannel.unix_new(0), GLib.IO_IN | GLib.IO_HUP, line)
    loop.run()


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
