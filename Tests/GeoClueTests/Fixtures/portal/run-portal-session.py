#!/usr/bin/python3
"""Runs portal-session.sh (argv[1:] are its arguments) inside `dbus-run-session`, with SIGTERM unblocked and its
default action restored first: the test runner's children inherit its ignored or blocked SIGTERM, and without this
dbus-run-session could not stop the session bus it started nor the script its Access backend: they would outlive
the test, holding the descriptor by which the test learns that the process it ran has ended.

The session bus activates only what services/ names, the permission store: not the document portal, which would
mount a FUSE file system in the home folder and outlive the bus."""
import os
import signal
import sys

signal.signal(signal.SIGTERM, signal.SIG_DFL)
signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM})
here = os.path.dirname(os.path.abspath(__file__))
config = os.path.join(sys.argv[1], "session-bus.conf")
with open(config, "w") as file:
    file.write("""<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <listen>unix:tmpdir=/tmp</listen>
  <auth>EXTERNAL</auth>
  <servicedir>%s</servicedir>
  <policy context="default">
    <allow send_destination="*"/><allow receive_sender="*"/><allow own="*"/>
  </policy>
</busconfig>
""" % os.path.join(here, "services"))
os.execv("/usr/bin/dbus-run-session", ["dbus-run-session", "--config-file=" + config, "--",
                                       os.path.join(here, "portal-session.sh")] + sys.argv[1:])
