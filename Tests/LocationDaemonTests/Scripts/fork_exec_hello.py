"""The attack of SEMANTICS I4: connect, fork, and let the connecting process exec the app's executable while
the child, which kept the socket, says Hello. Prints the reply to Hello as one JSON line.

Usage: fork_exec_hello.py SOCKET_PATH EXECUTABLE APP_ID
The connecting process becomes EXECUTABLE (run with the argument 30, e.g. /usr/bin/sleep 30) and is killed
once the reply is in.
"""
import json
import os
import signal
import socket
import sys
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
from varlink_reply import first_reply  # noqa: E402

path, executable, app = sys.argv[1:4]
connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
connection.connect(path)
connector = os.getpid()
child = os.fork()
if child != 0:
    # The process that connected: it now runs the app's executable, without the socket (CLOEXEC).
    os.execv(executable, [executable, "30"])

# The child: wait until the connector's /proc/PID/exe is the app's executable, then speak.
deadline = time.monotonic() + 10
while os.readlink(f"/proc/{connector}/exe") != executable:
    if time.monotonic() > deadline:
        sys.exit("the connecting process never ran " + executable)
    time.sleep(0.01)
hello = {"method": "io.locd.App.Hello", "parameters": {"appId": app}}
connection.sendall(json.dumps(hello).encode() + b"\0")
print(first_reply(connection), flush=True)
os.kill(connector, signal.SIGKILL)
