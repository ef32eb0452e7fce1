"""Opens and holds many connections to a Varlink socket, as a hostile local user would, driven by stdin.

Needs nothing beyond the standard library, so it runs as any user (e.g. under setpriv as nobody).
Usage: hold_connections.py SOCKET_PATH [REPLY_TIMEOUT_SECONDS], then commands on stdin, one a line:
  open N    opens N connections, sends GetInfo on each and prints one line per connection: "ok", the
            error name and its limit ("io.locd.App.LimitExceeded max-connections-per-uid"), "closed" (no
            reply before the end of the stream) or "timeout"; then "done".
  close N   closes N of the connections that were answered "ok", oldest first; then "done".
Connections refused or closed are dropped at once; the rest are held until stdin ends.
"""
import json
import socket
import sys

path = sys.argv[1]
timeout = float(sys.argv[2]) if len(sys.argv) > 2 else 3.0
held = []


def open_one():
    connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    connection.settimeout(timeout)
    try:
        connection.connect(path)
        try:
            connection.sendall(json.dumps({"method": "org.varlink.service.GetInfo"}).encode() + b"\0")
        except (BrokenPipeError, ConnectionResetError):
            pass  # refused before the call went out: the refusal is still there to read
        buffer = b""
        while b"\0" not in buffer:
            try:
                chunk = connection.recv(65536)
            except ConnectionResetError:
                chunk = b""
            if not chunk:
                connection.close()
                return "closed"
            buffer += chunk
    except socket.timeout:
        connection.close()
        return "timeout"
    except OSError as error:
        connection.close()
        return "error " + (error.strerror or str(error)).replace(" ", "-")
    reply = json.loads(buffer.split(b"\0", 1)[0])
    if "error" in reply:
        connection.close()
        return reply["error"] + " " + str(reply.get("parameters", {}).get("limit", ""))
    held.append(connection)
    return "ok"


for line in sys.stdin:
    words = line.split()
    if not words:
        continue
    if words[0] == "open":
        for _ in range(int(words[1])):
            print(open_one(), flush=True)
    elif words[0] == "close":
        for connection in held[: int(words[1])]:
            connection.close()
        del held[: int(words[1])]
    print("done", flush=True)
