"""What the test scripts read back from locd: the first reply frame on a Varlink connection.

Imported by the scripts beside it (Python puts a script's own folder first on its path).
"""
import sys


def first_reply(connection):
    """Reads up to the first NUL and returns the frame before it as text; exits if the connection closes first."""
    buffer = b""
    while b"\0" not in buffer:
        chunk = connection.recv(65536)
        if not chunk:
            sys.exit("connection closed")
        buffer += chunk
    return buffer.split(b"\0", 1)[0].decode()
