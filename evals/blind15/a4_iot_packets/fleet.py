"""Synthetic fleet: gateway log lines and the calibration CSV export."""
import numpy as np

from calib import CHANNELS
from packets import encode_frame, wrap

ENVIRONMENTS = ("indoor", "outdoor", "freezer", "greenhouse")
_BASE = {"indoor": (2150, 4200, 101300), "outdoor": (1200, 6500, 100800),
         "freezer": (-1800, 7800, 101500), "greenhouse": (2700, 8600, 101000)}


def simulate_fleet(seed, devices, packets_per_device, calibrations_per_device, corrupt_rate):
    rng = np.random.default_rng(seed)
    t0 = 1767225600  # 2026-01-01T00:00:00Z
    lines, env_of, cal_rows = {}, {}, []
    for dev in range(devices):
        env = ENVIRONMENTS[dev % len(ENVIRONMENTS)]
        env_of[dev] = ENVIRONMENTS.index(env)
        temp0, hum0, pres0 = _BASE[env]
        ts = t0 + int(rng.integers(0, 3600))
        cal_times = sorted(int(v) for v in rng.integers(t0 - 86400, t0 + 86400 * 3, size=calibrations_per_device))
        for k, ct in enumerate(cal_times):
            if k and rng.random() < 0.25:
                ct = cal_times[k - 1]  # same-second re-calibration
                cal_times[k] = ct
            gains = [rng.normal(1.0, 0.02) for _ in CHANNELS]
            offsets = [rng.normal(0.0, 30.0), rng.normal(0.0, 80.0), rng.normal(0.0, 40.0), rng.normal(0.0, 15.0)]
            iso = np.datetime_as_string(np.datetime64(ct, "s")) + "Z"
            cal_rows.append((rng.random(), [str(dev), iso] + [repr(round(g, 6)) for g in gains]
                             + [repr(round(o, 3)) for o in offsets]))
        dev_lines = []
        battery = 3600.0
        for seq in range(packets_per_device):
            ts += int(rng.integers(240, 420))
            phase = 2 * np.pi * ((ts - t0) % 86400) / 86400
            temp = temp0 + 400 * np.sin(phase) + rng.normal(0, 25)
            hum = hum0 - 900 * np.sin(phase) + rng.normal(0, 60)
            pres = pres0 + rng.normal(0, 35)
            battery -= rng.uniform(0.0, 0.6)
            raw = (int(np.clip(temp, -32768, 32767)), int(np.clip(hum, 0, 10000)), int(pres), int(battery))
            frame = bytearray(encode_frame(dev, ts, seq & 0xFFFF, raw))
            if rng.random() < corrupt_rate:
                pos = int(rng.integers(0, len(frame) - 2))
                frame[pos] ^= 1 << int(rng.integers(0, 8))
            dev_lines.append(wrap(bytes(frame), dev, ts))
        lines[dev] = dev_lines
    # the export interleaves devices; rows of one device keep their relative order
    header = "device,valid_from," + ",".join(f"{c}_gain" for c in CHANNELS) + "," + \
        ",".join(f"{c}_offset" for c in CHANNELS)
    order = sorted(range(len(cal_rows)), key=lambda i: (int(cal_rows[i][1][0]) % 7, i))
    csv_text = "\n".join([header] + [",".join(cal_rows[i][1]) for i in order]) + "\n"
    return lines, env_of, csv_text
