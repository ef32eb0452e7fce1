#!/usr/bin/python3
"""A stand-in HTTP proxy on 127.0.0.1, for tests of locd-network's https_proxy: it answers CONNECT only, records
each ({"connect": "HOST:PORT", "authorization": HEADER}), and tunnels it to 127.0.0.1:TARGET whatever host was
named, so that a name that resolves nowhere still reaches the test's own service and nothing leaves the machine.

  connect_proxy.py TARGET-PORT

Prints {"port": N} once it accepts connections. The end of its input ends it.
"""
import json
import socket
import sys
import threading

lock = threading.Lock()


def out(value):
    with lock:
        print(json.dumps(value), flush=True)


def pipe(source, destination):
    try:
        while True:
            data = source.recv(65536)
            if not data:
                break
            destination.sendall(data)
    except OSError:
        pass
    finally:
        for end in (source, destination):
            try:
                end.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


def handle(client, target):
    head = b""
    while b"\r\n\r\n" not in head and len(head) < 65536:
        data = client.recv(4096)
        if not data:
            client.close()
            return
        head += data
    lines = head.split(b"\r\n\r\n", 1)[0].decode("latin-1").split("\r\n")
    words = lines[0].split()
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    if len(words) != 3 or words[0] != "CONNECT":
        out({"refused": lines[0]})
        client.sendall(b"HTTP/1.1 405 Method Not Allowed\r\nContent-Length: 0\r\n\r\n")
        client.close()
        return
    out({"connect": words[1], "authorization": headers.get("proxy-authorization")})
    upstream = socket.create_connection(("127.0.0.1", target))
    client.sendall(b"HTTP/1.1 200 Connection established\r\n\r\n")
    threading.Thread(target=pipe, args=(upstream, client), daemon=True).start()
    pipe(client, upstream)


def main():
    target = int(sys.argv[1])
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)
    out({"port": listener.getsockname()[1]})

    def accept():
        while True:
            client, _ = listener.accept()
            threading.Thread(target=handle, args=(client, target), daemon=True).start()

    threading.Thread(target=accept, daemon=True).start()
    for _ in sys.stdin:
        pass


if __name__ == "__main__":
    main()
