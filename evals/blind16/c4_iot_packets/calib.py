"""Per-device calibration tables and unit conversions to SI-ish units."""
from collections import namedtuple

CalRecord = namedtuple("CalRecord", ["effective", "gain", "offset"])
SENSORS = ("temperature", "humidity", "pressure", "accel", "battery")
G = 9.80665


class CalibrationStore:
    """tables[device][sensor] = list of CalRecord sorted by effective time (re-issues may share a time)."""

    def __init__(self, tables):
        self.tables = tables

    def lookup(self, device, sensor, ts):
        best = None
        for rec in self.tables[device][sensor]:
            if rec.effective <= ts:
                best = rec
        return best


def to_units(name, raw, version):
    """Raw field -> physical value before calibration."""
    if name == "temperature":
        return (raw / 10.0 - 32.0) * 5.0 / 9.0 if version == 1 else raw / 100.0
    if name == "humidity":
        return raw / 100.0
    if name == "pressure":
        return raw / 100.0                 # hPa
    if name == "accel":
        return tuple(v / 1000.0 * G for v in raw)
    if name == "battery":
        return raw / 1000.0                # V
    raise KeyError(name)


def calibrate(store, packet):
    """Physical, calibrated values of one decoded packet: list of 7 floats (NaN when missing)."""
    out = []
    for name in SENSORS:
        raw = packet["fields"].get(name)
        width = 3 if name == "accel" else 1
        if raw is None:
            out.extend([float("nan")] * width)
            continue
        value = to_units(name, raw, packet["version"])
        rec = store.lookup(packet["device"], name, packet["ts"])
        if rec is None:
            gain, offset = 1.0, 0.0
        else:
            gain, offset = rec.gain, rec.offset
        if width == 3:
            out.extend(v * gain + offset for v in value)
        else:
            out.append(value * gain + offset)
    return out
