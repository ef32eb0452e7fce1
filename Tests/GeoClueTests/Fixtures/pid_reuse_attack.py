"""SEMANTICS I14 attacked as a local user would: a GeoClue client's bus connection outlives the process that opened
it, and the pid the bus recorded for it goes to a process of root.

Run as root as the first process of a new pid namespace (`unshare --pid --fork --mount-proc`), where pids can be
handed out on purpose through /proc/sys/kernel/ns_last_pid instead of by cycling through 32,000 of them:

    pid_reuse_attack.py DIRECTORY LOCD LOCCTL LOCD_GEOCLUE BUS_CONFIG_TEMPLATE

It starts a private system bus, locd (whose app test.rootonly is for uid 0 only, and already allowed) and
locd-geoclue (the one [[broker]], as root here). Then, as nobody, it runs an honest client of test.nobody, which
must be served, and the attacker: a process that connects to the bus, forks and exits, leaving a child with the
connection. Its pid is given to a new process of root, and the child then starts a client of test.rootonly.

Prints one JSON line: {"honest": ..., "attack": ..., "reused": true} where each of honest and attack is "ok" for a
Start that succeeded, else the D-Bus error name and message.
"""
import json
import os
import socket
import subprocess
import sys
import time

directory, locd, locctl, bridge, template = sys.argv[1:6]
NOBODY = 65534
bus_socket = os.path.join(directory, "bus")
locd_socket = os.path.join(directory, "io.locd")
address = "unix:path=" + bus_socket

CLIENT = r'''
import dbus, json, os, sys
bus = dbus.bus.BusConnection(sys.argv[1])
if sys.argv[3] == "fork":
    # The process the bus recorded leaves; its child keeps the connection and waits to be told to go on.
    if os.fork() > 0:
        print(json.dumps({"connected": os.getpid()}), flush=True)
        os._exit(0)
    sys.stdin.readline()
manager = bus.get_object("org.freedesktop.GeoClue2", "/org/freedesktop/GeoClue2/Manager")
path = manager.CreateClient(dbus_interface="org.freedesktop.GeoClue2.Manager")
client = bus.get_object("org.freedesktop.GeoClue2", path)
properties = dbus.Interface(client, "org.freedesktop.DBus.Properties")
properties.Set("org.freedesktop.GeoClue2.Client", "DesktopId", sys.argv[2])
properties.Set("org.freedesktop.GeoClue2.Client", "RequestedAccuracyLevel", dbus.UInt32(8))
try:
    client.Start(dbus_interface="org.freedesktop.GeoClue2.Client", timeout=60)
    print(json.dumps({"start": "ok"}), flush=True)
except dbus.exceptions.DBusException as error:
    print(json.dumps({"start": error.get_dbus_name(), "message": error.get_dbus_message()}), flush=True)
'''


def fail(why, logs=()):
    tails = {name: open(os.path.join(directory, name)).read()[-4000:] for name in logs}
    print(json.dumps({"error": why, "logs": tails}), flush=True)
    sys.exit(1)


def wait_for_line(process, marker, what):
    for line in process.stdout:
        if marker in line:
            return line
    fail(what + " did not start")


def as_nobody(arguments):
    return ["/usr/bin/setpriv", "--reuid=%d" % NOBODY, "--regid=%d" % NOBODY, "--clear-groups"] + arguments


def take_pid(pid):
    """A process of root holding `pid`, or None if another took it first and still has it."""
    for _ in range(200):
        with open("/proc/sys/kernel/ns_last_pid", "w") as last:
            last.write(str(pid - 1))
        holder = subprocess.Popen(["/usr/bin/sleep", "300"])
        if holder.pid == pid:
            return holder
        holder.kill()
        holder.wait()
        if os.path.exists("/proc/%d" % pid):
            return None
    return None


os.chmod(directory, 0o755)
with open(template) as source, open(os.path.join(directory, "bus.conf"), "w") as target:
    target.write(source.read().replace("@SOCKET@", bus_socket))
bus = subprocess.Popen(
    ["/usr/bin/dbus-daemon", "--config-file=" + os.path.join(directory, "bus.conf"), "--nofork", "--print-address=1"],
    stdout=subprocess.PIPE, text=True,
)
wait_for_line(bus, "unix:path=", "dbus-daemon")

