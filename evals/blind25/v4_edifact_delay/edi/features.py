"""Voyage-level features from a parsed manifest."""
import math
from datetime import datetime

import numpy as np

from .generate import PORTS, distance_nm
from .parser import EdifactReader

DATE_FORMATS = {"203": "%Y%m%d%H%M", "102": "%Y%m%d"}
FEATURE_NAMES = ["log_containers", "gross_kt", "mean_gross_t", "reefer_frac", "dg_frac", "frac_45",
                 "empty_frac", "planned_h", "dep_delay_h", "month_sin", "month_cos", "distance_kn",
                 "weather_rough", "weather_storm", "mean_reefer_temp", "heavy_frac", "shippers_per_box"]


def parse_date(value, fmt_code):
    return datetime.strptime(value, DATE_FORMATS[fmt_code])


def voyage_features(message):
    reader = EdifactReader(message)
    dates, ports = {}, {}
    n = reefers = dg = long_boxes = empties = heavy = 0
    gross_total = 0.0
    temps = []
    shippers = set()
    weather = ""
    for seg in reader.segments():
        if seg.tag == "DTM":
            dates[seg.get(0, 0)] = parse_date(seg.get(0, 1), seg.get(0, 2))
        elif seg.tag == "LOC":
            ports[seg.get(0, 0)] = seg.get(1, 0)
        elif seg.tag == "EQD":
            n += 1
            iso = seg.get(2, 0)
            long_boxes += iso.startswith(("4", "L"))
            empties += seg.get(4, 0) == "4"
        elif seg.tag == "MEA" and seg.get(1, 0) == "G":
            gross = reader.number(seg.get(2, 1))
            gross_total += gross
            heavy += gross > 24000
        elif seg.tag == "TMP":
            reefers += 1
            temps.append(reader.number(seg.get(1, 0)))
        elif seg.tag == "NAD" and seg.get(0, 0) == "CZ":
            shippers.add(seg.get(3, 0))
        elif seg.tag == "DGS":
            dg += 1
        elif seg.tag == "FTX" and seg.get(0, 0) == "AAI":
            weather = seg.get(3, 0)
    etd, eta, atd = dates["133"], dates["132"], dates["136"]
    planned = (eta - etd).total_seconds() / 3600.0
    dep_delay = (atd - etd).total_seconds() / 3600.0
    month = etd.month
    dist = distance_nm(ports["5"], ports["61"]) if ports["5"] in PORTS and ports["61"] in PORTS else 0.0
    feats = [
        math.log1p(n), gross_total / 1e6, gross_total / max(n, 1) / 1e3, reefers / max(n, 1),
        dg / max(n, 1), long_boxes / max(n, 1), empties / max(n, 1), planned / 100.0, dep_delay / 10.0,
        math.sin(2 * math.pi * month / 12), math.cos(2 * math.pi * month / 12), dist / 1000.0,
        float("ROUGH" in weather or "SWELL" in weather), float("TYPHOON" in weather),
        (sum(temps) / len(temps) / 10.0) if temps else 0.0, heavy / max(n, 1), len(shippers) / max(n, 1),
    ]
    return np.asarray(feats, dtype=np.float32)
