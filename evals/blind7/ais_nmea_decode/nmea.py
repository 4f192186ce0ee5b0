"""AIVDM (AIS) sentences: 6-bit armouring, type 1 position reports, NMEA checksums."""


def nmea_checksum(body):
    cs = 0
    for ch in body:
        cs ^= ord(ch)
    return cs


def armor(value):
    return chr(value + 48 if value < 40 else value + 56)


def dearmor(ch):
    v = ord(ch) - 48
    if v > 40:
        v -= 8
    return v


def _uint(bits, start, width):
    return int(bits[start:start + width], 2)


def _sint(bits, start, width):
    v = int(bits[start:start + width], 2)
    if v >= 1 << (width - 1):
        v -= 1 << width
    return v


def _field(value, width):
    return format(value & ((1 << width) - 1), f"0{width}b")


def encode_position_report(mmsi, status, rot, sog, lon, lat, cog, heading, second, channel="A"):
    bits = "".join([
        _field(1, 6), _field(0, 2), _field(mmsi, 30), _field(status, 4), _field(rot, 8),
        _field(sog, 10), _field(1, 1), _field(lon, 28), _field(lat, 27), _field(cog, 12),
        _field(heading, 9), _field(second, 6), _field(0, 2), _field(0, 3), _field(0, 1), _field(0, 19),
    ])
    payload = "".join(armor(int(bits[i:i + 6], 2)) for i in range(0, len(bits), 6))
    body = f"AIVDM,1,1,,{channel},{payload},0"
    return f"!{body}*{nmea_checksum(body):02X}"


def decode_sentence(line):
    """Decode one single-fragment type 1-3 AIVDM sentence into a dict of fields."""
    body, _, checksum = line[1:].partition("*")
    if int(checksum, 16) != nmea_checksum(body):
        raise ValueError(f"bad checksum: {line}")
    fields = body.split(",")
    payload, fill = fields[5], int(fields[6])
    bits = "".join(format(dearmor(c), "06b") for c in payload)
    if fill:
        bits = bits[:-fill]
    return {
        "type": _uint(bits, 0, 6),
        "mmsi": _uint(bits, 8, 30),
        "status": _uint(bits, 38, 4),
        "rot": _sint(bits, 42, 8),
        "sog": _uint(bits, 50, 10) / 10.0,
        "accuracy": _uint(bits, 60, 1),
        "lon": _sint(bits, 61, 28) / 600000.0,
        "lat": _sint(bits, 89, 27) / 600000.0,
        "cog": _uint(bits, 116, 12) / 10.0,
        "heading": _uint(bits, 128, 9),
        "second": _uint(bits, 137, 6),
    }
