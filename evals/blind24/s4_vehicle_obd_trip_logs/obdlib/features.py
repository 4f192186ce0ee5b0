"""Trip segmentation and driving-style / fuel features."""

N_FEATURES = 11


def segment_trips(ts, speed, rpm, throttle, fuel, gap_s=30.0):
    trips = []
    cur = None
    prev_t = prev_v = None
    for i in range(len(ts)):
        t = ts[i]
        if prev_t is None or t - prev_t > gap_s:
            if cur is not None:
                trips.append(cur)
            cur = {"dur": 0.0, "dist": 0.0, "fuel": 0.0, "idle": 0, "harsh_acc": 0, "harsh_brk": 0,
                   "rpm_sum": 0.0, "high_rpm": 0, "thr_sum": 0.0, "n": 0}
            dt = 0.0
            acc = 0.0
        else:
            dt = t - prev_t
            acc = (speed[i] - prev_v) / dt
        cur["dur"] += dt
        cur["dist"] += speed[i] * dt / 3600.0
        cur["fuel"] += fuel[i] * dt / 3600.0
        cur["idle"] += speed[i] < 1.0 and rpm[i] > 0
        cur["harsh_acc"] += acc > 3.0
        cur["harsh_brk"] += acc < -4.0
        cur["rpm_sum"] += rpm[i]
        cur["high_rpm"] += rpm[i] > 3000.0
        cur["thr_sum"] += throttle[i]
        cur["n"] += 1
        prev_t, prev_v = t, speed[i]
    if cur is not None:
        trips.append(cur)
    return trips


def trip_stats(trip):
    dist = max(trip["dist"], 0.1)
    n = trip["n"]
    return [
        trip["fuel"] / dist * 100.0,                         # L/100 km
        trip["idle"] / n,                                    # idle fraction
        (trip["harsh_acc"] + trip["harsh_brk"]) / dist,      # harsh events per km
        trip["rpm_sum"] / n / 1000.0,                        # mean rpm (k)
        trip["high_rpm"] / n,
        trip["thr_sum"] / n / 100.0,
        trip["dist"] / max(trip["dur"], 1.0) * 3600.0 / 100.0,  # mean speed (100 km/h)
    ]


def log_features(cols):
    trips = segment_trips(cols["timestamp"], cols["speed_kmh"], cols["rpm"], cols["throttle_pct"],
                          cols["fuel_rate_lph"])
    sums = [0.0] * 7
    total_dist = total_fuel = 0.0
    for trip in trips:
        for k, v in enumerate(trip_stats(trip)):
            sums[k] += v
        total_dist += trip["dist"]
        total_fuel += trip["fuel"]
    n = len(trips)
    return [n / 5.0, total_dist / 50.0, total_fuel / 5.0,
            total_fuel / max(total_dist, 0.1) * 100.0 / 10.0] + [s / n for s in sums]
