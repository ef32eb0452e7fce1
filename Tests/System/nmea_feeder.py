#!/usr/bin/python3
"""A GPS receiver's NMEA 0183 stream for the boot test: GGA and RMC once a second for a fixed position (the
Brandenburg Gate), to every client of a Unix socket (GeoClue's nmea-socket) and of a TCP port on 127.0.0.1 (gpsd's
tcp:// source). Usage: nmea_feeder.py UNIX_SOCKET_PATH TCP_PORT"""
import os
import socket
import sys
import threading
import time

LATITUDE, LONGITUDE = 52.516275, 13.377704


def sentence(body):
    checksum = 0
    for character in body:
        checksum ^= ord(character)
    return f"${body}*{checksum:02X}\r\n"


def degrees_minutes(value, width):
    whole = int(abs(value))
    return f"{whole:0{width}d}{(abs(value) - whole) * 60:07.4f}"


def serve(connection):
    try:
        while True:
            now = time.gmtime()
            hms = time.strftime("%H%M%S", now) + ".00"
            dmy = time.strftime("%d%m%y", now)
            position = f"{degrees_minutes(LATITUDE, 2)},N,{degrees_minutes(LONGITUDE, 3)},E"
            gga = sentence(f"GPGGA,{hms},{position},1,08,0.9,34.0,M,0.0,M,,")
            rmc = sentence(f"GPRMC,{hms},A,{position},0.0,0.0,{dmy},,,A")
            connection.sendall((gga + rmc).encode())
            time.sleep(1)
    except OSError:
        pass


def accept(listener):
    while True:
        connection, _ = listener.accept()
        threading.Thread(target=serve, args=(connection,), daemon=True).start()


def main():
    path, port = sys.argv[1], int(sys.argv[2])
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass
    local = socket.socket(socket.AF_UNIX)
    local.bind(path)
    os.chmod(path, 0o666)
    local.listen(8)
    tcp = socket.socket(socket.AF_INET)
    tcp.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    tcp.bind(("127.0.0.1", port))
    tcp.listen(8)
    threading.Thread(target=accept, args=(tcp,), daemon=True).start()
    print("ready", flush=True)
    accept(local)


if __name__ == "__main__":
    main()
