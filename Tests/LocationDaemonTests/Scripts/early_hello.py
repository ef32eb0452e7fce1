"""SEMANTICS I4 at socket activation: a broker's Hello written before locd runs, on a listening socket made as
systemd makes it, then locd started with that socket (LISTEN_FDS), as systemd starts it on the first connection.

Usage: early_hello.py LOCD CONFIG SOCKET_PATH PASSCRED
PASSCRED "yes" makes the socket with SO_PASSCRED, as PassCredentials=yes does; "no" leaves it to locd.
The broker is this script (run it with the [[broker]]'s interpreter, as its user), speaking for a sleep it starts.
Prints locd's reply to the Hello as one JSON line, then stops locd.
"""
import os
import signal
import socket
import subprocess
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
from varlink_reply import first_reply  # noqa: E402

locd, config, path, passcred = sys.argv[1:5]
listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
if passcred == "yes":
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_PASSCRED, 1)
listener.bind(path)
listener.listen(16)
app = subprocess.Popen(["/usr/bin/sleep", "60"])
pidfd = os.pidfd_open(app.pid)
connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
connection.connect(path)
frame = b'{"method":"io.locd.App.Hello","parameters":{"appId":"com.ex.sleeper","process":%d}}\0' % app.pid
connection.sendmsg([frame], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, pidfd.to_bytes(4, sys.byteorder))])
daemon = os.fork()
if daemon == 0:
    os.dup2(listener.fileno(), 3)
    os.set_inheritable(3, True)
    environment = dict(os.environ, LISTEN_FDS="1", LISTEN_PID=str(os.getpid()), LISTEN_FDNAMES="varlink")
    os.execve(locd, [locd, "--config", config], environment)
try:
    print(first_reply(connection), flush=True)
finally:
    os.kill(daemon, signal.SIGTERM)
    os.waitpid(daemon, 0)
    app.kill()
