#!/usr/bin/python3
"""A shell's job control, for a test: runs a program as a job on a terminal of its own and moves it between the
terminal's foreground and background on command, as bash does for `&`, Ctrl-Z, `bg` and `fg`.

Usage: job_control.py PROGRAM [ARGUMENT ...]

The program starts in the background, as `PROGRAM &` starts it; {"job": PID} says so. Commands, one a line on
standard input, each answered {"done": COMMAND} once done:
  fg    give the job the terminal and continue it (`fg`)
  stop  stop the job and take the terminal back (Ctrl-Z)
  bg    continue the stopped job in the background (`bg`)
At the end of input the job gets SIGINT, and {"exit": CODE} its exit. The job's own output follows on standard
output, through the terminal.
"""
import fcntl
import json
import os
import signal
import sys
import termios
import threading


def say(message):
    print(json.dumps(message), flush=True)


def shell(terminal, program):
    """The terminal's session leader, as a shell is; never returns."""
    os.setsid()
    fcntl.ioctl(terminal, termios.TIOCSCTTY, 0)
    # A shell takes the terminal back while it is not the foreground: tcsetpgrp would stop it otherwise.
    signal.signal(signal.SIGTTOU, signal.SIG_IGN)
    job = os.fork()
    if job == 0:
        os.setpgid(0, 0)
        for descriptor in (0, 1, 2):
            os.dup2(terminal, descriptor)
        # The job starts with the signals a shell gives it, whatever this script inherited.
        for number in (signal.SIGTTOU, signal.SIGTTIN, signal.SIGTSTP, signal.SIGINT, signal.SIGPIPE):
            signal.signal(number, signal.SIG_DFL)
        os.execv(program[0], program)
    os.setpgid(job, job)
    say({"job": job})
    for line in sys.stdin:
        command = line.strip()
        if command == "fg":
            os.tcsetpgrp(terminal, job)
            os.killpg(job, signal.SIGCONT)
        elif command == "stop":
            os.killpg(job, signal.SIGTSTP)
            os.waitpid(job, os.WUNTRACED)
            os.tcsetpgrp(terminal, os.getpgrp())
        elif command == "bg":
            os.killpg(job, signal.SIGCONT)
        else:
            say({"error": f"unknown command {command!r}: fg, stop or bg"})
            continue
        say({"done": command})
    os.killpg(job, signal.SIGINT)
    os.killpg(job, signal.SIGCONT)
    _, status = os.waitpid(job, 0)
    say({"exit": os.waitstatus_to_exitcode(status)})
    os._exit(0)


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    controller, terminal = os.openpty()
    # Lines end in "\n" alone, as this script's own do: a reader that splits on "\n" sees "\r\n" as one character.
    modes = termios.tcgetattr(terminal)
    modes[1] &= ~termios.ONLCR
    termios.tcsetattr(terminal, termios.TCSANOW, modes)
    leader = os.fork()
    if leader == 0:
        os.close(controller)
        shell(terminal, sys.argv[1:])
    os.close(terminal)
    # The job's output, through the terminal, until every end of it is closed.
    def copy():
        while True:
            try:
                data = os.read(controller, 4096)
            except OSError:
                return
            if not data:
                return
            sys.stdout.buffer.write(data)
            sys.stdout.buffer.flush()
    threading.Thread(target=copy, daemon=True).start()
    _, status = os.waitpid(leader, 0)
    sys.exit(os.waitstatus_to_exitcode(status))


if __name__ == "__main__":
    main()
