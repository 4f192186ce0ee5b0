"""METAR-style report generation and parsing (a small subset of WMO FM 15 as US and ICAO stations send it)."""
import math
import re
from datetime import datetime, timedelta

import numpy as np

KT_TO_MS = 0.514444
MPS = 1.0
SM_TO_KM = 1.609344
INHG_TO_HPA = 33.8639
CLOUD_OKTAS = {"SKC": 0, "CLR": 0, "NSC": 0, "FEW": 2, "SCT": 4, "BKN": 6, "OVC": 8, "VV": 8}
FIELDS = ("temp_c", "dewpt_c", "wind_ms", "gust_ms", "wind_dir", "vis_km", "press_hpa", "cloud_oktas", "ceiling_ft")

WIND_RE = re.compile(r"^(?P<dir>\d{3}|VRB|///)(?P<spd>\d{2,3}|//)(?:G(?P<gust>\d{2,3}))?(?P<unit>KT|MPS)$")
VIS_SM_RE = re.compile(r"^(?:(?P<whole>\d{1,2}) )?(?:(?P<num>\d)/(?P<den>\d))?SM$|^(?P<int>\d{1,2})SM$|^M1/4SM$")
TEMP_RE = re.compile(r"^(?P<t>M?\d{2}|//)/(?P<d>M?\d{2}|//)?$")
CLOUD_RE = re.compile(r"^(?P<cov>FEW|SCT|BKN|OVC|VV)(?P<hgt>\d{3}|///)(?:CB|TCU)?$")
TGROUP_RE = re.compile(r"^T(?P<ts>[01])(?P<t>\d{3})(?:(?P<ds>[01])(?P<d>\d{3}))?$")


def _signed_c(token):
    return -float(token[1:]) if token.startswith("M") else float(token)


def parse_report(line, year, month):
    """One report line -> dict of physical values (None where the field is missing)."""
    tokens = line.split()
    out = dict.fromkeys(FIELDS)
    i = 0
    if tokens[i] in ("METAR", "SPECI"):
        i += 1
    out["station"] = tokens[i]
    stamp = tokens[i + 1]
    day, hour, minute = int(stamp[0:2]), int(stamp[2:4]), int(stamp[4:6])
    out["time"] = datetime(year, month, day, hour, minute)
    i += 2
    while i < len(tokens) and tokens[i] in ("AUTO", "COR"):
        i += 1
    body = tokens[i:]
    if "RMK" in body:
        cut = body.index("RMK")
        body, remarks = body[:cut], body[cut + 1:]
    else:
        remarks = []
    j = 0
    while j < len(body):
        tok = body[j]
        m = WIND_RE.match(tok)
        if m:
            factor = KT_TO_MS if m["unit"] == "KT" else MPS
            if m["spd"] != "//":
                out["wind_ms"] = int(m["spd"]) * factor
                out["gust_ms"] = int(m["gust"]) * factor if m["gust"] else out["wind_ms"]
            if m["dir"] not in ("VRB", "///"):
                out["wind_dir"] = float(m["dir"])
            j += 1
            continue
        # "1 1/2SM" arrives as two tokens
        if tok.isdigit() and j + 1 < len(body) and body[j + 1].endswith("SM") and "/" in body[j + 1]:
            tok = tok + " " + body[j + 1]
            j += 1
        if tok.endswith("SM"):
            if tok == "M1/4SM":
                out["vis_km"] = 0.25 * SM_TO_KM * 0.5
            else:
                m = VIS_SM_RE.match(tok)
                if m:
                    miles = 0.0
                    if m["int"]:
                        miles = float(m["int"])
                    else:
                        if m["whole"]:
                            miles += float(m["whole"])
                        if m["num"]:
                            miles += float(m["num"]) / float(m["den"])
                    out["vis_km"] = miles * SM_TO_KM
            j += 1
            continue
        if len(tok) == 4 and tok.isdigit():
            out["vis_km"] = min(int(tok), 10000) / 1000.0  # metres, 9999 = 10 km or more
            j += 1
            continue
        if tok in ("CAVOK",):
            out["vis_km"], out["cloud_oktas"], out["ceiling_ft"] = 10.0, 0.0, 12000.0
            j += 1
            continue
        if tok in CLOUD_OKTAS and tok not in ("FEW", "SCT", "BKN", "OVC", "VV"):
            out["cloud_oktas"], out["ceiling_ft"] = 0.0, 12000.0
            j += 1
            continue
        m = CLOUD_RE.match(tok)
        if m:
            oktas = float(CLOUD_OKTAS[m["cov"]])
            out["cloud_oktas"] = max(out["cloud_oktas"] or 0.0, oktas)
            if oktas >= 6 and m["hgt"] != "///":
                height = int(m["hgt"]) * 100.0
                out["ceiling_ft"] = height if out["ceiling_ft"] is None else min(out["ceiling_ft"], height)
            j += 1
            continue
        m = TEMP_RE.match(tok)
        if m:
            if m["t"] != "//":
                out["temp_c"] = _signed_c(m["t"])
            if m["d"] and m["d"] != "//":
                out["dewpt_c"] = _signed_c(m["d"])
            j += 1
            continue
        if tok[0] in "AQ" and len(tok) == 5 and tok[1:].isdigit():
            out["press_hpa"] = int(tok[1:]) / 100.0 * INHG_TO_HPA if tok[0] == "A" else float(tok[1:])
            j += 1
            continue
        j += 1  # present weather and anything else we do not model
    if out["cloud_oktas"] is not None and out["ceiling_ft"] is None:
        out["ceiling_ft"] = 12000.0
    for tok in remarks:
        m = TGROUP_RE.match(tok)  # tenths of a degree override the whole-degree group
        if m:
            out["temp_c"] = (-1.0 if m["ts"] == "1" else 1.0) * int(m["t"]) / 10.0
            if m["d"]:
                out["dewpt_c"] = (-1.0 if m["ds"] == "1" else 1.0) * int(m["d"]) / 10.0
    return out


