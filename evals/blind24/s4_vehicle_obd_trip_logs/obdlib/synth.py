"""Simulated OBD-II exports: one CSV text per vehicle, 1 Hz rows, trips separated by gaps."""
import numpy as np

HEADER = "timestamp,speed_kmh,rpm,throttle_pct,fuel_rate_lph,coolant_c"


def _trip(rng, n, aggress, eff):
    target = np.repeat(rng.uniform(0, 110, size=n // 40 + 1), 40)[:n]
    target[: rng.integers(10, 40)] = 0.0
    noise = rng.normal(0, 0.6 + aggress, size=n).tolist()
    tgt = target.tolist()
    gain = 0.05 + 0.15 * aggress
    v = [0.0] * n
    for i in range(1, n):  # first-order tracking with driver-dependent gain
        v[i] = max(0.0, v[i - 1] + gain * (tgt[i] - v[i - 1]) + noise[i])
    speed = np.array(v)
    gear = np.clip(speed // 25 + 1, 1, 6)
    rpm = np.where(speed < 1, 800.0, 700.0 + speed * 95.0 / gear * (1 + 0.4 * aggress))
    throttle = np.clip(np.r_[0.0, np.diff(speed)] * (8 + 10 * aggress) + speed * 0.2, 0, 100)
    fuel = np.clip((0.6 + 0.004 * rpm * throttle / 40.0) * eff + rng.normal(0, 0.05, n), 0.2, None)
    coolant = np.minimum(90.0, 40.0 + np.arange(n) * 0.3)
    return speed, rpm, throttle, fuel, coolant


def make_fleet(n_vehicles, rows, seed, missing_p=0.02):
    rng = np.random.default_rng(seed)
    logs, scores = [], []
    for _ in range(n_vehicles):
        aggress, eff = rng.uniform(0, 1), rng.uniform(0.8, 1.3)
        lines = [HEADER]
        t = float(rng.integers(1_600_000_000, 1_700_000_000))
        left = rows
        while left > 0:
            n = int(min(left, rng.integers(120, 320)))
            speed, rpm, thr, fuel, cool = _trip(rng, n, aggress, eff)
            ts = t + np.cumsum(rng.choice([1.0, 1.0, 1.0, 2.0], size=n))
            miss = (rng.random(n) < missing_p).tolist()
            rows_ = zip(ts.tolist(), speed.tolist(), rpm.tolist(), thr.tolist(), fuel.tolist(), cool.tolist())
            for m, row in zip(miss, rows_):
                if m:
                    lines.append("%.0f,%.1f,%.0f,,,%.0f" % (row[0], row[1], row[2], row[5]))
                else:
                    lines.append("%.0f,%.1f,%.0f,%.1f,%.2f,%.0f" % row)
            t = ts[-1] + rng.integers(300, 7200)
            left -= n
        logs.append("\n".join(lines) + "\n")
        scores.append(100.0 - 45.0 * aggress - 30.0 * (eff - 0.8) + rng.normal(0, 2.0))
    return logs, np.array(scores, dtype=np.float32)
