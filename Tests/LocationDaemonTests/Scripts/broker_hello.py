"""A broker of SEMANTICS I8-I11, I13: says io.locd.App.Hello for another process, passing a pidfd of it with the
Hello's bytes (SCM_RIGHTS, in the same sendmsg). Run it as the user of a [[broker]] of locd.toml, with the
interpreter that [[broker]] names (/proc/PID/exe of a script is its interpreter), to be a broker; as another user
or with another interpreter to be an impostor.

Usage: broker_hello.py SOCKET_PATH APP_ID MODE EXECUTABLE [ARGUMENT]
The app process is EXECUTABLE run with the argument 30 (e.g. /usr/bin/sleep 30), started here. MODE:
  speak      process = the app's pid, with its pidfd; ARGUMENT, if given, is the description. Prints the reply
             to Hello, then the reply to GetAuthorization on the same connection (none if locd closed it).
  mismatch   process = the app's pid, with a pidfd of this script's own process.
  bare       process = the app's pid, with no descriptor.
  extra      process = the app's pid, with its pidfd and two more descriptors.
  reused     the app exits, and its pid is taken (through /proc/sys/kernel/ns_last_pid, so run as root) by
             another process running EXECUTABLE; process = that pid, with the pidfd of the app that exited.
             Prints the reply, then "reused PID".
  flood      ARGUMENT connections in turn, each passing descriptors: a pidfd with Hello, five descriptors
             with Hello, one with a GetInfo before Hello, or one with a half-sent Hello before closing. Prints
             one JSON line: the number of replies of each error name ("ok" for none).
  invent     ARGUMENT connections in turn, each saying Hello for a new app id (APP_ID.N, as a process can name
             itself anything a broker derives its id from), creating a whenInUse session, which raises a prompt,
             then Goodbye. Prints one JSON line: the number of CreateSession replies of each error name.
  speak-for  process = ARGUMENT, a pid of a process started elsewhere (another user's), with its pidfd. Prints the
             reply to Hello, then the reply to GetAuthorization (none if locd closed the connection).
  exec-for   as speak-for, but a child forked before Hello keeps the connection while this process, at once after
             writing Hello, execs EXECUTABLE (which sleeps): an impostor that becomes the broker's program. The
             child prints the two replies.
  decide     ARGUMENT connections in turn, each saying Hello for a new app id (APP_ID.N) as invent does, while
             this script is also the person's own agent (an Admin.Prompts stream of every user's, H7, as locd-geoclue holds for a
             GeoClue agent, G11): each app's session raises a prompt, the agent answers allowWhileUsing, then the
             app says Goodbye. Every app so holds a decision. Prints the first refusal of Hello, if any, then one
             JSON line: the number of Hello replies of each error name.
Each reply is printed as one JSON line. With APP_UID set, the app process runs as that uid and gid. With
REPLACE_OWN_EXECUTABLE set, the script first replaces the file of its own interpreter, as an upgrade does.
"""
import json
import os
import socket
import subprocess
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
from varlink_reply import first_reply  # noqa: E402

path, app, mode, executable = sys.argv[1:5]
argument = sys.argv[5] if len(sys.argv) > 5 else None

if os.environ.get("REPLACE_OWN_EXECUTABLE"):
    # A package upgrade under the running broker, as dpkg makes it: the new file renamed over the old, whose inode
    # this process still runs (/proc/self/exe then reads "PATH (deleted)").
    own = os.readlink("/proc/self/exe")
    with open(own, "rb") as old, open(own + ".dpkg-new", "wb") as new:
        new.write(old.read())
    os.chmod(own + ".dpkg-new", 0o755)
    os.rename(own + ".dpkg-new", own)
    assert os.readlink("/proc/self/exe") == own + " (deleted)"


def hello(process, description=None):
    parameters = {"appId": app, "process": process}
    if description is not None:
        parameters["description"] = description
    return json.dumps({"method": "io.locd.App.Hello", "parameters": parameters}).encode() + b"\0"


