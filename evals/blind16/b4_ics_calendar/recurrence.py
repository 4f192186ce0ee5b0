"""RRULE expansion (FREQ=WEEKLY/MONTHLY with INTERVAL, BYDAY, BYMONTHDAY, COUNT, UNTIL) and EXDATE."""
import calendar
from datetime import datetime, timedelta

from icalendar_lite import parse_datetime, to_utc

WEEKDAYS = {"MO": 0, "TU": 1, "WE": 2, "TH": 3, "FR": 4, "SA": 5, "SU": 6}


def _until(rule, tzid):
    if "UNTIL" not in rule:
        return None
    value = rule["UNTIL"]
    dt, zone = parse_datetime(value, {"TZID": tzid})
    if zone == "UTC" and tzid != "UTC":
        return ("utc", dt)
    return ("local", dt)


def _weekly(dtstart, rule):
    interval = int(rule.get("INTERVAL", 1))
    days = sorted(WEEKDAYS[d] for d in rule["BYDAY"].split(",")) if "BYDAY" in rule else [dtstart.weekday()]
    week = dtstart - timedelta(days=dtstart.weekday())
    while True:
        for wd in days:
            occ = week + timedelta(days=wd)
            if occ >= dtstart:
                yield occ
        week += timedelta(weeks=interval)


def _monthly(dtstart, rule):
    interval = int(rule.get("INTERVAL", 1))
    days = [int(d) for d in rule["BYMONTHDAY"].split(",")] if "BYMONTHDAY" in rule else [dtstart.day]
    year, month = dtstart.year, dtstart.month
    while True:
        last = calendar.monthrange(year, month)[1]
        resolved = sorted({d if d > 0 else last + 1 + d for d in days if -last <= d <= last and d != 0})
        for day in resolved:
            occ = datetime(year, month, day, dtstart.hour, dtstart.minute, dtstart.second)
            if occ >= dtstart:
                yield occ
        month += interval
        while month > 12:
            month -= 12
            year += 1


def occurrences(event, limit_utc):
    """Yield (start_utc, end_utc) of every instance starting before limit_utc, in RFC order from DTSTART."""
    dtstart, tzid, duration = event["dtstart"], event["tzid"], event["duration"]
    rule = event.get("rrule")
    if rule is None:
        start = to_utc(dtstart, tzid)
        if start < limit_utc:
            yield start, start + duration
        return
    gen = _weekly(dtstart, rule) if rule["FREQ"] == "WEEKLY" else _monthly(dtstart, rule)
    count = int(rule["COUNT"]) if "COUNT" in rule else None
    until = _until(rule, tzid)
    n = 0
    for local in gen:
        start = to_utc(local, tzid)
        if until is not None and (start if until[0] == "utc" else local) > until[1]:
            return
        if start >= limit_utc:
            return
        n += 1  # EXDATE instances still count towards COUNT
        if local not in event["exdates"]:
            local_end = local + duration
            yield start, to_utc(local_end, tzid)
        if count is not None and n >= count:
            return
