"""A Hello written by two processes sharing one connection: the first half by the process that connected,
the second half by its child (SEMANTICS I4). Prints the reply to Hello as one JSON line.

Usage: split_hello.py SOCKET_PATH APP_ID
"""
import json
import os
import socket
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
from varlink_reply import first_reply  # noqa: E402

path, app = sys.argv[1:3]
frame = json.dumps({"method": "io.locd.App.Hello", "parameters": {"appId": app}}).encode() + b"\0"
half = len(frame) // 2
connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
connection.connect(path)
connection.sendall(frame[:half])
child = os.fork()
if child == 0:
    connection.sendall(frame[half:])
    os._exit(0)
os.waitpid(child, 0)
print(first_reply(connection), flush=True)