def say(frame, descriptors):
    connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    connection.connect(path)
    ancillary = [(socket.SOL_SOCKET, socket.SCM_RIGHTS, b"".join(d.to_bytes(4, sys.byteorder) for d in descriptors))]
    sent = connection.sendmsg([frame], ancillary if descriptors else [])
    connection.sendall(frame[sent:])
    return connection


def start_app():
    uid = os.environ.get("APP_UID")
    if uid is None:
        return subprocess.Popen([executable, "30"])
    return subprocess.Popen([executable, "30"], user=int(uid), group=int(uid), extra_groups=[])


def take_pid(pid):
    """A process running EXECUTABLE with `pid`, or None if another process took the pid first."""
    for attempt in range(200):
        with open("/proc/sys/kernel/ns_last_pid", "w") as last:
            last.write(str(pid - 1))
        holder = subprocess.Popen([executable, "30"])
        if holder.pid == pid:
            return holder
        holder.kill()
        holder.wait()
        if os.path.exists("/proc/%d" % pid):
            return None
    return None


def flood(count):
    app_process = start_app()
    pidfd = os.pidfd_open(app_process.pid)
    spare = os.open("/dev/null", os.O_RDONLY)
    replies = {}
    for index in range(count):
        kind = index % 4
        if kind == 0:
            connection = say(hello(app_process.pid), [pidfd])
        elif kind == 1:
            connection = say(hello(app_process.pid), [pidfd, spare, spare, spare, spare])
        elif kind == 2:
            connection = say(b'{"method":"org.varlink.service.GetInfo"}\0', [spare])
            first_reply(connection)
            connection.sendall(hello(app_process.pid))
        else:
            frame = hello(app_process.pid)
            connection = say(frame[: len(frame) // 2], [pidfd, spare])
            connection.close()
            continue
        answer = json.loads(first_reply(connection))
        name = answer.get("error", "ok")
        replies[name] = replies.get(name, 0) + 1
        connection.close()
    app_process.kill()
    print(json.dumps(replies), flush=True)


def invent(count):
    app_process = start_app()
    pidfd = os.pidfd_open(app_process.pid)
    replies = {}
    for index in range(count):
        parameters = {"appId": "%s.%d" % (app, index), "process": app_process.pid}
        frame = json.dumps({"method": "io.locd.App.Hello", "parameters": parameters}).encode() + b"\0"
        connection = say(frame, [pidfd])
        first_reply(connection)
        connection.sendall(b'{"method":"io.locd.App.CreateSession","parameters":{"authorization":"whenInUse"}}\0')
        name = json.loads(first_reply(connection)).get("error", "ok")
        replies[name] = replies.get(name, 0) + 1
        connection.sendall(b'{"method":"io.locd.App.Goodbye"}\0')
        first_reply(connection)
        connection.close()
    app_process.kill()
    print(json.dumps(replies), flush=True)


class Frames:
    """The frames of a connection that streams: a reply and the bytes after it are kept for the next read."""

    def __init__(self, connection):
        self.connection = connection
        self.buffer = b""

    def next(self):
        while b"\0" not in self.buffer:
            chunk = self.connection.recv(65536)
            if not chunk:
                sys.exit("connection closed")
            self.buffer += chunk
        frame, self.buffer = self.buffer.split(b"\0", 1)
        return json.loads(frame.decode())


def call(connection, method, parameters=None):
    message = {"method": method}
    if parameters is not None:
        message["parameters"] = parameters
    connection.sendall(json.dumps(message).encode() + b"\0")
    return json.loads(first_reply(connection))


def decide(count):
    app_process = start_app()
    pidfd = os.pidfd_open(app_process.pid)
    agent = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    agent.connect(path)
    agent.sendall(b'{"method":"io.locd.Admin.Prompts","parameters":{"everyone":true},"more":true}\0')
    prompts = Frames(agent)
    replies = {}
    refusal = None
    for index in range(count):
        app_id = "%s.%d" % (app, index)
        frame = json.dumps({"method": "io.locd.App.Hello", "parameters": {"appId": app_id, "process": app_process.pid}})
        connection = say(frame.encode() + b"\0", [pidfd])
        answer = json.loads(first_reply(connection))
        name = answer.get("error", "ok")
        replies[name] = replies.get(name, 0) + 1
        if name != "ok":
            refusal = refusal or answer
            connection.close()
            continue
        call(connection, "io.locd.App.CreateSession", {"authorization": "whenInUse"})
        while True:
            prompt = prompts.next()["parameters"].get("prompt")
            if prompt and prompt["appId"] == app_id:
                break
        admin = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        admin.connect(path)
        call(admin, "io.locd.Admin.AnswerPrompt", {"id": prompt["id"], "answer": "allowWhileUsing"})
        admin.close()
        call(connection, "io.locd.App.Goodbye")
        connection.close()
    agent.close()
    app_process.kill()
    if refusal:
        print(json.dumps(refusal), flush=True)
    print(json.dumps(replies), flush=True)


if mode == "decide":
    decide(int(argument))
    sys.exit(0)
if mode == "flood":
    flood(int(argument))
    sys.exit(0)
if mode == "invent":
    invent(int(argument))
    sys.exit(0)

def speak_for(pid, become=None):
    pidfd = os.pidfd_open(pid)
    frame = hello(pid)
    connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    connection.connect(path)
    reader = os.fork() if become else 0
    if become and reader == 0:
        # The child only reads: the bytes of Hello are all its parent's, written just before its exec.
        os.close(pidfd)
    elif become:
        connection.sendmsg([frame], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, pidfd.to_bytes(4, sys.byteorder))])
        os.dup2(os.open("/dev/null", os.O_WRONLY), 1)  # the output is the child's alone
        os.execv(become, [become, "-c", "import time; time.sleep(30)"])
    else:
        connection.sendmsg([frame], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, pidfd.to_bytes(4, sys.byteorder))])
    try:
        print(first_reply(connection), flush=True)
        connection.sendall(b'{"method":"io.locd.App.GetAuthorization"}\0')
        print(first_reply(connection), flush=True)
    except (BrokenPipeError, ConnectionResetError):
        sys.exit("connection closed")
    finally:
        if become:
            os.kill(os.getppid(), 9)  # the process that exec'd, sleeping


