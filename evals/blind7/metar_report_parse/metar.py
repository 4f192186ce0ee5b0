"""Minimal METAR decoder and the per-report feature vector used by the nowcaster."""
import math
import re

COVER_OKTAS = {"FEW": 2, "SCT": 4, "BKN": 6, "OVC": 8}
WX_RATE = {"-": 0.5, "": 1.0, "+": 2.0}


def _temp(s):
    return -int(s[1:]) if s.startswith("M") else int(s)


def parse_metar(text):
    body = text.split(" RMK ")[0]
    tokens = body.split()
    rep = {
        "station": tokens[1], "hour": 0, "auto": False, "wind_dir": None, "wind_kt": 0, "gust_kt": 0,
        "vis_m": 9999, "wx": [], "layers": [], "temp": None, "dew": None, "qnh": None, "cavok": False,
    }
    for tok in tokens[2:]:
        if re.fullmatch(r"\d{6}Z", tok):
            rep["hour"] = int(tok[2:4])
        elif tok == "AUTO":
            rep["auto"] = True
        elif m := re.fullmatch(r"(\d{3}|VRB)(\d{2,3})(?:G(\d{2,3}))?KT", tok):
            rep["wind_dir"] = None if m.group(1) == "VRB" else int(m.group(1))
            rep["wind_kt"] = int(m.group(2))
            rep["gust_kt"] = int(m.group(3)) if m.group(3) else 0
        elif tok == "CAVOK":
            rep["cavok"] = True
        elif re.fullmatch(r"\d{4}", tok):
            rep["vis_m"] = int(tok)
        elif m := re.fullmatch(r"(FEW|SCT|BKN|OVC)(\d{3})", tok):
            rep["layers"].append((m.group(1), int(m.group(2)) * 100))
        elif m := re.fullmatch(r"([-+]?)(RA|DZ|SN|BR|FG|TS)", tok):
            rep["wx"].append((m.group(1), m.group(2)))
        elif m := re.fullmatch(r"(M?\d{2})/(M?\d{2})", tok):
            rep["temp"], rep["dew"] = _temp(m.group(1)), _temp(m.group(2))
        elif m := re.fullmatch(r"Q(\d{4})", tok):
            rep["qnh"] = int(m.group(1))
        # NSC, NOSIG, BECMG and anything unknown are ignored
    return rep


def relative_humidity(temp, dew):
    """Magnus formula, percent."""
    a, b = 17.625, 243.04
    return 100.0 * math.exp(a * dew / (b + dew)) / math.exp(a * temp / (b + temp))


def report_features(rep):
    temp, dew = rep["temp"], rep["dew"]
    if rep["wind_dir"] is None:
        u = v = 0.0
    else:
        rad = math.radians(rep["wind_dir"])
        u, v = -rep["wind_kt"] * math.sin(rad), -rep["wind_kt"] * math.cos(rad)
    ceilings = [h for cover, h in rep["layers"] if cover in ("BKN", "OVC")]
    ceiling = min(ceilings) if ceilings else 20000
    oktas = max((COVER_OKTAS[c] for c, _ in rep["layers"]), default=0)
    precip = sum(WX_RATE[i] for i, w in rep["wx"] if w in ("RA", "DZ", "SN"))
    obscured = any(w in ("BR", "FG") for _, w in rep["wx"])
    return [
        temp / 10.0,
        dew / 10.0,
        (temp - dew) / 5.0,
        relative_humidity(temp, dew) / 100.0,
        u / 10.0,
        v / 10.0,
        (rep["gust_kt"] - rep["wind_kt"]) / 10.0 if rep["gust_kt"] else 0.0,
        math.log10(max(rep["vis_m"], 50)) - 3.0,
        math.log10(ceiling) - 3.0,
        oktas / 8.0,
        (rep["qnh"] - 1013) / 10.0,
        precip,
        1.0 if obscured else 0.0,
        1.0 if rep["cavok"] else 0.0,
        math.sin(2 * math.pi * rep["hour"] / 24),
        math.cos(2 * math.pi * rep["hour"] / 24),
    ]


N_FEATURES = 16
