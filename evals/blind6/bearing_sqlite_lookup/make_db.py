"""Write the synthetic vibration export (one row per 768-sample window) into SQLite."""
import os
import sqlite3

import numpy as np

FAULTS = ["normal", "inner_race", "outer_race", "ball"]


def build(path, machines, windows_per_machine, window_len, seed):
    if os.path.exists(path):
        return
    os.makedirs(os.path.dirname(path), exist_ok=True)
    rng = np.random.default_rng(seed)
    tmp = path + ".tmp"
    if os.path.exists(tmp):
        os.remove(tmp)
    con = sqlite3.connect(tmp)
    con.execute("CREATE TABLE windows (serial TEXT, machine INTEGER, widx INTEGER, rpm REAL, "
                "fault TEXT, signal BLOB)")
    t = np.arange(window_len) / 12000.0
    rows = []
    for m in range(machines):
        rpm0 = 1720 + 30 * m
        for w in range(windows_per_machine):
            fault = FAULTS[int(rng.integers(0, len(FAULTS)))]
            rpm = rpm0 + float(rng.normal(0, 5))
            shaft = rpm / 60.0
            sig = 0.3 * np.sin(2 * np.pi * shaft * t) + 0.05 * rng.standard_normal(window_len)
            if fault != "normal":
                mult = {"inner_race": 5.4, "outer_race": 3.6, "ball": 4.7}[fault]
                period = 1.0 / (mult * shaft)
                phase = float(rng.uniform(0, period))
                impacts = ((t + phase) % period) < 2.5e-4
                ring = np.convolve(impacts.astype(float), np.exp(-np.arange(40) / 6.0) *
                                   np.sin(np.arange(40) * 1.3))[:window_len]
                sig = sig + (0.6 + 0.1 * m) * ring
            rows.append((f"M{m:02d}-{w:05d}", m, w, rpm, fault, sig.astype(np.float32).tobytes()))
    con.executemany("INSERT INTO windows VALUES (?, ?, ?, ?, ?, ?)", rows)
    con.commit()
    con.close()
    os.replace(tmp, path)
