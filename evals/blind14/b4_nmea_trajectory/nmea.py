"""Minimal NMEA 0183 reader/writer for RMC and GGA sentences (GSA/GSV are skipped)."""
import collections
import datetime

Fix = collections.namedtuple("Fix", "t lat lon speed_kn course alt hdop sats")
_EPOCH = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)


def checksum(body):
    value = 0
    for ch in body:
        value ^= ord(ch)
    return value


def sentence(fields):
    body = ",".join(fields)
    return f"${body}*{checksum(body):02X}"


def valid(line):
    """True for a well-formed sentence whose XOR checksum matches."""
    if not line.startswith("$"):
        return False
    star = line.rfind("*")
    if star < 0 or len(line) < star + 3:
        return False
    try:
        expected = int(line[star + 1:star + 3], 16)
    except ValueError:
        return False
    return checksum(line[1:star]) == expected


def to_ddmm(value, is_lat):
    hemi = ("N" if value >= 0 else "S") if is_lat else ("E" if value >= 0 else "W")
    value = abs(value)
    deg = int(value)
    minutes = (value - deg) * 60.0
    width = 2 if is_lat else 3
    return f"{deg:0{width}d}{minutes:07.4f}", hemi


def from_ddmm(text, hemi):
    """'4807.0380','N' -> 48.1173 (degrees); ddmm.mmmm, the degrees are all digits before the last two of the integer part."""
    if not text:
        return None
    dot = text.find(".")
    split = (dot if dot >= 0 else len(text)) - 2
    degrees = int(text[:split]) + float(text[split:]) / 60.0
    return -degrees if hemi in ("S", "W") else degrees


def parse_time(date_text, time_text):
    stamp = datetime.datetime.strptime(date_text + time_text, "%d%m%y%H%M%S.%f").replace(tzinfo=datetime.timezone.utc)
    return (stamp - _EPOCH).total_seconds()


class TrackReader:
    """Streams fixes out of a raw log: RMC gives date, position, speed and course; the GGA with the same
    UTC time adds altitude, HDOP and satellites. Void RMCs (status V) and bad checksums are dropped."""

    def __init__(self, log):
        self.log = log

    def fixes(self, limit=None):
        out = []
        pending = None  # (time string, partial fix) of the last RMC
        date = None
        for line in self.log.splitlines():
            if not valid(line):
                continue
            fields = line[1:line.rfind("*")].split(",")
            kind = fields[0][2:]
            if kind == "RMC":
                if fields[2] != "A":
                    pending = None
                    continue
                date = fields[9]
                pending = (fields[1], {
                    "t": parse_time(date, fields[1]),
                    "lat": from_ddmm(fields[3], fields[4]),
                    "lon": from_ddmm(fields[5], fields[6]),
                    "speed_kn": float(fields[7] or 0.0),
                    "course": float(fields[8] or 0.0),
                })
            elif kind == "GGA" and pending is not None and fields[1] == pending[0]:
                if fields[6] == "0":
                    pending = None
                    continue
                rec = pending[1]
                out.append(Fix(rec["t"], rec["lat"], rec["lon"], rec["speed_kn"], rec["course"],
                               float(fields[9]), float(fields[8]), int(fields[7])))
                pending = None
                if limit is not None and len(out) >= limit:
                    break
        return out
