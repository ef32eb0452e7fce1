"""One person's processes on locd's socket: several connections, driven by stdin, run as that user.

Needs nothing beyond the standard library, so it runs as any user (under setpriv as an ordinary uid).
Usage: person.py SOCKET_PATH, then commands on stdin, one a line:
  N CALL_JSON   sends the Varlink call on connection N (opened at its first call).
  close N       closes connection N.
Every frame locd sends on connection N is printed as one JSON line {"connection": N, "frame": FRAME}, in the order
each connection received them; a connection locd closed prints {"connection": N, "closed": true}.
"""
import json
import socket
import sys
import threading

path = sys.argv[1]
connections = {}
printing = threading.Lock()


def say(value):
    with printing:
        print(json.dumps(value), flush=True)


def read(number, connection):
    buffer = b""
    while True:
        try:
            chunk = connection.recv(65536)
        except OSError:
            chunk = b""
        if not chunk:
            say({"connection": number, "closed": True})
            return
        buffer += chunk
        while b"\0" in buffer:
            frame, buffer = buffer.split(b"\0", 1)
            say({"connection": number, "frame": json.loads(frame)})


for line in sys.stdin:
    first, _, rest = line.strip().partition(" ")
    if first == "close":
        connection = connections.pop(int(rest), None)
        if connection is not None:
            connection.shutdown(socket.SHUT_RDWR)
            connection.close()
        continue
    number = int(first)
    if number not in connections:
        connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        connection.connect(path)
        connections[number] = connection
        threading.Thread(target=read, args=(number, connection), daemon=True).start()
    connections[number].sendall(rest.encode() + b"\0")
