"""QIF record parsing, payee normalisation and rule-based categorisation."""
import datetime
import re
import zlib
from decimal import Decimal, InvalidOperation

DATE_FORMATS = ["%m/%d/%y", "%m/%d/%Y", "%d.%m.%Y", "%Y-%m-%d", "%d/%m/%Y"]

PAYEE_CLEANUP = [
    (r"^(POS PURCHASE|DEBIT CARD PURCHASE|CHECKCARD|ACH DEBIT|RECURRING PYMT)\s+", ""),
    (r"^(SQ|TST|PAYPAL)\s?\*\s?", ""),
    (r"\s+#\d+", ""),
    (r"\s+(SAN FRANCISCO|OAKLAND|SEATTLE|NEW YORK|AUSTIN|CHICAGO|DENVER)\s+[A-Z]{2}$", ""),
    (r"\s+[A-Z]{2}$", ""),
    (r"\.COM(/BILL)?\b", ""),
    (r"[^A-Z0-9& ]", " "),
    (r"\s{2,}", " "),
]

CATEGORY_RULES = [
    (r"\bPAYROLL\b", "income:salary"), (r"\bINTEREST\b", "income:interest"), (r"\bMOBILE DEPOSIT\b", "income:other"),
    (r"COFFEE|STARBUCKS|PEETS", "food:coffee"), (r"SAFEWAY|TRADER JOE|WHOLE FOODS|KROGER", "food:groceries"),
    (r"COSTCO|WALMART|TARGET", "shopping:general"), (r"CHIPOTLE|MCDONALD|SWEETGREEN", "food:restaurants"),
    (r"DOORDASH", "food:delivery"), (r"CHEVRON|SHELL", "transport:fuel"), (r"UBER|LYFT", "transport:rideshare"),
    (r"BART|CLIPPER|PARKING", "transport:transit"), (r"NETFLIX|SPOTIFY|HULU|APPLE", "bills:subscriptions"),
    (r"AMAZON|AMZN", "shopping:online"), (r"BEST BUY", "shopping:electronics"), (r"HOME DEPOT", "home:improvement"),
    (r"PG&E|PG E", "bills:utilities"), (r"COMCAST|XFINITY|VERIZON", "bills:telecom"),
    (r"CVS|WALGREENS", "health:pharmacy"), (r"KAISER", "health:medical"),
    (r"AIR ?LINES|AIRLINES|MARRIOTT|AIRBNB", "travel"), (r"FITNESS", "health:fitness"),
    (r"VENMO|ZELLE", "transfer:p2p"), (r"ATM", "cash"), (r"GEICO|STATE FARM", "bills:insurance"),
    (r"PROPERTY MGMT|LANDLORD", "home:rent"), (r"IRS|TREAS", "taxes"),
]
CATEGORIES = ["uncategorized"] + sorted({c for _, c in CATEGORY_RULES})
CATEGORY_ID = {c: i for i, c in enumerate(CATEGORIES)}


def split_records(text):
    """QIF text -> list of raw record strings (header line dropped)."""
    body = text.split("\n", 1)[1] if text.startswith("!") else text
    return [r.strip("\n") for r in body.split("^") if r.strip()]


def parse_date(s):
    s = s.replace("'", "/").replace(" ", "")
    for fmt in DATE_FORMATS:
        try:
            return datetime.datetime.strptime(s, fmt).date()
        except ValueError:
            continue
    raise ValueError(f"unparseable date {s!r}")


def parse_amount(s):
    s = s.strip()
    neg = s.startswith("(") and s.endswith(")")
    if neg:
        s = s[1:-1]
    if re.fullmatch(r"-?\d{1,3}(\.\d{3})*,\d{2}", s):        # 1.234,56
        s = s.replace(".", "").replace(",", ".")
    else:
        s = s.replace(",", "")
    try:
        value = Decimal(s)
    except InvalidOperation as exc:
        raise ValueError(f"bad amount {s!r}") from exc
    return -value if neg else value


def normalize_payee(raw):
    name = raw.upper().strip()
    for pattern, repl in PAYEE_CLEANUP:
        name = re.sub(pattern, repl, name)
    return name.strip()


def categorize(name):
    for pattern, category in CATEGORY_RULES:
        if re.search(pattern, name):
            return category
    return "uncategorized"


def parse_record(rec):
    """One raw record -> (date, Decimal amount, normalised payee, category id, merchant bucket)."""
    fields = {}
    for line in rec.splitlines():
        if line:
            fields.setdefault(line[0], line[1:])
    date = parse_date(fields["D"])
    amount = parse_amount(fields.get("T", fields.get("U", "0")))
    payee = normalize_payee(fields.get("P", ""))
    category = CATEGORY_ID[categorize(payee)]
    bucket = zlib.crc32(payee.encode()) % 1024
    return date, amount, payee, category, bucket
