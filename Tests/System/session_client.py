"""A stand-in app for the boot test: keeps one session and takes it back whenever locd restarts (R3).

Usage:
  session_client.py call SOCKET CALL_JSON      one Varlink call; prints the reply's JSON, exits 1 on an error
  session_client.py hold SOCKET APP_ID LOG     Hello (foreground), CreateSession(whenInUse), then watch the
                                               session's diagnostics; after every disconnect reconnect, Hello
                                               and ResumeSession. Appends "created ID", "resumed ID STATE"
                                               or "failed TEXT" lines to LOG. Runs until killed.
  session_client.py location SOCKET APP_ID SECONDS
                                               Hello (foreground), LiveUpdates: prints the first location
                                               as JSON; exits 1 when none came within SECONDS.
Standard library only.
"""
import json
import socket
import sys
import time


class Connection:
    def __init__(self, path):
        self.socket = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.socket.connect(path)
        self.buffer = b""

    def send(self, method, parameters=None, more=False):
        message = {"method": method, "parameters": parameters or {}}
        if more:
            message["more"] = True
        self.socket.sendall(json.dumps(message).encode() + b"\0")

    def receive(self):
        while b"\0" not in self.buffer:
            chunk = self.socket.recv(65536)
            if not chunk:
                raise ConnectionError("closed by locd")
            self.buffer += chunk
        frame, self.buffer = self.buffer.split(b"\0", 1)
        reply = json.loads(frame)
        if "error" in reply:
            raise RuntimeError(f"{reply['error']}: {reply.get('parameters', {})}")
        return reply.get("parameters", {})

    def call(self, method, parameters=None):
        self.send(method, parameters)
        return self.receive()


def log(path, line):
    with open(path, "a") as file:
        file.write(line + "\n")


def connect_within(path, seconds):
    """Connects, retrying while the socket is missing (systemd keeps it during a restart, so this is rare)."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            return Connection(path)
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.05)


def hold(path, app, log_path):
    control = connect_within(path, 10)
    control.call("io.locd.App.Hello", {"appId": app, "state": "foreground"})
    session = control.call("io.locd.App.CreateSession", {"authorization": "whenInUse"})["session"]
    session_id = session["id"]
    log(log_path, f"created {session_id} {session['state']}")
    while True:
        try:
            stream = connect_within(path, 10)
            stream.call("io.locd.App.Hello", {"appId": app, "state": "foreground"})
            stream.send("io.locd.App.SessionDiagnostics", {"id": session_id}, more=True)
            while True:
                stream.receive()
        except (ConnectionError, OSError):
            pass
        # locd went away: both connections are gone. Take the session back on a fresh control connection.
        try:
            control = connect_within(path, 10)
            control.call("io.locd.App.Hello", {"appId": app, "state": "foreground"})
            resumed = control.call("io.locd.App.ResumeSession", {"id": session_id})["session"]
            log(log_path, f"resumed {resumed['id']} {resumed['state']}")
        except Exception as error:  # noqa: BLE001 - reported to the test, which fails on it
            log(log_path, f"failed {error}")
            return


def first_location(path, app, seconds):
    stream = connect_within(path, 10)
    stream.socket.settimeout(seconds)
    stream.call("io.locd.App.Hello", {"appId": app, "state": "foreground"})
    stream.send("io.locd.App.LiveUpdates", {"configuration": "default"}, more=True)
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        update = stream.receive().get("update", {})
        if update.get("location"):
            return update["location"]
    return None


def main():
    if sys.argv[1] == "call":
        connection = Connection(sys.argv[2])
        request = json.loads(sys.argv[3])
        try:
            print(json.dumps(connection.call(request["method"], request.get("parameters"))))
        except RuntimeError as error:
            print(error, file=sys.stderr)
            sys.exit(1)
    elif sys.argv[1] == "location":
        try:
            location = first_location(sys.argv[2], sys.argv[3], float(sys.argv[4]))
        except (OSError, RuntimeError) as error:
            sys.exit(f"no location: {error}")
        if location is None:
            sys.exit("no location within the time given")
        print(json.dumps(location))
    elif sys.argv[1] == "hold":
        hold(sys.argv[2], sys.argv[3], sys.argv[4])
    else:
        sys.exit(__doc__)


main()
