"""Opens many connections to a Varlink socket and pipelines one call on each without ever reading a reply, as a
hostile local user would to stall the daemon for everyone else. Needs nothing beyond the standard library, so it
runs as any user (e.g. under setpriv as nobody).

Usage: flood_unread.py SOCKET_PATH CONNECTIONS CALL_JSON
Prints "open N" once the N connections are open, "flooding" once each has been sent a first batch of calls,
then "blocked C" once no socket has taken a byte for a second (C: the calls sent in all). Holds the connections,
unread, until stdin ends.
"""
import select
import socket
import sys
import time

path, count, call = sys.argv[1], int(sys.argv[2]), sys.argv[3]
frame = call.encode() + b"\0"
batch = frame * (16384 // len(frame))
connections = []
for _ in range(count):
    connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    connection.connect(path)
    connection.setblocking(False)
    connections.append(connection)
print("open %d" % len(connections), flush=True)

# What each connection still has to send of the batch it started, so that every call goes whole.
pending = {connection.fileno(): batch for connection in connections}
by_descriptor = {connection.fileno(): connection for connection in connections}
sent = 0


def push(descriptor):
    global sent
    try:
        written = by_descriptor[descriptor].send(pending[descriptor])
    except BlockingIOError:
        return
    sent += written
    rest = pending[descriptor][written:]
    pending[descriptor] = rest if rest else batch


for descriptor in list(pending):
    push(descriptor)
print("flooding", flush=True)

# A Unix socket can say it is writable while a send still finds the peer's queue full: the flood ends once no
# byte has gone out for a second, not at the first quiet poll.
poller = select.poll()
for descriptor in pending:
    poller.register(descriptor, select.POLLOUT)
last_progress = time.monotonic()
while time.monotonic() - last_progress < 1:
    before = sent
    for descriptor, _ in poller.poll(100):
        push(descriptor)
    if sent > before:
        last_progress = time.monotonic()
    else:
        time.sleep(0.01)
print("blocked %d" % (sent // len(frame)), flush=True)
sys.stdin.read()
