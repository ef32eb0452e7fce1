"""Sends one call COUNT times without waiting, then reads every reply; prints how many replies had each
error name (or "ok") as one JSON object. A flood of refused calls (SEMANTICS I6).

Usage: flood_client.py SOCKET_PATH COUNT CALL_JSON
"""
import json
import selectors
import socket
import sys

path, count, call = sys.argv[1], int(sys.argv[2]), sys.argv[3]
connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
connection.connect(path)
frame = call.encode() + b"\0"
sent = 0
received = 0
errors = {}
buffer = b""
connection.setblocking(False)
selector = selectors.DefaultSelector()
selector.register(connection, selectors.EVENT_READ | selectors.EVENT_WRITE)
pending = frame * count
while received < count:
    for key, events in selector.select(timeout=30):
        if events & selectors.EVENT_WRITE and pending:
            try:
                written = connection.send(pending[:65536])
                pending = pending[written:]
            except BlockingIOError:
                pass
            if not pending:
                selector.modify(connection, selectors.EVENT_READ)
        if events & selectors.EVENT_READ:
            chunk = connection.recv(1 << 20)
            if not chunk:
                sys.exit("connection closed after %d replies" % received)
            buffer += chunk
            *frames, buffer = buffer.split(b"\0")
            for text in frames:
                name = json.loads(text).get("error", "ok")
                errors[name] = errors.get(name, 0) + 1
                received += 1
print(json.dumps(errors), flush=True)
