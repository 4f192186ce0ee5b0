"""Great-circle geometry and per-segment motion features."""
import math

EARTH_RADIUS_M = 6371008.8
KNOT_MS = 1852.0 / 3600.0
FEATURES = ("log_dist", "dt", "speed", "rmc_speed", "accel", "turn", "climb", "hdop")


def haversine(lat1, lon1, lat2, lon2):
    p1, p2 = math.radians(lat1), math.radians(lat2)
    dp, dl = p2 - p1, math.radians(lon2 - lon1)
    a = math.sin(dp / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(dl / 2) ** 2
    return 2 * EARTH_RADIUS_M * math.asin(math.sqrt(min(1.0, a)))


def bearing(lat1, lon1, lat2, lon2):
    p1, p2 = math.radians(lat1), math.radians(lat2)
    dl = math.radians(lon2 - lon1)
    y = math.sin(dl) * math.cos(p2)
    x = math.cos(p1) * math.sin(p2) - math.sin(p1) * math.cos(p2) * math.cos(dl)
    return math.degrees(math.atan2(y, x)) % 360.0


def wrap180(angle):
    return (angle + 180.0) % 360.0 - 180.0


def segment_features(fixes):
    """One row per consecutive pair of fixes; the first segment of a window has no turn and no accel."""
    rows = []
    prev_bearing = prev_speed = None
    for a, b in zip(fixes, fixes[1:]):
        dt = b.t - a.t
        if dt <= 0:
            continue
        dist = haversine(a.lat, a.lon, b.lat, b.lon)
        speed = dist / dt
        brg = bearing(a.lat, a.lon, b.lat, b.lon) if dist > 0.5 else prev_bearing
        turn = wrap180(brg - prev_bearing) if (brg is not None and prev_bearing is not None) else 0.0
        accel = (speed - prev_speed) / dt if prev_speed is not None else 0.0
        rows.append([math.log1p(dist), dt, speed, b.speed_kn * KNOT_MS, accel, turn / 180.0,
                     (b.alt - a.alt) / dt, b.hdop])
        prev_bearing, prev_speed = brg, speed
    return rows
