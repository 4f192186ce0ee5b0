"""Parsing of the POS CSV exports (no pandas)."""
import csv
import datetime as dt
import io


def parse_price_log(text):
    """-> list of (date, price, regular_price, promo_type) rows in file order."""
    rows = []
    for rec in csv.DictReader(io.StringIO(text)):
        day = dt.datetime.strptime(rec["effective_date"], "%Y-%m-%d").date()
        rows.append((day, float(rec["price"]), float(rec["regular_price"]), rec["promo_type"]))
    return rows


def parse_sales_log(text):
    """-> {date: units}; days without sales are absent."""
    units = {}
    for rec in csv.DictReader(io.StringIO(text)):
        day = dt.datetime.strptime(rec["date"], "%m/%d/%Y").date()
        units[day] = units.get(day, 0) + int(rec["units"])
    return units


def price_on(rows, day):
    """The price in effect on `day`: the latest change on or before it; a later row wins a same-day tie."""
    best = None
    for row in rows:
        if row[0] <= day and (best is None or row[0] >= best[0]):
            best = row
    return best


def forward_fill(rows, first_day, n_days):
    """Daily (price, regular, on_promo) from first_day for n_days."""
    out = []
    for k in range(n_days):
        day = first_day + dt.timedelta(days=k)
        row = price_on(rows, day)
        if row is None:
            out.append(None)
        else:
            out.append((row[1], row[2], row[3] != "NONE"))
    return out
