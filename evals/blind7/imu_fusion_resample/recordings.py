"""Synthetic phone sensor logs: accelerometer (~100 Hz), gyroscope (~50 Hz), barometer (~10 Hz),
each with jittered timestamps and dropped samples, stored as lists of JSON-like records."""
import numpy as np

ACTIVITIES = ["walk", "run", "sit", "stand", "stairs_up", "cycle"]

# step frequency (Hz), acc amplitude (m/s^2), gyro amplitude (rad/s), climb rate (hPa/s)
PROFILE = {
    "walk": (1.9, 2.5, 0.6, 0.0),
    "run": (2.8, 7.0, 1.5, 0.0),
    "sit": (0.0, 0.05, 0.02, 0.0),
    "stand": (0.0, 0.15, 0.05, 0.0),
    "stairs_up": (1.6, 2.0, 0.5, -0.011),
    "cycle": (1.2, 1.2, 0.9, 0.0),
}


def _timestamps(rate, duration, rng):
    n = int(duration * rate * 1.05) + 10
    dt = (1.0 / rate) * rng.uniform(0.85, 1.15, size=n)
    dropped = rng.random(n) < 0.02
    dt[dropped] *= rng.integers(2, 5, size=int(dropped.sum()))
    t = rng.uniform(0.0, 0.02) + np.cumsum(dt)
    return t[t < duration]


def _records(t, columns, names):
    keys = ("t",) + names
    cols = [t.tolist()] + [c.tolist() for c in columns]
    return [dict(zip(keys, row)) for row in zip(*cols)]


def make_recording(activity, duration, rng):
    f, a_acc, a_gyr, climb = PROFILE[activity]
    tilt = rng.normal(0, 0.3, size=3)
    g = np.array([np.sin(tilt[0]), np.sin(tilt[1]), np.cos(tilt[0]) * np.cos(tilt[1])]) * 9.81
    phase = rng.uniform(0, 2 * np.pi, size=6)
    f = f * rng.uniform(0.9, 1.1)

    ta = _timestamps(100.0, duration, rng)
    acc = [g[k] + a_acc * (0.6 + 0.4 * k) * np.sin(2 * np.pi * f * ta + phase[k])
           + rng.normal(0, 0.08, size=ta.shape) for k in range(3)]
    tg = _timestamps(50.0, duration, rng)
    gyr = [a_gyr * np.sin(2 * np.pi * f * tg + phase[3 + k]) + rng.normal(0, 0.01, size=tg.shape)
           for k in range(3)]
    tb = _timestamps(10.0, duration, rng)
    p0 = rng.uniform(990.0, 1025.0)
    pres = [p0 + climb * tb + rng.normal(0, 0.004, size=tb.shape)]
    return {
        "activity": activity,
        "acc": _records(ta, acc, ("x", "y", "z")),
        "gyro": _records(tg, gyr, ("x", "y", "z")),
        "baro": _records(tb, pres, ("p",)),
    }


def make_recordings(n, duration, seed):
    rng = np.random.default_rng(seed)
    recs = []
    for i in range(n):
        activity = ACTIVITIES[i % len(ACTIVITIES)] if i < len(ACTIVITIES) else ACTIVITIES[int(rng.integers(len(ACTIVITIES)))]
        recs.append(make_recording(activity, duration, rng))
    return recs
