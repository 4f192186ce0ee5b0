"""Per-device calibration tables (as exported from the fleet database, CSV text) and unit conversion."""
import csv
import io
from dataclasses import dataclass
from datetime import datetime

CHANNELS = ("temp", "humidity", "pressure", "battery")


@dataclass
class CalibrationRecord:
    device_id: int
    valid_from: int          # unix seconds
    gain: tuple              # per channel
    offset: tuple            # per channel, in raw units


DEFAULT = CalibrationRecord(-1, 0, (1.0, 1.0, 1.0, 1.0), (0.0, 0.0, 0.0, 0.0))


def load_calibrations(text):
    """Rows in export order; several rows may share a timestamp (a re-calibration in the same second):
    the later row supersedes the earlier one."""
    records = []
    for row in csv.DictReader(io.StringIO(text)):
        ts = int(datetime.fromisoformat(row["valid_from"].replace("Z", "+00:00")).timestamp())
        records.append(CalibrationRecord(
            int(row["device"]), ts,
            tuple(float(row[f"{c}_gain"]) for c in CHANNELS),
            tuple(float(row[f"{c}_offset"]) for c in CHANNELS)))
    return records


class CalibrationTable:
    def __init__(self, records):
        self.records = list(records)

    def lookup(self, device_id, ts):
        """The record in force at ts: the latest valid_from <= ts, the last exported row on ties."""
        best = None
        for rec in self.records:
            if rec.device_id != device_id or rec.valid_from > ts:
                continue
            if best is None or rec.valid_from >= best.valid_from:
                best = rec
        return best if best is not None else DEFAULT


def to_si(raw, cal):
    """Calibrated physical units: K, relative humidity (0-1), hPa, V."""
    t, h, p, b = ((r - o) * g for r, o, g in zip(raw, cal.offset, cal.gain))
    return (t / 100.0 + 273.15, h / 10000.0, p / 100.0, b / 1000.0)