os.makedirs(os.path.join(directory, "apps.d"), exist_ok=True)
for app, user in (("test.rootonly", 0), ("test.nobody", NOBODY)):
    with open(os.path.join(directory, "apps.d", app + ".toml"), "w") as manifest:
        manifest.write('id = "%s"\nidentity = "uid"\nusers = ["%d"]\n' % (app, user))
        manifest.write('NSLocationWhenInUseUsageDescription = "Shows where you are"\n')
with open(os.path.join(directory, "locd.toml"), "w") as config:
    config.write('socket = "%s"\nstate-dir = "%s/state"\napps-dirs = ["%s/apps.d"]\nadmin-group = "root"\n'
                 % (locd_socket, directory, directory))
    config.write('unknown-brokered-apps = "deny"\n[provider]\nkind = "static"\nlatitude = 52.52\nlongitude = 13.405\n')
    config.write('[[broker]]\nuser = "0"\nexecutable = "%s"\n' % os.path.realpath(bridge))
environment = dict(os.environ, INVOCATION_ID="", JOURNAL_STREAM="", LOCD_SOCKET=locd_socket)
with open(os.path.join(directory, "locd.log"), "w") as log:
    daemon = subprocess.Popen([locd, "--config", os.path.join(directory, "locd.toml"), "--log-level", "debug"],
                              stdout=log, stderr=log, env=environment)
for _ in range(400):
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    if probe.connect_ex(locd_socket) == 0:
        probe.close()
        break
    probe.close()
    if daemon.poll() is not None:
        fail("locd exited", ["locd.log"])
    time.sleep(0.05)  # polling a socket that appears once; no ordering rests on it
else:
    fail("locd did not listen", ["locd.log"])
for app in ("test.rootonly", "test.nobody"):
    if subprocess.run([locctl, "auth", app, "while-using"], env=environment, capture_output=True).returncode != 0:
        fail("locctl auth " + app, ["locd.log"])
bridge_environment = dict(environment, DBUS_SYSTEM_BUS_ADDRESS=address)
with open(os.path.join(directory, "locd-geoclue.log"), "w") as log:
    bridge_process = subprocess.Popen([bridge, "--socket", locd_socket, "--log-level", "debug"],
                                      stdout=log, stderr=log, env=bridge_environment)
for _ in range(400):
    if "serving org.freedesktop.GeoClue2" in open(os.path.join(directory, "locd-geoclue.log")).read():
        break
    if bridge_process.poll() is not None:
        fail("locd-geoclue exited", ["locd-geoclue.log"])
    time.sleep(0.05)  # polling for a line that appears once; no ordering rests on it
else:
    fail("locd-geoclue did not start", ["locd-geoclue.log"])
with open(os.path.join(directory, "client.py"), "w") as script:
    script.write(CLIENT)
os.chmod(os.path.join(directory, "client.py"), 0o644)
client = ["/usr/bin/python3", os.path.join(directory, "client.py"), address]

honest = subprocess.run(as_nobody(client + ["test.nobody", "direct"]), capture_output=True, text=True, timeout=90)
honest_result = json.loads(honest.stdout.strip().splitlines()[-1]) if honest.stdout.strip() else {"start": honest.stderr}

attacker = subprocess.Popen(as_nobody(client + ["test.rootonly", "fork"]), stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True)
connected = json.loads(attacker.stdout.readline())["connected"]
attacker.wait()  # reaped: its pid is free, while its child holds its bus connection
holder = take_pid(connected)
if holder is None:
    fail("pid %d was never reused" % connected)
attacker.stdin.write("go\n")
attacker.stdin.flush()
line = attacker.stdout.readline()
attack_result = json.loads(line) if line else {"start": "no answer"}
holder.kill()
print(json.dumps({
    "honest": honest_result["start"] if honest_result["start"] == "ok" else honest_result,
    "attack": attack_result["start"] if attack_result["start"] == "ok" else attack_result,
    "reused": holder.pid == connected,
}), flush=True)
bridge_process.kill()
daemon.kill()
bus.kill()
