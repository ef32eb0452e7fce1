#!/usr/bin/env python3
"""Runs a command on a pseudo-terminal and talks to it like a person at a keyboard.

Usage: pty_agent.py STEPS_JSON COMMAND [ARG...]
STEPS_JSON is a list of ["expect", text] (wait, at most 15 s, until the terminal has shown text
since the previous expect) and ["send", text] (type text). When the steps are done the command gets
SIGINT. Prints the whole transcript on stdout; exits 0 when every step passed and the command
exited 0, 2 when an expected text never came, else the command's exit status.
"""
import json
import os
import pty
import select
import signal
import sys
import time

steps = json.loads(sys.argv[1])
command = sys.argv[2:]

pid, fd = pty.fork()
if pid == 0:
    os.execv(command[0], command)

transcript = b""
seen = 0


def expect(text, timeout=15.0):
    global transcript, seen
    wanted = text.encode()
    deadline = time.monotonic() + timeout
    while True:
        found = transcript.find(wanted, seen)
        if found >= 0:
            seen = found + len(wanted)
            return True
        left = deadline - time.monotonic()
        if left <= 0:
            return False
        ready, _, _ = select.select([fd], [], [], left)
        if not ready:
            continue
        try:
            chunk = os.read(fd, 4096)
        except OSError:
            return False
        if not chunk:
            return False
        transcript += chunk


for kind, text in steps:
    if kind == "expect":
        if not expect(text):
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            sys.stdout.write(transcript.decode(errors="replace"))
            sys.stdout.write("\n[pty_agent: never saw %r]\n" % text)
            sys.exit(2)
    else:
        os.write(fd, text.encode())

os.kill(pid, signal.SIGINT)
_, status = os.waitpid(pid, 0)
sys.stdout.write(transcript.decode(errors="replace"))
code = os.waitstatus_to_exitcode(status)
sys.exit(0 if code == 0 else (code if code > 0 else 128 - code))
