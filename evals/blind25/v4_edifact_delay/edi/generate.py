"""Writes synthetic carrier manifests in UN/EDIFACT syntax (IFTMCS-like) plus the observed
arrival delay of each voyage.  One segment per line, as most carriers send them."""
import datetime as dt
import random

PORTS = {  # UN/LOCODE: (lat, lon)
    "NLRTM": (51.95, 4.14), "DEHAM": (53.54, 9.97), "BEANR": (51.26, 4.39), "GBFXT": (51.96, 1.35),
    "ESALG": (36.13, -5.44), "ITGOA": (44.41, 8.92), "USNYC": (40.68, -74.04), "USSAV": (32.08, -81.09),
    "CNSHA": (31.23, 121.49), "SGSIN": (1.26, 103.84), "AEJEA": (25.01, 55.06), "BRSSZ": (-23.96, -46.33),
}
ISO_TYPES = ["22G1", "42G1", "45G1", "45R1", "22R1", "22T6", "L5G1"]
CARRIERS = [("MSK", "MAERSK ESSEX"), ("CMA", "CMA CGM JULES VERNE"), ("HLC", "BERLIN EXPRESS"),
            ("MSC", "MSC OSCAR"), ("ONE", "ONE APUS"), ("EGL", "EVER GIVEN")]
GOODS = ["FROZEN FISH", "MACHINERY PARTS", "TEXTILES+GARMENTS", "WINE: RED", "AUTO PARTS",
         "PHARMA? TEMP CONTROLLED", "FURNITURE", "COFFEE BEANS", "LITHIUM BATTERIES", "PAPER ROLLS"]
COMPANIES = ["NORDIC SEAFOOD AS", "SCHMIDT + SOEHNE GMBH", "ACME MACHINERY LTD", "BODEGAS RIOJA: EXPORT",
             "SHANGHAI TEXTILE IMP?EXP CO", "PHARMACORP AG", "OAK & PINE FURNITURE", "CAFE DO BRASIL LTDA",
             "VOLTCELL ENERGY INC", "PAPIERFABRIK NORD KG", "O'NEILL LOGISTICS"]
STREETS = ["HARBOUR ROAD 12", "INDUSTRIESTRASSE 45-47", "AVENIDA PAULISTA 1000", "JURONG PORT RD 5",
           "RUE DU COMMERCE 8", "PIER 9: WAREHOUSE B", "NO. 88 PUDONG AVENUE"]
CITIES = [("ROTTERDAM", "3011AA", "NL"), ("HAMBURG", "20457", "DE"), ("SANTOS", "11010-000", "BR"),
          ("SINGAPORE", "619742", "SG"), ("ANTWERPEN", "2030", "BE"), ("SAVANNAH", "31401", "US"),
          ("SHANGHAI", "200120", "CN"), ("GENOVA", "16126", "IT")]
WEATHER = ["CALM SEAS", "ROUGH SEAS: NORTH ATLANTIC", "TYPHOON WARNING+REROUTE", "FOG AT PILOT STATION",
           "SWELL 4M", "NO REMARKS"]


def escape(text):
    out = []
    for ch in text:
        if ch in "?'+:":
            out.append("?")
        out.append(ch)
    return "".join(out)


def distance_nm(a, b):
    import math
    (la1, lo1), (la2, lo2) = PORTS[a], PORTS[b]
    p1, p2 = math.radians(la1), math.radians(la2)
    dl = math.radians(lo2 - lo1)
    return 3440.065 * math.acos(min(1.0, math.sin(p1) * math.sin(p2) + math.cos(p1) * math.cos(p2) * math.cos(dl)))


