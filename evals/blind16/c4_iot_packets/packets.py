"""Uplink decoding: JSON envelope -> base64 payload -> struct-packed little-endian fields + CRC-16."""
import base64
import json
import struct
from datetime import datetime, timezone

MAGIC = 0xA5
HEADER = struct.Struct("<BBHIIB")      # magic, fw version, device id, seq, unix ts, n fields
FIELD_FORMATS = {                      # field type -> (name, struct format of the value)
    1: ("temperature", "<h"),          # fw1: 0.1 degF, fw2: 0.01 degC
    2: ("humidity", "<H"),             # 0.01 %RH
    3: ("pressure", "<I"),             # Pa
    4: ("accel", "<hhh"),              # mg
    5: ("battery", "<H"),              # mV
}
RX_FORMAT = "%Y-%m-%dT%H:%M:%S.%fZ"


def crc16_ccitt(data, crc=0xFFFF):
    """CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF, no reflection), bit by bit."""
    for byte in data:
        crc ^= byte << 8
        for _ in range(8):
            if crc & 0x8000:
                crc = ((crc << 1) ^ 0x1021) & 0xFFFF
            else:
                crc = (crc << 1) & 0xFFFF
    return crc


def encode_payload(version, device, seq, ts, fields):
    body = HEADER.pack(MAGIC, version, device, seq, ts, len(fields))
    for ftype, values in fields:
        body += struct.pack("<B", ftype) + struct.pack(FIELD_FORMATS[ftype][1], *values)
    return body + struct.pack("<H", crc16_ccitt(body))


def parse_uplink(line):
    """One network-server JSON line -> raw packet dict, or None when the frame is damaged."""
    msg = json.loads(line)
    frame = base64.b64decode(msg["data"])
    if len(frame) < HEADER.size + 2:
        return None
    (crc,) = struct.unpack("<H", frame[-2:])
    if crc16_ccitt(frame[:-2]) != crc:
        return None
    magic, version, device, seq, ts, n_fields = HEADER.unpack_from(frame, 0)
    if magic != MAGIC:
        return None
    pos = HEADER.size
    fields = {}
    for _ in range(n_fields):
        ftype = frame[pos]
        pos += 1
        name, fmt = FIELD_FORMATS[ftype]
        values = struct.unpack_from(fmt, frame, pos)
        pos += struct.calcsize(fmt)
        fields[name] = values if len(values) > 1 else values[0]
    rx = datetime.strptime(msg["rxInfo"]["time"], RX_FORMAT).replace(tzinfo=timezone.utc).timestamp()
    return {"version": version, "device": device, "seq": seq, "ts": ts, "rx": rx, "fields": fields}
