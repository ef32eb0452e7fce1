"""Makes Varlink calls over a raw Unix socket and prints each reply as a JSON line.

Needs nothing beyond the standard library, so it runs as any user (e.g. under setpriv as nobody).
Usage: raw_client.py SOCKET_PATH CALL_JSON...
"""
import json
import socket
import sys

connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
connection.connect(sys.argv[1])
buffer = b""
for text in sys.argv[2:]:
    connection.sendall(text.encode() + b"\0")
    while b"\0" not in buffer:
        chunk = connection.recv(65536)
        if not chunk:
            sys.exit("connection closed")
        buffer += chunk
    frame, buffer = buffer.split(b"\0", 1)
    print(frame.decode())
