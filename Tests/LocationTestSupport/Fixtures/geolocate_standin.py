#!/usr/bin/python3
"""A stand-in ichnaea-compatible geolocate endpoint on 127.0.0.1, for tests of locd-network: it checks each POST
(a JSON object with considerIp and wifiAccessPoints of macAddress and signalStrength), records it, and answers
as it is told. Listens on a free port and prints {"port": N} once it accepts requests; then one JSON line per
request: {"request": BODY, "path": PATH, "userAgent": UA} (or {"badRequest": WHY}). With `--tls CERT KEY` it
speaks HTTPS with that certificate (a self-signed one, which a client that checks certificates refuses); the TLS
handshake is made after the connection is counted, so a client that refuses the certificate is still counted.

Lines on its standard input set how it answers, each answered with {"mode": MODE}:
  position LAT LNG ACCURACY   answer that position (the start: 52.52 13.405 5000)
  off                         refuse connections (the listening socket is closed)
  on                          listen again, on the same port
  notjson | missing | latitude | huge | loop | downgrade | drip | status
      not JSON; no "location"; latitude 123; a 10 MB body; a redirect to itself; a redirect to http:// on a
      host that is not taken as loopback; the answer one byte a second; HTTP 503
  ratelimit RETRY-AFTER       HTTP 429 with that Retry-After (seconds, or an HTTP date with _ for spaces)
  daily                       HTTP 403 with ichnaea's dailyLimitExceeded body
  keyinvalid                  HTTP 400 with ichnaea's keyInvalid body
  slow SECONDS                the position, after that long
  connections                 prints how many TCP connections it accepted so far ({"connections": N})
The end of its input ends it.
"""
import http.server
import json
import socket
import ssl
import sys
import threading
import time

state = {"mode": "position", "position": (52.52, 13.405, 5000.0), "argument": None, "connections": 0}
lock = threading.Lock()


def out(value):
    with lock:
        print(json.dumps(value), flush=True)


def check(body):
    """Why the body is not what locd-network must send, or None."""
    try:
        request = json.loads(body)
    except ValueError:
        return "not JSON"
    if not isinstance(request, dict) or set(request) != {"considerIp", "wifiAccessPoints"}:
        return "expected exactly considerIp and wifiAccessPoints"
    if not isinstance(request["considerIp"], bool) or not isinstance(request["wifiAccessPoints"], list):
        return "wrong types"
    for point in request["wifiAccessPoints"]:
        if set(point) != {"macAddress", "signalStrength"} or not isinstance(point["signalStrength"], int):
            return "bad access point %r" % (point,)
    return None


class Handler(http.server.BaseHTTPRequestHandler):
    # HTTP/1.0: every connection closes after its answer, so "off" leaves no kept-alive connection answering.

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        why = check(body)
        agent = self.headers.get("User-Agent")
        out({"badRequest": why} if why else {"request": json.loads(body), "path": self.path, "userAgent": agent})
        mode = state["mode"]
        if mode == "ratelimit":
            body = b'{"error": {"code": 429, "message": "Too Many Requests"}}'
            self.send_response(429)
            self.send_header("Retry-After", state["argument"].replace("_", " "))
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            return
        if mode == "daily":
            # The body of ichnaea's DailyLimitExceeded (ichnaea/api/exceptions.py).
            return self.answer(json.dumps({"error": {
                "errors": [{"domain": "usageLimits", "reason": "dailyLimitExceeded",
                            "message": "You have exceeded your daily limit."}],
                "code": 403, "message": "You have exceeded your daily limit."}}).encode(), 403)
        if mode == "keyinvalid":
            # The body of ichnaea's InvalidAPIKey (ichnaea/api/exceptions.py).
            return self.answer(json.dumps({"error": {
                "errors": [{"domain": "usageLimits", "reason": "keyInvalid",
                            "message": "Missing or invalid API key."}],
                "code": 400, "message": "Missing or invalid API key."}}).encode(), 400)
        if mode == "slow":
            time.sleep(float(state["argument"]))
        if mode == "loop":
            self.send_response(307)
            self.send_header("Location", self.path)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        if mode == "downgrade":
            # To a host the client must refuse (http:// to an address it does not take as loopback); were it to
            # follow, the connection would still reach this machine only.
            self.send_response(307)
            self.send_header("Location", "http://[::ffff:127.0.0.1]:%d%s" % (self.server.server_address[1], self.path))
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        if mode == "status":
            return self.answer(b'{"error": {"code": 503, "message": "Service Unavailable"}}', 503)
        if mode == "notjson":
            return self.answer(b"<html>not a position</html>")
        if mode == "missing":
            return self.answer(b'{"accuracy": 50.0}')
        if mode == "latitude":
            return self.answer(b'{"location": {"lat": 123.0, "lng": 13.4}, "accuracy": 50.0}')
        if mode == "huge":
            return self.huge()
        if mode == "drip":
            return self.drip()
        lat, lng, accuracy = state["position"]
        self.answer(json.dumps({"location": {"lat": lat, "lng": lng}, "accuracy": accuracy}).encode())

    def answer(self, body, status=200):
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def huge(self):
        size = 10 * 1024 * 1024
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(size))
        self.end_headers()
        chunk = b" " * 65536
        try:
            for _ in range(size // len(chunk)):
                self.wfile.write(chunk)
        except OSError:
            pass

    def drip(self):
        body = json.dumps({"location": {"lat": 1.0, "lng": 2.0}, "accuracy": 3.0}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        try:
            for byte in body:
                self.wfile.write(bytes([byte]))
                self.wfile.flush()
                time.sleep(1)
        except OSError:
            pass

    def log_message(self, format, *args):
        pass


class Server(http.server.ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    context = None

    def get_request(self):
        connection, address = self.socket.accept()
        with lock:
            state["connections"] += 1
        if self.context is not None:
            # The handshake happens in the handler's thread, on its first read.
            connection = self.context.wrap_socket(connection, server_side=True, do_handshake_on_connect=False)
        return connection, address

    def handle_error(self, request, client_address):
        pass


def serve(port):
    server = Server(("127.0.0.1", port), Handler)
    if len(sys.argv) == 4 and sys.argv[1] == "--tls":
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(sys.argv[2], sys.argv[3])
        server.context = context
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def main():
    server = serve(0)
    port = server.server_address[1]
    out({"port": port})
    for line in sys.stdin:
        words = line.split()
        if not words:
            continue
        if words[0] == "off" and server is not None:
            server.shutdown()
            server.server_close()
            server = None
        elif words[0] == "on" and server is None:
            server = serve(port)
        elif words[0] == "position" and len(words) == 4:
            state["position"] = tuple(float(word) for word in words[1:])
            words = ["position"]
        elif words[0] == "connections":
            with lock:
                count = state["connections"]
            out({"connections": count})
            continue
        elif words[0] in ("ratelimit", "slow") and len(words) == 2:
            state["argument"] = words[1]
            words = words[:1]
        if words[0] not in ("off", "on"):
            state["mode"] = words[0]
        out({"mode": words[0]})


if __name__ == "__main__":
    main()
