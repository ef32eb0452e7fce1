#!/usr/bin/python3
"""An NMEA source for the real GeoClue 2.6 in GeoClueTests: a Unix socket at argv[1] that sends every reader a GGA
sentence for Berlin (52.52 N, 13.405 E) once a second. The GGA carries no altitude and no RMC follows, so GeoClue
knows neither altitude nor speed nor heading and its Location shows the same sentinels as locd-geoclue's.
Prints "listening" once the socket accepts readers."""
import os
import socket
import sys
import threading
import time

LATITUDE, LONGITUDE = 52.52, 13.405


def sentence(body):
    checksum = 0
    for character in body:
        checksum ^= ord(character)
    return "$%s*%02X\r\n" % (body, checksum)


def degrees_minutes(value, width):
    whole = int(abs(value))
    return "%0*d%07.4f" % (width, whole, (abs(value) - whole) * 60)


def serve(connection):
    try:
        while True:
            now = time.strftime("%H%M%S", time.gmtime()) + ".00"
            gga = "GPGGA,%s,%s,N,%s,E,1,08,0.9,,M,,M,," % (
                now, degrees_minutes(LATITUDE, 2), degrees_minutes(LONGITUDE, 3))
            connection.sendall(sentence(gga).encode())
            time.sleep(1)  # the fix rate of a GPS receiver, not a wait for anything
    except OSError:
        pass


def main(path):
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass
    listener = socket.socket(socket.AF_UNIX)
    listener.bind(path)
    listener.listen(8)
    print("listening", flush=True)
    while True:
        connection, _ = listener.accept()
        threading.Thread(target=serve, args=(connection,), daemon=True).start()


if __name__ == "__main__":
    main(sys.argv[1])
