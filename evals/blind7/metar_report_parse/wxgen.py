"""Synthetic hourly weather per station, written out as METAR strings, plus flight categories."""
import math
import random

CATEGORIES = ["VFR", "MVFR", "IFR", "LIFR"]


def flight_category(vis_m, ceiling_ft):
    if vis_m < 1600 or ceiling_ft < 500:
        return 3
    if vis_m < 5000 or ceiling_ft < 1000:
        return 2
    if vis_m <= 8000 or ceiling_ft <= 3000:
        return 1
    return 0


def _temp(t):
    t = int(round(t))
    return f"M{-t:02d}" if t < 0 else f"{t:02d}"


def format_metar(icao, day, hour, w):
    parts = ["METAR", icao, f"{day:02d}{hour:02d}50Z"]
    if w["auto"]:
        parts.append("AUTO")
    spd = w["wind_kt"]
    if spd == 0:
        parts.append("00000KT")
    elif spd < 3:
        parts.append(f"VRB{spd:02d}KT")
    elif w["gust_kt"]:
        parts.append(f"{w['wind_dir']:03d}{spd:02d}G{w['gust_kt']:02d}KT")
    else:
        parts.append(f"{w['wind_dir']:03d}{spd:02d}KT")
    cavok = w["vis_m"] >= 9999 and not w["layers"] and not w["wx"]
    if cavok:
        parts.append("CAVOK")
    else:
        parts.append(f"{min(w['vis_m'], 9999):04d}")
        if w["wx"]:
            parts.append(w["wx"])
        if w["layers"]:
            parts.extend(f"{cover}{height // 100:03d}" for cover, height in w["layers"])
        else:
            parts.append("NSC")
    parts.append(f"{_temp(w['temp'])}/{_temp(w['dew'])}")
    parts.append(f"Q{w['qnh']:04d}")
    parts.append("NOSIG" if w["qnh"] % 3 else "BECMG")
    if w["rmk"]:
        parts.append("RMK " + w["rmk"])
    return " ".join(parts)


def simulate_station(icao, hours, rng):
    t_mean = rng.uniform(4.0, 16.0)
    anom, spread_anom, wind, wdir, qnh = 0.0, 0.0, rng.uniform(4, 12), rng.uniform(0, 360), rng.uniform(1000, 1025)
    reports, cats = [], []
    for h in range(hours):
        hod = h % 24
        day = 1 + (h // 24) % 28
        diurnal = rng.uniform(5.0, 5.5) * math.sin(2 * math.pi * (hod - 9) / 24)
        anom = 0.95 * anom + rng.gauss(0, 0.6)
        spread_anom = 0.9 * spread_anom + rng.gauss(0, 0.7)
        wind = max(0.0, 0.85 * wind + 0.15 * 8.0 + rng.gauss(0, 1.8))
        wdir = (wdir + rng.gauss(0, 15)) % 360
        qnh = min(1045.0, max(975.0, qnh + rng.gauss(0, 0.8) + 0.02 * (1013 - qnh)))
        temp = t_mean + diurnal + anom
        spread = max(0.0, 3.5 + spread_anom + 0.5 * diurnal - (2.0 if hod < 7 else 0.0))
        dew = temp - spread
        night = hod < 8 or hod > 20
        wind_kt = int(round(wind))
        if spread < 1.0 and wind_kt < 7 and night:
            vis, wx = int(rng.uniform(100, 900)) // 50 * 50, "FG"
        elif spread < 2.2:
            vis, wx = int(rng.uniform(1200, 4900)) // 100 * 100, "BR"
        elif qnh < 1002 and spread < 4.0:
            vis, wx = int(rng.uniform(3000, 9000)) // 100 * 100, rng.choice(["-RA", "RA", "+RA", "-DZ"])
        else:
            vis, wx = 9999, ""
        layers = []
        if wx == "FG":
            layers.append(("OVC", int(rng.uniform(1, 4)) * 100))
        else:
            base = int(max(2.0, 4.0 * spread + rng.gauss(0, 3))) * 100
            for cover in ("FEW", "SCT", "BKN", "OVC"):
                if rng.random() < (0.45 if qnh < 1012 else 0.2):
                    layers.append((cover, base))
                    base += int(rng.uniform(5, 40)) * 100
        ceiling = min([height for cover, height in layers if cover in ("BKN", "OVC")], default=99999)
        w = {
            "auto": rng.random() < 0.15,
            "wind_kt": wind_kt,
            "wind_dir": int(round(wdir / 10.0)) * 10 % 360 or 360,
            "gust_kt": wind_kt + int(rng.uniform(8, 15)) if wind_kt >= 15 and rng.random() < 0.5 else 0,
            "vis_m": vis,
            "wx": wx,
            "layers": layers,
            "temp": temp,
            "dew": dew,
            "qnh": int(round(qnh)),
            "rmk": rng.choice(["", "", "", "AO2", "SLP132", "RWY27 WET"]),
        }
        reports.append(format_metar(icao, day, hod, w))
        cats.append(flight_category(vis, ceiling))
    return reports, cats


def make_archive(stations, hours, seed):
    rng = random.Random(seed)
    return {icao: simulate_station(icao, hours, rng) for icao in stations}
