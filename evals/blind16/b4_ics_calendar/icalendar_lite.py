"""Just enough RFC 5545 for synthetic calendars: folding, content lines, VEVENT properties, zones."""
import calendar
import re
from datetime import datetime, timedelta

_PARAM_RE = re.compile(r'([A-Za-z-]+)=("[^"]*"|[^;:]*)')
_DUR_RE = re.compile(r"^([+-])?P(?:(\d+)W)?(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+)S)?)?$")

# name: (standard offset, DST offset, rule) in minutes east of UTC
ZONES = {
    "Europe/Berlin": (60, 120, "EU"),
    "Europe/London": (0, 60, "EU"),
    "America/New_York": (-300, -240, "US"),
    "America/Los_Angeles": (-480, -420, "US"),
    "Asia/Tokyo": (540, 540, None),
    "Asia/Kolkata": (330, 330, None),
    "UTC": (0, 0, None),
}


def unfold(text):
    """Join continuation lines (CRLF followed by a space or tab)."""
    return re.sub(r"\r\n[ \t]", "", text).split("\r\n")


def fold(line, limit=75):
    out = []
    while len(line.encode()) > limit:
        cut = limit
        while len(line[:cut].encode()) > limit:
            cut -= 1
        out.append(line[:cut])
        line = " " + line[cut:]
    out.append(line)
    return "\r\n".join(out)


def unescape(value):
    return value.replace("\\n", "\n").replace("\\N", "\n").replace("\\,", ",").replace("\\;", ";").replace("\\\\", "\\")


def parse_line(line):
    """NAME;PARAM=V;PARAM="V":VALUE -> (name, params, value); colons inside quoted params are kept."""
    in_quote = False
    for i, ch in enumerate(line):
        if ch == '"':
            in_quote = not in_quote
        elif ch == ":" and not in_quote:
            head, value = line[:i], line[i + 1:]
            break
    else:
        raise ValueError(f"no value in content line {line!r}")
    name, _, rest = head.partition(";")
    params = {k.upper(): v.strip('"') for k, v in _PARAM_RE.findall(rest)}
    return name.upper(), params, value


def parse_datetime(value, params):
    """-> (naive local datetime, tzid); a trailing Z means UTC."""
    if "T" not in value:
        return datetime.strptime(value, "%Y%m%d"), params.get("TZID", "UTC")
    if value.endswith("Z"):
        return datetime.strptime(value[:-1], "%Y%m%dT%H%M%S"), "UTC"
    return datetime.strptime(value, "%Y%m%dT%H%M%S"), params.get("TZID", "UTC")


def parse_duration(value):
    m = _DUR_RE.match(value)
    if not m:
        raise ValueError(value)
    sign, w, d, h, mi, s = m.groups()
    delta = timedelta(weeks=int(w or 0), days=int(d or 0), hours=int(h or 0), minutes=int(mi or 0),
                      seconds=int(s or 0))
    return -delta if sign == "-" else delta


def parse_rrule(value):
    rule = {}
    for part in value.split(";"):
        key, _, val = part.partition("=")
        rule[key.upper()] = val
    return rule


def parse_calendar(text):
    events, current = [], None
    for line in unfold(text):
        if not line:
            continue
        name, params, value = parse_line(line)
        if name == "BEGIN" and value == "VEVENT":
            current = {"exdates": set()}
        elif name == "END" and value == "VEVENT":
            if "duration" not in current:
                current["duration"] = current.pop("dtend") - current["dtstart"]
            events.append(current)
            current = None
        elif current is None:
            continue
        elif name == "DTSTART":
            current["dtstart"], current["tzid"] = parse_datetime(value, params)
        elif name == "DTEND":
            current["dtend"], _ = parse_datetime(value, params)
        elif name == "DURATION":
            current["duration"] = parse_duration(value)
        elif name == "RRULE":
            current["rrule"] = parse_rrule(value)
        elif name == "EXDATE":
            for v in value.split(","):
                current["exdates"].add(parse_datetime(v, params)[0])
        elif name in ("SUMMARY", "DESCRIPTION", "LOCATION", "UID"):
            current[name.lower()] = unescape(value)
    return events


def _nth_sunday(year, month, n):
    weeks = calendar.monthcalendar(year, month)
    sundays = [w[6] for w in weeks if w[6]]
    return sundays[n] if n >= 0 else sundays[n]


def utc_offset_minutes(tzid, local):
    """Offset of a zone at a naive local time (ambiguous/nonexistent hours resolve to standard time)."""
    std, dst, rule = ZONES[tzid]
    if rule is None:
        return std
    y = local.year
    if rule == "EU":
        start = datetime(y, 3, _nth_sunday(y, 3, -1), 2)
        end = datetime(y, 10, _nth_sunday(y, 10, -1), 2)
    else:
        start = datetime(y, 3, _nth_sunday(y, 3, 1), 2)
        end = datetime(y, 11, _nth_sunday(y, 11, 0), 1)
    return dst if start <= local < end else std


def to_utc(local, tzid):
    return local - timedelta(minutes=utc_offset_minutes(tzid, local))


def from_utc(utc, tzid):
    std, _, _ = ZONES[tzid]
    guess = utc + timedelta(minutes=std)
    return utc + timedelta(minutes=utc_offset_minutes(tzid, guess))
