"""Deterministic synthetic sensor feeds: one JSON-lines file per bay and day.

Event types: arrive / depart (magnetometer detections), heartbeat (every N
minutes, with radio RSSI) and battery (once a day, in mV). Gateways batch uploads,
so lines are only roughly in time order; some detections are duplicated.
"""
import json
import random

DAY = 86400


def _bay_day_events(rng, bay, day_start, profile, hb_minutes, battery_mv):
    events = []
    t = day_start + rng.randint(0, 1800)
    occupied = False
    while t < day_start + DAY:
        hour = (t - day_start) // 3600
        busy = profile[hour]
        if not occupied:
            gap = int(rng.expovariate(busy / 1800.0 + 1e-4))
            t += max(60, min(gap, 6 * 3600))
            if t >= day_start + DAY:
                break
            events.append({"bay": bay, "ts": t, "type": "arrive", "payload": {"conf": round(rng.uniform(0.6, 1.0), 3)}})
            if rng.random() < 0.05:  # duplicated detection
                events.append({"bay": bay, "ts": t + rng.randint(1, 30), "type": "arrive", "payload": {"conf": 0.5}})
            occupied = True
        else:
            stay = int(rng.lognormvariate(7.6, 0.8))
            t += max(120, min(stay, 8 * 3600))
            if t >= day_start + DAY:
                break
            events.append({"bay": bay, "ts": t, "type": "depart", "payload": {"conf": round(rng.uniform(0.6, 1.0), 3)}})
            occupied = False
    for k in range(DAY // (hb_minutes * 60)):
        if rng.random() < 0.93:  # some heartbeats are lost
            ts = day_start + k * hb_minutes * 60 + rng.randint(0, 20)
            events.append({"bay": bay, "ts": ts, "type": "heartbeat", "payload": {"rssi": rng.randint(-110, -70)}})
    events.append({"bay": bay, "ts": day_start + rng.randint(3600, 7200), "type": "battery",
                   "payload": {"mv": battery_mv}})
    # gateway upload batches: shuffle within small chunks of the day's stream
    events.sort(key=lambda e: e["ts"] + rng.randint(-300, 300))
    return [json.dumps(e, separators=(",", ":")) for e in events]


def make_feeds(num_bays, num_days, hb_minutes, start_epoch_s, seed):
    """Return {bay_id: [jsonl text of day 0, day 1, ...]}."""
    rng = random.Random(seed)
    feeds = {}
    for b in range(num_bays):
        bay = f"B-{b:03d}"
        peak = rng.uniform(0.5, 3.0)
        profile = [0.2 + peak * (1.0 if 8 <= h <= 18 else 0.2) * (1.5 if h in (9, 13, 17) else 1.0) for h in range(24)]
        mv = rng.randint(3300, 3600)
        days = []
        for d in range(num_days):
            mv -= rng.randint(0, 6)
            days.append("\n".join(_bay_day_events(rng, bay, start_epoch_s + d * DAY, profile, hb_minutes, mv)) + "\n")
        feeds[bay] = days
    return feeds
