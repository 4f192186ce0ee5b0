"""Field parsers for the claims export."""
import math
import re
from datetime import date, datetime

_MONEY = re.compile(r"^\s*(?:USD|\$)?\s*(-)?\s*([\d,]+(?:\.\d+)?)\s*$")
_DATE_FORMATS = ("%Y-%m-%d", "%m/%d/%Y", "%d %b %Y")
EPOCH = date(2015, 1, 1)


def parse_money(text):
    if not text:
        return math.nan
    m = _MONEY.match(text)
    if m is None:
        raise ValueError(f"bad amount: {text!r}")
    value = float(m.group(2).replace(",", ""))
    return -value if m.group(1) else value


def parse_percent(text):
    if not text:
        return math.nan
    text = text.strip()
    return float(text[:-1]) / 100.0 if text.endswith("%") else float(text)


def parse_date(text):
    for fmt in _DATE_FORMATS:
        try:
            return datetime.strptime(text, fmt).date()
        except ValueError:
            continue
    raise ValueError(f"bad date: {text!r}")


def days_since_epoch(d):
    return (d - EPOCH).days
