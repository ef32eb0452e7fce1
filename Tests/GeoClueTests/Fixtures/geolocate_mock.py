#!/usr/bin/python3
"""A geolocation web service for the real GeoClue 2.6 in GeoClueTests, as Mozilla Location Service answered: every
POST gets Berlin (52.52 N, 13.405 E) with accuracy 5000 m. GeoClue asks it for city-level clients (its NMEA source
serves exact ones only). Listens on a free port of 127.0.0.1 and prints "port N" once it accepts requests."""
import http.server
import json

BODY = json.dumps({"location": {"lat": 52.52, "lng": 13.405}, "accuracy": 5000.0}).encode()


class Handler(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(BODY)))
        self.end_headers()
        self.wfile.write(BODY)

    def log_message(self, format, *args):
        print("request", format % args, flush=True)


server = http.server.HTTPServer(("127.0.0.1", 0), Handler)
print("port", server.server_address[1], flush=True)
server.serve_forever()
