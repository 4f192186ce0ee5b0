"""Europe/London civil time without tzdata: GMT, and BST from 01:00 UTC on the last Sunday of March
to 01:00 UTC on the last Sunday of October."""
import calendar
from datetime import date, datetime, timedelta, timezone

HOUR = timedelta(hours=1)


def last_sunday(year, month):
    last = calendar.monthrange(year, month)[1]
    d = date(year, month, last)
    return d - timedelta(days=(d.weekday() - 6) % 7)


def bst_window(year):
    start = datetime.combine(last_sunday(year, 3), datetime.min.time(), timezone.utc) + HOUR
    end = datetime.combine(last_sunday(year, 10), datetime.min.time(), timezone.utc) + HOUR
    return start, end


def utc_offset(utc_dt):
    start, end = bst_window(utc_dt.year)
    return HOUR if start <= utc_dt < end else timedelta(0)


def to_local(utc_dt):
    """Naive local wall time."""
    return (utc_dt + utc_offset(utc_dt)).replace(tzinfo=None)


def local_midnight_utc(day):
    """UTC instant of 00:00 local on `day` (midnight is never inside a UK transition)."""
    naive = datetime(day.year, day.month, day.day, tzinfo=timezone.utc)
    guess = naive - HOUR
    return naive - utc_offset(guess)
