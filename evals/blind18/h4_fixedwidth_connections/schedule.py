"""Fixed-width airline schedule records (a simplified SSIM type-3 layout) and their UTC conversion.

col  0     record type 'L' (H = header, T = trailer, '#' comment)
col  1-3   carrier, left-justified
col  4-7   flight number, zero-padded
col  8-14  days of operation, '1234567' with blanks
col 15-17  origin IATA      col 18-21 departure local HHMM
col 22-24  destination IATA col 25-28 arrival local HHMM   col 29-30 arrival day offset (+0, +1, -1)
col 31-33  equipment        col 34-36 seats               col 37-39 booked passengers
"""
import datetime as dt
import random
from dataclasses import dataclass

# standard-time UTC offsets in minutes
AIRPORTS = {
    "LHR": 0, "MAD": 60, "CDG": 60, "FRA": 60, "AMS": 60, "JNB": 120, "IST": 180, "DOH": 180, "NBO": 180,
    "THR": 210, "DXB": 240, "KBL": 270, "DEL": 330, "BOM": 330, "CCU": 330, "KTM": 345, "SIN": 480,
    "HKG": 480, "NRT": 540, "ADL": 570, "SYD": 600, "AKL": 720, "YYT": -210, "GRU": -180, "SCL": -240,
    "JFK": -300, "YYZ": -300, "ORD": -360, "DEN": -420, "LAX": -480,
}
HUBS = ["LHR", "FRA", "DXB", "SIN", "JFK", "DOH", "IST", "ORD"]
CARRIERS = ["BA", "LH", "EK", "SQ", "AA", "QR", "TK", "UA"]
EQUIPMENT = {"320": 180, "321": 220, "738": 189, "789": 296, "77W": 354, "359": 325, "388": 489, "E90": 100}
WEEK_START = dt.datetime(2026, 3, 2)  # a Monday; day 1 of the days-of-operation field
WEEK_MIN = 7 * 1440


@dataclass
class Leg:
    carrier: str
    number: int
    days: list
    origin: str
    dest: str
    dep_local: int  # minutes after local midnight
    arr_local: int
    arr_offset: int
    equipment: str
    seats: int
    booked: int

    def departures_utc(self):
        """(day, minute of the UTC week) of each operated departure."""
        return [(d, to_utc_week_minute(d, self.dep_local, AIRPORTS[self.origin])) for d in self.days]

    def arrival_utc(self, day):
        return to_utc_week_minute(day + self.arr_offset, self.arr_local, AIRPORTS[self.dest])


def to_utc_week_minute(day, local_minute, offset):
    """Local wall-clock time on schedule day `day` (1 = Monday) to minutes into the UTC week."""
    tz = dt.timezone(dt.timedelta(minutes=offset))
    local = (WEEK_START + dt.timedelta(days=day - 1, minutes=local_minute)).replace(tzinfo=tz)
    utc = local.astimezone(dt.timezone.utc).replace(tzinfo=None)
    return int((utc - WEEK_START).total_seconds() // 60) % WEEK_MIN


def parse_record(line):
    if not line.startswith("L"):
        return None
    return Leg(
        carrier=line[1:4].rstrip(),
        number=int(line[4:8]),
        days=[int(ch) for ch in line[8:15] if ch != " "],
        origin=line[15:18],
        dep_local=int(line[18:20]) * 60 + int(line[20:22]),
        dest=line[22:25],
        arr_local=int(line[25:27]) * 60 + int(line[27:29]),
        arr_offset=int(line[29:31]),
        equipment=line[31:34],
        seats=int(line[34:37]),
        booked=int(line[37:40]),
    )


def synth_schedule(num_legs, seed):
    """The text of a schedule file: header, `num_legs` leg records, a few comments, trailer."""
    r = random.Random(seed)
    codes = sorted(AIRPORTS)
    lines = [f"H{'SCHEDULE':<10}{WEEK_START:%d%b%y}".upper()]
    block = {}
    for n in range(num_legs):
        if n % 400 == 0:
            lines.append(f"# season block {n // 400}")
        carrier = r.choice(CARRIERS)
        if r.random() < 0.6:
            origin = r.choice(HUBS)
            dest = r.choice([c for c in codes if c != origin])
        else:
            origin = r.choice(codes)
            dest = r.choice([h for h in HUBS if h != origin])
        if r.random() < 0.5:
            origin, dest = dest, origin
        key = tuple(sorted((origin, dest)))
        if key not in block:
            block[key] = r.randrange(55, 960, 5)
        dep = r.choice([r.randrange(0, 1440, 5), r.choice([360, 420, 480, 780, 840, 1260, 1320]) + r.randrange(0, 60, 5)])
        arr_total = dep + block[key] + AIRPORTS[dest] - AIRPORTS[origin]
        arr_offset, arr = divmod(arr_total, 1440)
        days = "".join(str(d) if r.random() < 0.7 else " " for d in range(1, 8))
        if not days.strip():
            days = "1      "
        eq = r.choice(list(EQUIPMENT))
        seats = EQUIPMENT[eq]
        booked = min(seats, max(0, int(seats * r.betavariate(6, 2))))
        lines.append(
            f"L{carrier:<3}{r.randrange(1, 9999):04d}{days}{origin}{dep // 60:02d}{dep % 60:02d}"
            f"{dest}{arr // 60:02d}{arr % 60:02d}{arr_offset:+d}{eq}{seats:03d}{booked:03d}"
        )
    lines.append(f"T{num_legs:06d}")
    return "\n".join(lines)
