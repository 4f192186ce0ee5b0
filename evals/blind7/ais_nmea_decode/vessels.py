"""Synthetic vessel tracks in five behaviour classes, emitted as raw AIVDM sentences."""
import math
import random

from nmea import encode_position_report

VESSEL_TYPES = ["cargo", "tanker", "fishing", "passenger", "pleasure"]


def _behaviour(kind, rng):
    if kind == "cargo":
        return dict(speed=rng.uniform(12, 16), speed_sd=0.3, turn_sd=1.0, leg=(400, 900))
    if kind == "tanker":
        return dict(speed=rng.uniform(10, 13), speed_sd=0.2, turn_sd=0.6, leg=(500, 1200))
    if kind == "fishing":
        return dict(speed=rng.uniform(2, 6), speed_sd=1.2, turn_sd=25.0, leg=(20, 60))
    if kind == "passenger":
        return dict(speed=rng.uniform(18, 22), speed_sd=0.6, turn_sd=2.0, leg=(60, 120))
    return dict(speed=rng.uniform(5, 20), speed_sd=2.5, turn_sd=8.0, leg=(30, 200))


def simulate_track(kind, n_messages, rng):
    b = _behaviour(kind, rng)
    mmsi = rng.randint(200000000, 775999999)
    lat, lon = rng.uniform(50.0, 58.0), rng.uniform(-4.0, 10.0)
    cog = rng.uniform(0, 360)
    sog = b["speed"]
    leg_left = rng.randint(*b["leg"])
    t = rng.randint(0, 59)
    sentences = []
    for _ in range(n_messages):
        dt = rng.uniform(6, 14)
        turn = rng.gauss(0, b["turn_sd"])
        leg_left -= 1
        if leg_left <= 0:
            turn += 180.0 if kind == "passenger" else rng.uniform(-90, 90)
            leg_left = rng.randint(*b["leg"])
        cog = (cog + turn) % 360
        sog = max(0.0, b["speed"] + rng.gauss(0, b["speed_sd"]))
        lat += sog * math.cos(math.radians(cog)) * dt / 3600.0 / 60.0
        lon += sog * math.sin(math.radians(cog)) * dt / 3600.0 / 60.0 / math.cos(math.radians(lat))
        t = int(t + dt) % 60
        if kind == "fishing":
            status = 7 if sog < 4.5 else 0
        elif kind == "pleasure":
            status = 15
        else:
            status = 0
        heading = 511 if kind == "pleasure" and rng.random() < 0.7 else int(round(cog + rng.gauss(0, 3))) % 360
        rot = max(-126, min(126, int(round(turn * 2))))
        sentences.append(encode_position_report(
            mmsi, status, rot, min(1022, int(round(sog * 10))), int(round(lon * 600000)),
            int(round(lat * 600000)), int(round(cog * 10)) % 3600, heading, t,
            channel="A" if rng.random() < 0.5 else "B"))
    return sentences


def make_fleet(n_vessels, n_messages, seed):
    rng = random.Random(seed)
    labels = [i % len(VESSEL_TYPES) for i in range(n_vessels)]
    rng.shuffle(labels)
    tracks = [simulate_track(VESSEL_TYPES[k], n_messages, rng) for k in labels]
    return tracks, labels