# ----------------------------------------------------------------------------------------------
# Synthetic hourly reports
# ----------------------------------------------------------------------------------------------
US_STATIONS = ["KJFK", "KORD", "KDEN", "KSEA", "KATL", "KBOS", "KMSP", "KPHX", "KSFO", "KDFW"]
ICAO_STATIONS = ["EGLL", "EDDF", "LFPG", "EHAM", "LIRF", "LEMD", "ESSA", "EPWA", "LOWW", "EKCH"]


def _fmt_c(v):
    r = int(round(v))
    return f"M{abs(r):02d}" if r < 0 else f"{r:02d}"


def synthesize_reports(n_reports, seed, start=datetime(2026, 12, 1, 0, 51)):
    rng = np.random.default_rng(seed)
    reports = {}
    for station in US_STATIONS + ICAO_STATIONS:
        us = station.startswith("K")
        base_t = rng.uniform(-8.0, 16.0)
        base_p = rng.uniform(1005.0, 1022.0)
        lines = []
        t = start + timedelta(minutes=int(rng.integers(0, 5)))
        temp, press, wdir = base_t, base_p, rng.uniform(0, 360)
        for h in range(n_reports):
            hour = t.hour + t.minute / 60.0
            temp = 0.85 * temp + 0.15 * (base_t + 5.0 * math.sin(2 * math.pi * (hour - 9.0) / 24.0)) \
                + rng.normal(0, 0.6)
            dew = temp - abs(rng.normal(4.0, 2.5))
            press = 0.95 * press + 0.05 * base_p + rng.normal(0, 0.7)
            wdir = (wdir + rng.normal(0, 25)) % 360
            spd = max(0.0, rng.gamma(2.0, 4.5))
            gust = spd + rng.uniform(5, 15) if rng.random() < 0.2 else None
            kind = "SPECI" if rng.random() < 0.05 else "METAR"
            toks = [kind, station, t.strftime("%d%H%MZ")]
            if rng.random() < 0.3:
                toks.append("AUTO")
            if rng.random() < 0.04:
                toks.append("/////KT")
            else:
                unit = "KT" if us or rng.random() < 0.6 else "MPS"
                s = spd if unit == "KT" else spd * KT_TO_MS
                d = "VRB" if spd < 3 and rng.random() < 0.5 else f"{int(round(wdir / 10.0)) * 10 % 360:03d}"
                g = f"G{int(round(gust if unit == 'KT' else gust * KT_TO_MS)):02d}" if gust else ""
                toks.append(f"{d}{int(round(s)):02d}{g}{unit}")
            vis = min(10.0, rng.gamma(3.0, 3.0))
            if rng.random() < 0.06:
                pass  # visibility group missing
            elif us:
                toks.append("10SM" if vis >= 9.9 else (f"{int(vis)}SM" if vis >= 3 else
                            ("1 1/2SM" if vis >= 1.5 else ("3/4SM" if vis >= 0.75 else "M1/4SM"))))
            else:
                toks.append("9999" if vis >= 9.9 else f"{int(vis * 1000) // 100 * 100:04d}")
            if vis < 3 and rng.random() < 0.6:
                toks.append(rng.choice(["BR", "-RA", "FG", "-SN", "RA"]))
            cover = rng.random()
            if cover < 0.15:
                toks.append("CLR" if us else ("CAVOK" if vis >= 9.9 and rng.random() < 0.5 else "NSC"))
            else:
                base = int(rng.integers(5, 120))
                for cov in ("FEW", "SCT", "BKN", "OVC")[: 1 + int(cover * 4) % 4]:
                    toks.append(f"{cov}{base:03d}")
                    base += int(rng.integers(10, 80))
            temp_missing = rng.random() < 0.08
            if temp_missing:
                toks.append("/////" if rng.random() < 0.5 else "")
            else:
                toks.append(f"{_fmt_c(temp)}/{_fmt_c(dew)}" if rng.random() > 0.05 else f"{_fmt_c(temp)}/")
            if rng.random() < 0.07:
                pass  # altimeter missing
            elif us:
                toks.append(f"A{int(round(press / INHG_TO_HPA * 100)):04d}")
            else:
                toks.append(f"Q{int(round(press)):04d}")
            if us:
                rmk = ["RMK", "AO2" if "AUTO" in toks else "AO1", f"SLP{int(round(press * 10)) % 1000:03d}"]
                if not temp_missing and rng.random() < 0.8:
                    tt, dd = int(round(abs(temp) * 10)), int(round(abs(dew) * 10))
                    rmk.append(f"T{int(temp < 0)}{tt:03d}{int(dew < 0)}{dd:03d}")
                toks += rmk
            lines.append(" ".join(x for x in toks if x))
            # hourly routine reports, with the odd late or missing hour
            t += timedelta(minutes=60 if rng.random() > 0.05 else int(rng.choice([120, 180, 240])))
        reports[station] = lines
    return reports
