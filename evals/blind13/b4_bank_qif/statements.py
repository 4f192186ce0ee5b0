"""Synthetic bank exports in QIF (Quicken Interchange Format): one multi-line record per transaction,
fields keyed by their first letter (D date, T amount, P payee, M memo, N check/ref number), `^` ends
a record. Banks disagree on date and amount formats, and payee strings carry processor prefixes,
store numbers and locations."""
import random

MERCHANTS = [
    ("BLUE BOTTLE COFFEE", 4.5, 2.0), ("STARBUCKS", 6.0, 2.5), ("PEETS COFFEE", 5.0, 2.0),
    ("SAFEWAY", 62.0, 35.0), ("TRADER JOE S", 48.0, 25.0), ("WHOLE FOODS MARKET", 71.0, 40.0),
    ("COSTCO WHSE", 140.0, 70.0), ("KROGER", 55.0, 30.0), ("CHEVRON", 48.0, 15.0), ("SHELL OIL", 45.0, 15.0),
    ("UBER TRIP", 18.0, 9.0), ("LYFT RIDE", 16.0, 8.0), ("BART CLIPPER", 20.0, 10.0),
    ("NETFLIX.COM", 15.49, 0.0), ("SPOTIFY USA", 10.99, 0.0), ("HULU", 7.99, 0.0),
    ("AMAZON MKTPLACE PMTS", 35.0, 30.0), ("AMZN DIGITAL", 9.0, 5.0), ("TARGET", 42.0, 25.0),
    ("WALMART SUPERCENTER", 38.0, 22.0), ("BEST BUY", 120.0, 90.0), ("HOME DEPOT", 85.0, 60.0),
    ("CHIPOTLE", 13.0, 4.0), ("MCDONALDS", 9.0, 3.0), ("SWEETGREEN", 15.0, 3.0), ("DOORDASH", 32.0, 12.0),
    ("PG&E", 120.0, 40.0), ("COMCAST XFINITY", 89.0, 0.0), ("VERIZON WIRELESS", 75.0, 5.0),
    ("CVS PHARMACY", 22.0, 15.0), ("WALGREENS", 18.0, 12.0), ("KAISER PERMANENTE", 40.0, 20.0),
    ("DELTA AIR LINES", 380.0, 150.0), ("UNITED AIRLINES", 410.0, 160.0), ("MARRIOTT HOTELS", 240.0, 90.0),
    ("AIRBNB", 310.0, 120.0), ("PLANET FITNESS", 24.99, 0.0), ("APPLE.COM/BILL", 2.99, 4.0),
    ("VENMO", 40.0, 30.0), ("ZELLE TO J SMITH", 60.0, 40.0), ("ATM WITHDRAWAL", 100.0, 60.0),
    ("GEICO AUTO", 112.0, 0.0), ("STATE FARM INS", 98.0, 0.0), ("CITY OF SF PARKING", 6.0, 3.0),
    ("LANDLORD PROPERTY MGMT", 2400.0, 0.0), ("IRS TREAS 310", 450.0, 300.0),
]
INCOME = [("ACME CORP PAYROLL", 3150.0, 80.0), ("INTEREST PAYMENT", 1.8, 1.0), ("MOBILE DEPOSIT", 220.0, 150.0)]
PREFIXES = ["", "", "POS PURCHASE ", "DEBIT CARD PURCHASE ", "CHECKCARD ", "SQ *", "TST* ", "PAYPAL *",
            "ACH DEBIT ", "RECURRING PYMT "]
CITIES = ["SAN FRANCISCO CA", "OAKLAND CA", "SEATTLE WA", "NEW YORK NY", "AUSTIN TX", "CHICAGO IL", "DENVER CO"]
DATE_STYLES = ["quicken", "us4", "eu", "iso"]
AMOUNT_STYLES = ["us", "us", "eu", "paren"]


def _fmt_date(d, style):
    if style == "quicken":
        return f"{d.month}/{d.day:2d}'{d.year % 100:02d}"
    if style == "us4":
        return f"{d.month:02d}/{d.day:02d}/{d.year}"
    if style == "eu":
        return f"{d.day:02d}.{d.month:02d}.{d.year}"
    return d.isoformat()


def _fmt_amount(x, style):
    neg = x < 0
    body = f"{abs(x):,.2f}"
    if style == "eu":
        body = body.replace(",", "_").replace(".", ",").replace("_", ".")
    if neg:
        return f"({body})" if style == "paren" else "-" + body
    return body


def make_account(rng, start_date, n_tx):
    import datetime as dt
    date_style = rng.choice(DATE_STYLES)
    amount_style = rng.choice(AMOUNT_STYLES)
    favourites = rng.sample(MERCHANTS, 18)
    weights = [1.0 / (i + 1) for i in range(len(favourites))]
    day = start_date
    records = []
    for k in range(n_tx):
        day += dt.timedelta(days=rng.choice([0, 0, 0, 1, 1, 2, 3]))
        if rng.random() < 0.06:
            name, mu, sd = rng.choice(INCOME)
            amount = round(max(0.5, rng.gauss(mu, sd)), 2)
        else:
            name, mu, sd = rng.choices(favourites, weights=weights)[0]
            amount = -round(max(0.5, rng.gauss(mu, sd)), 2)
        payee = rng.choice(PREFIXES) + name
        if rng.random() < 0.5:
            payee += f" #{rng.randint(100, 99999)}"
        if rng.random() < 0.6:
            payee += " " + rng.choice(CITIES)
        lines = [f"D{_fmt_date(day, date_style)}", f"T{_fmt_amount(amount, amount_style)}", f"P{payee}"]
        if rng.random() < 0.3:
            lines.append(f"MCard {rng.randint(1000, 9999)}")
        if rng.random() < 0.2:
            lines.append(f"N{rng.randint(1000, 9999)}")
        records.append("\n".join(lines) + "\n^")
    return "!Type:Bank\n" + "\n".join(records) + "\n"
