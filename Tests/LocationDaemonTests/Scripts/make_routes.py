#!/usr/bin/env python3
"""Writes the NMEA 0183 route fixtures of the provider tests (run from the repository root).

fix-loss.nmea: a walk near Tokyo Station with a stretch without a fix (GGA quality 0, RMC status V)
in the middle, then recovery.
circle-walk.nmea: a walk due east along latitude 35.681236 from 600 m west of Tokyo Station
(35.681236, 139.767125) to 600 m east of it, 100 m every 10 s: outside a 300 m circle round the
station, through it, and out again.

Each fix is a GGA and an RMC sentence one second after the last; the date is recent because
gpsd resolves the GPS week from it.
"""
import math

DATE = "221126"  # 22 November 2026
CENTRE = (35.681236, 139.767125)
METRES_PER_DEGREE_LATITUDE = 111_320.0


def checksum(body):
    value = 0
    for char in body:
        value ^= ord(char)
    return "%02X" % value


def sentence(body):
    return "$%s*%s\r\n" % (body, checksum(body))


def angle(value, degree_digits, positive, negative):
    hemisphere = positive if value >= 0 else negative
    value = abs(value)
    degrees = int(value)
    minutes = (value - degrees) * 60
    return "%0*d%07.4f" % (degree_digits, degrees, minutes), hemisphere


def clock(second):
    return "%02d%02d%05.2f" % (12 + second // 3600, second // 60 % 60, second % 60)


def fix(second, latitude, longitude, knots=2.7, track=90.0):
    lat, ns = angle(latitude, 2, "N", "S")
    lon, ew = angle(longitude, 3, "E", "W")
    time = clock(second)
    gga = "GPGGA,%s,%s,%s,%s,%s,1,08,0.9,40.0,M,39.4,M,," % (time, lat, ns, lon, ew)
    rmc = "GPRMC,%s,A,%s,%s,%s,%s,%.1f,%.1f,%s,,,A" % (time, lat, ns, lon, ew, knots, track, DATE)
    return sentence(gga) + sentence(rmc)


def no_fix(second):
    time = clock(second)
    return sentence("GPGGA,%s,,,,,0,00,99.9,,,,,," % time) + sentence("GPRMC,%s,V,,,,,,,%s,,,N" % (time, DATE))


def east(metres):
    return metres / (METRES_PER_DEGREE_LATITUDE * math.cos(math.radians(CENTRE[0])))


def fix_loss():
    lines, second = [], 0
    for step in range(8):
        lines.append(fix(second, CENTRE[0], CENTRE[1] + east(2 * step)))
        second += 1
    for _ in range(8):
        lines.append(no_fix(second))
        second += 1
    for step in range(8, 16):
        lines.append(fix(second, CENTRE[0], CENTRE[1] + east(2 * step)))
        second += 1
    return "".join(lines)


def circle_walk():
    lines = []
    for step, metres in enumerate(range(-600, 601, 100)):
        lines.append(fix(10 * step, CENTRE[0], CENTRE[1] + east(metres), knots=19.4))
    return "".join(lines)


if __name__ == "__main__":
    base = "Tests/LocationDaemonTests/Fixtures/"
    with open(base + "fix-loss.nmea", "w", newline="") as out:
        out.write(fix_loss())
    with open(base + "circle-walk.nmea", "w", newline="") as out:
        out.write(circle_walk())
