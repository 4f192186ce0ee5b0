"""Synthetic e-invoices (UBL-flavoured XML) with planted fraud patterns, and their feature extraction."""
import datetime as dt
import random
import xml.etree.ElementTree as ET

VENDORS = [f"V{i:03d}" for i in range(40)]
COUNTRIES = ["DE", "FR", "NL", "IT", "ES", "PL"]
CURRENCIES = ["EUR", "USD", "GBP", "PLN"]
TAX_RATES = ["0.00", "0.07", "0.19", "0.21"]
LINE_FEATS = 6


def generate(n, seed):
    rng = random.Random(seed)
    docs, labels = [], []
    base = dt.date(2022, 1, 3)
    for k in range(n):
        fraud = rng.random() < 0.3
        issue = base + dt.timedelta(days=rng.randint(0, 700))
        if fraud and rng.random() < 0.5:
            issue += dt.timedelta(days=(5 - issue.weekday()) % 7)  # weekend issue date
        due = issue + dt.timedelta(days=rng.choice([14, 30, 45, 60] if not fraud else [1, 3, 7, 30]))
        lines, total = [], 0.0
        for j in range(rng.randint(20, 60)):
            qty = rng.randint(1, 20)
            price = round(rng.uniform(1, 400), 2)
            if fraud and rng.random() < 0.4:
                price = float(rng.choice([100, 250, 500, 1000]))
            tax = rng.choice(TAX_RATES)
            total += qty * price * (1 + float(tax))
            lines.append(f"<Line no=\"{j + 1}\"><Sku>SKU-{rng.randint(1000, 9999)}</Sku><Qty>{qty}</Qty>"
                         f"<UnitPrice>{price:.2f}</UnitPrice><Tax rate=\"{tax}\"/></Line>")
        stated = total * (rng.uniform(1.02, 1.15) if fraud and rng.random() < 0.5 else 1.0)
        docs.append(
            f"<Invoice id=\"INV-{k:06d}\"><Header><Vendor code=\"{rng.choice(VENDORS)}\" "
            f"country=\"{rng.choice(COUNTRIES)}\"/><IssueDate>{issue.isoformat()}</IssueDate>"
            f"<DueDate>{due.isoformat()}</DueDate><Currency>{rng.choice(CURRENCIES)}</Currency></Header>"
            f"<Lines>{''.join(lines)}</Lines><Total>{stated:.2f}</Total></Invoice>")
        labels.append(1.0 if fraud else 0.0)
    return docs, labels


def parse_invoice(xml_text, max_lines):
    """XML document -> (invoice-level feature list, per-line feature rows padded to max_lines, n_lines)."""
    root = ET.fromstring(xml_text)
    header = root.find("Header")
    vendor = header.find("Vendor")
    issue = dt.date.fromisoformat(header.findtext("IssueDate"))
    due = dt.date.fromisoformat(header.findtext("DueDate"))
    rows, computed = [], 0.0
    for line in root.find("Lines").findall("Line"):
        qty = int(line.findtext("Qty"))
        price = float(line.findtext("UnitPrice"))
        rate = float(line.find("Tax").get("rate"))
        amount = qty * price * (1 + rate)
        computed += amount
        rows.append([qty / 20.0, price / 400.0, rate * 4.0, amount / 10000.0,
                     1.0 if price == int(price) else 0.0, 1.0 if price % 50 == 0 else 0.0])
    stated = float(root.findtext("Total"))
    n = len(rows)
    amounts = [r[3] for r in rows]
    feats = [
        n / max_lines,
        stated / 100000.0,
        (stated - computed) / max(computed, 1e-6),
        max(amounts) * 10000.0 / max(computed, 1e-6),
        sum(r[4] for r in rows) / n,
        (due - issue).days / 60.0,
        1.0 if issue.weekday() >= 5 else 0.0,
        issue.month / 12.0,
    ]
    feats += [1.0 if vendor.get("country") == c else 0.0 for c in COUNTRIES]
    feats += [1.0 if header.findtext("Currency") == c else 0.0 for c in CURRENCIES]
    feats += [1.0 if int(vendor.get("code")[1:]) % 8 == b else 0.0 for b in range(8)]
    rows = rows[:max_lines] + [[0.0] * LINE_FEATS for _ in range(max_lines - min(n, max_lines))]
    return feats, rows, min(n, max_lines)
