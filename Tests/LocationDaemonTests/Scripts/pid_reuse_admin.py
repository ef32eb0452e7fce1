"""SEMANTICS I3 against pid reuse: a process of uid 65534 connects, hands the connection over and exits;
its pid is then taken (through /proc/sys/kernel/ns_last_pid, so run as root) by a process of the admin group
(supplementary group 0). Calls io.locd.Admin.Reload, which only an administrator may call, on the old connection and prints the reply as one JSON
line, then "reused PID" once the pid was really taken.

Usage: pid_reuse_admin.py SOCKET_PATH
"""
import os
import socket
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
from varlink_reply import first_reply  # noqa: E402

path = sys.argv[1]


def connect_as_nobody():
    """A connection made by a process of uid 65534 that has exited; returns (connection, its pid)."""
    ours, theirs = socket.socketpair()
    connector = os.fork()
    if connector == 0:
        os.setgroups([])
        os.setgid(65534)
        os.setuid(65534)
        connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        connection.connect(path)
        socket.send_fds(theirs, [b"x"], [connection.fileno()])
        os._exit(0)
    _, descriptors, _, _ = socket.recv_fds(ours, 1, 1)
    os.waitpid(connector, 0)
    ours.close()
    theirs.close()
    return socket.socket(fileno=descriptors[0]), connector


def take_pid(pid):
    """A process in group 0 holding `pid`, and the pipe end that lets it go; None if another process took it."""
    for attempt in range(200):
        with open("/proc/sys/kernel/ns_last_pid", "w") as last:
            last.write(str(pid - 1))
        ready_read, ready_write = os.pipe()
        hold_read, hold_write = os.pipe()
        holder = os.fork()
        if holder == 0:
            os.close(ready_read)
            os.close(hold_write)
            os.setgroups([0])
            os.setgid(65534)
            os.setuid(65534)
            os.write(ready_write, b"r")
            os.read(hold_read, 1)
            os._exit(0)
        os.close(ready_write)
        os.close(hold_read)
        os.read(ready_read, 1)
        os.close(ready_read)
        if holder == pid:
            return holder, hold_write
        os.close(hold_write)
        os.waitpid(holder, 0)
        # Other processes fork too (tests run side by side): once one of them holds the pid, start over.
        if os.path.exists("/proc/%d" % pid):
            return None
    return None


# Take the connector's pid with a process in group 0, and keep it until the call is answered.
for round in range(50):
    connection, connector = connect_as_nobody()
    taken = take_pid(connector)
    if taken:
        holder, hold_write = taken
        break
    connection.close()
else:
    sys.exit("the pid was never reused")

connection.sendall(b'{"method":"io.locd.Admin.Reload"}\0')
print(first_reply(connection))
print("reused %d" % holder, flush=True)
os.close(hold_write)
os.waitpid(holder, 0)
