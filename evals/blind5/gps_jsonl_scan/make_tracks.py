"""Write a GeoLife-like export: one JSON object per line, one GPS track per object."""
import json
import math
import os
import random

MODES = ["walk", "bike", "bus", "car"]
SPEED = {"walk": 1.4, "bike": 4.5, "bus": 7.5, "car": 11.0}
EARTH_M_PER_DEG = 111_320.0


def _track(rng, mode):
    lat = 39.9 + rng.uniform(-0.15, 0.15)
    lon = 116.4 + rng.uniform(-0.2, 0.2)
    heading = rng.uniform(0, 2 * math.pi)
    t = 0
    pts = []
    speed = SPEED[mode] * rng.uniform(0.7, 1.3)
    for _ in range(rng.randint(64, 110)):
        pts.append([round(lat + rng.gauss(0, 2e-5), 6), round(lon + rng.gauss(0, 2e-5), 6), t])
        dt = rng.choice([1, 1, 2, 2, 2, 3, 5])
        v = speed * rng.uniform(0.6, 1.4)
        if mode == "bus" and rng.random() < 0.08:
            v = 0.0  # bus stop
        if mode == "car" and rng.random() < 0.05:
            v *= 0.2  # traffic light
        heading += rng.gauss(0, 0.35 if mode == "walk" else 0.12)
        lat += v * dt * math.cos(heading) / EARTH_M_PER_DEG
        lon += v * dt * math.sin(heading) / (EARTH_M_PER_DEG * math.cos(math.radians(lat)))
        t += dt
    return pts


def write_tracks(path, n, seed):
    rng = random.Random(seed)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as fh:
        for i in range(n):
            mode = MODES[rng.randrange(len(MODES))]
            rec = {
                "track_id": f"t{i:06d}",
                "user": f"u{rng.randrange(180):03d}",
                "mode": mode,
                "start": f"2008-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}T{rng.randint(6, 21):02d}:{rng.randint(0, 59):02d}:00",
                "device": {"model": rng.choice(["GH-615", "Magellan", "phone"]), "hz": 1},
                "points": _track(rng, mode),
            }
            fh.write(json.dumps(rec) + "\n")
    os.replace(tmp, path)


if __name__ == "__main__":
    write_tracks("data/tracks.jsonl", 2000, 311)