def make_message(rng, ref, min_containers, max_containers):
    pol, pod = rng.sample(sorted(PORTS), 2)
    scac, vessel = rng.choice(CARRIERS)
    imo = rng.randint(9100000, 9899999)
    etd = dt.datetime(2023, 1, 1) + dt.timedelta(hours=rng.randint(0, 24 * 364))
    nm = distance_nm(pol, pod)
    planned_h = nm / rng.uniform(14.0, 19.0) + rng.randint(12, 48)
    eta = etd + dt.timedelta(hours=round(planned_h))
    dep_delay = max(0, int(rng.gauss(6, 10)))
    atd = etd + dt.timedelta(hours=dep_delay)
    weather = rng.choice(WEATHER)
    n_cont = rng.randint(min_containers, max_containers)

    segs = [
        "UNB+UNOC:3+" + scac + "+PORTAUTH+" + etd.strftime("%y%m%d:%H%M") + "+" + f"{ref:08d}",
        f"UNH+1+IFTMCS:D:99B:UN",
        f"BGM+785+BKG{ref:07d}+9",
        f"TDT+20+V{rng.randint(100, 999)}{rng.choice('EWNS')}+1++{scac}:172:20+++{imo}:146:11:{escape(vessel)}",
        f"LOC+5+{pol}:139:6",
        f"LOC+61+{pod}:139:6",
        f"DTM+133:{etd:%Y%m%d%H%M}:203",
        f"DTM+132:{eta:%Y%m%d%H%M}:203",
        f"DTM+136:{atd:%Y%m%d%H%M}:203",
        f"FTX+AAI+++{escape(weather)}",
    ]
    reefers = dg = heavy = 0
    for k in range(n_cont):
        iso = rng.choice(ISO_TYPES)
        empty = rng.random() < 0.12
        tare = 2200 if iso.startswith("2") else 3800
        gross = tare + (0 if empty else rng.randint(2000, 26000))
        heavy += gross > 24000
        segs.append(f"EQD+CN+{scac}U{rng.randint(1000000, 9999999)}+{iso}:102:5++{4 if empty else 5}+5")
        segs.append(f"MEA+AAE+G+KGM:{gross}.{rng.randint(0, 9)}")
        segs.append(f"MEA+AAE+T+KGM:{tare}")
        if "R" in iso:
            reefers += 1
            segs.append(f"TMP+2+{rng.choice(['-18.0', '-25.0', '2.5', '5.0', '13.0'])}:CEL")
        if rng.random() < 0.06:
            dg += 1
            segs.append(f"DGS+IMD+{rng.choice(['3', '8', '9', '2.1'])}+{rng.randint(1000, 3500)}")
        segs.append(f"SEL+SL{rng.randint(100000, 999999)}+CA")
        for role in ("CZ", "CN"):
            city, postcode, country = rng.choice(CITIES)
            segs.append(f"NAD+{role}+++{escape(rng.choice(COMPANIES))}+{escape(rng.choice(STREETS))}"
                        f"+{city}++{postcode}+{country}")
        goods = rng.choice(GOODS)
        lines = [goods, f"{rng.randint(1, 40)} PALLETS, {rng.randint(100, 2000)} CARTONS",
                 f"HS CODE {rng.randint(10000000, 99999999)} SAID TO CONTAIN: {goods}"]
        lines.append(f"MARKS AND NUMBERS: {scac}/{ref}/{k + 1:03d} HANDLE WITH CARE")
        segs.append("FTX+AAA+++" + ":".join(escape(l) for l in lines[:rng.randint(2, 4)]))
    segs.append(f"CNT+16:{n_cont}")
    segs.append(f"UNT+{len(segs)}+1")
    segs.append(f"UNZ+1+{ref:08d}")
    text = "UNA:+.? '\n" + "".join(s + "'\n" for s in segs)

    # arrival delay (hours): weather, distance, congestion at destination, reefer plugs, DG checks
    wx = {"ROUGH SEAS: NORTH ATLANTIC": 18, "TYPHOON WARNING+REROUTE": 40, "FOG AT PILOT STATION": 8,
          "SWELL 4M": 6}.get(weather, 0)
    winter = 6 if etd.month in (12, 1, 2) else 0
    delay = (0.6 * dep_delay + wx + winter + nm / 900.0 + 0.25 * n_cont + 2.0 * dg
             + 0.5 * reefers + 0.3 * heavy + rng.gauss(0, 4))
    return text, delay


def build_manifests(seed, n_messages, min_containers, max_containers):
    rng = random.Random(seed)
    texts, delays = [], []
    for ref in range(n_messages):
        text, delay = make_message(rng, 1000 + ref, min_containers, max_containers)
        texts.append(text)
        delays.append(delay)
    return texts, delays
