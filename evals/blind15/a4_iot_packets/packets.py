"""Wire format of the sensor nodes: base64 frames of little-endian structs with a CRC-16 trailer.

    header  <BBHIH   version, msg_type, device_id, unix_seconds, seq
    payload <hHIH    temp (0.01 degC), humidity (0.01 %RH), pressure (Pa), battery (mV)
    trailer <H       CRC-16/CCITT-FALSE over header + payload
"""
import base64
import json
import struct
from dataclasses import dataclass

HEADER = struct.Struct("<BBHIH")
PAYLOAD = struct.Struct("<hHIH")
TRAILER = struct.Struct("<H")
FRAME_LEN = HEADER.size + PAYLOAD.size + TRAILER.size
MSG_READING = 0x21


def crc16_ccitt(data, crc=0xFFFF):
    """CRC-16/CCITT-FALSE: poly 0x1021, init 0xFFFF, no reflection, no final xor."""
    for byte in data:
        crc ^= byte << 8
        for _ in range(8):
            if crc & 0x8000:
                crc = ((crc << 1) ^ 0x1021) & 0xFFFF
            else:
                crc = (crc << 1) & 0xFFFF
    return crc


@dataclass
class Reading:
    device_id: int
    ts: int
    seq: int
    raw: tuple
    crc_ok: bool


def encode_frame(device_id, ts, seq, raw):
    body = HEADER.pack(1, MSG_READING, device_id, ts, seq) + PAYLOAD.pack(*raw)
    return body + TRAILER.pack(crc16_ccitt(body))


def wrap(frame, device_id, ts):
    """The gateway's JSON line: device name, ISO timestamp, base64 frame."""
    from datetime import datetime, timezone
    iso = datetime.fromtimestamp(ts, tz=timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    return json.dumps({"dev": f"node-{device_id:04d}", "ts": iso, "data": base64.b64encode(frame).decode()})


def decode_line(line):
    msg = json.loads(line)
    frame = base64.b64decode(msg["data"], validate=True)
    if len(frame) != FRAME_LEN:
        return None
    body, (crc,) = frame[:-TRAILER.size], TRAILER.unpack_from(frame, len(frame) - TRAILER.size)
    version, msg_type, device_id, ts, seq = HEADER.unpack_from(body, 0)
    if version != 1 or msg_type != MSG_READING:
        return None
    raw = PAYLOAD.unpack_from(body, HEADER.size)
    return Reading(device_id, ts, seq, raw, crc16_ccitt(body) == crc)