if mode == "speak-for":
    speak_for(int(argument))
    sys.exit(0)
if mode == "exec-for":
    speak_for(int(argument), become=executable)
    sys.exit(0)

app_process = start_app()
if mode == "speak":
    connection = say(hello(app_process.pid, argument), [os.pidfd_open(app_process.pid)])
    print(first_reply(connection), flush=True)
    try:
        connection.sendall(b'{"method":"io.locd.App.GetAuthorization"}\0')
        print(first_reply(connection), flush=True)
    except (BrokenPipeError, ConnectionResetError):
        sys.exit("connection closed")
    finally:
        # A refused Hello closes the connection: the app goes with the script all the same.
        app_process.kill()
elif mode == "mismatch":
    connection = say(hello(app_process.pid), [os.pidfd_open(os.getpid())])
    print(first_reply(connection), flush=True)
elif mode == "bare":
    connection = say(hello(app_process.pid), [])
    print(first_reply(connection), flush=True)
elif mode == "extra":
    pidfd = os.pidfd_open(app_process.pid)
    connection = say(hello(app_process.pid), [pidfd, os.open("/dev/null", os.O_RDONLY), pidfd])
    print(first_reply(connection), flush=True)
elif mode == "reused":
    for round in range(50):
        pidfd = os.pidfd_open(app_process.pid)
        pid = app_process.pid
        app_process.kill()
        app_process.wait()
        holder = take_pid(pid)
        if holder:
            break
        os.close(pidfd)
        app_process = start_app()
    else:
        sys.exit("the pid was never reused")
    connection = say(hello(pid), [pidfd])
    print(first_reply(connection), flush=True)
    print("reused %d" % holder.pid, flush=True)
    holder.kill()
    sys.exit(0)
app_process.kill()
