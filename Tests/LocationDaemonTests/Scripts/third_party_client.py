"""A third-party client check: the Python `varlink` package (31.0.0) talks to locd.

It parses locd's IDL on every open (so the IDL must be valid for it), then calls GetInfo, Hello,
CreateSession, and reads SessionDiagnostics as a stream. Prints one JSON line with what it saw.
Usage: third_party_client.py SOCKET_PATH
"""
import json
import sys

import varlink

address = "unix:" + sys.argv[1]
seen = {}
with varlink.Client(address=address) as client:
    with client.open("org.varlink.service") as service:
        info = service.GetInfo()
        seen["interfaces"] = info["interfaces"]
    with client.open("io.locd.Admin") as admin:
        seen["admin_status_version"] = admin.Status()["status"]["version"]
    with client.open("io.locd.App", namespaced=True) as app:
        hello = app.Hello("com.ex.maps")
        seen["status"] = hello.authorization.status
        session = app.CreateSession("whenInUse", None).session
        seen["session_state"] = session.state
        seen["session_flags"] = session.diagnostic.flags
        with client.open("io.locd.App", namespaced=True) as watcher:
            watcher.Hello("com.ex.maps")
            for reply in watcher.SessionDiagnostics(session.id, _more=True):
                seen["stream_flags"] = reply.diagnostic.flags
                seen["stream_ended"] = reply.ended
                break
print(json.dumps(seen))
