"""A synthetic mbox export: RFC 822 messages with encoded-word subjects and quoted-printable bodies."""
import quopri
import random
from email.header import Header
from email.utils import format_datetime
from datetime import datetime, timedelta, timezone

FOLDERS = ["inbox", "newsletters", "receipts", "mailing-list", "spam"]
VOCAB = {
    "inbox": "meeting tomorrow lunch call thanks draft review notes family weekend plan question".split(),
    "newsletters": "weekly digest edition issue unsubscribe read more stories trending top picks".split(),
    "receipts": "order total paid invoice receipt shipping delivered amount card refund tax".split(),
    "mailing-list": "patch thread reply bug release merge commit list archive subscribe version".split(),
    "spam": "winner prize free offer click urgent claim money limited casino bonus crypto".split(),
}
COMMON = "the a and to of for on in with your this that is are we you it".split()
DOMAINS = {
    "inbox": ["gmail.com", "posteo.de", "example.org"],
    "newsletters": ["news.example.com", "mailer.substack.test", "digest.example.net"],
    "receipts": ["shop.example.com", "billing.example.io", "orders.market.test"],
    "mailing-list": ["lists.kernel.test", "python.test", "lists.debian.test"],
    "spam": ["promo-deals.test", "xn--win-prize.test", "bulk.example.biz"],
}
ACCENTED = ["café", "Grüße", "naïve", "déjà vu", "€", "Straße", "señor", "résumé"]


def _words(rng, folder, n):
    pool = VOCAB[folder] * 3 + COMMON * 2 + [w for f in FOLDERS for w in VOCAB[f]]
    out = [rng.choice(pool) for _ in range(n)]
    if rng.random() < 0.5:
        out.insert(rng.randrange(len(out) + 1), rng.choice(ACCENTED))
    return out


def build_mbox(n_messages, min_lines, max_lines, seed):
    rng = random.Random(seed)
    t0 = datetime(2025, 3, 1, tzinfo=timezone.utc)
    chunks, labels = [], []
    for k in range(n_messages):
        folder = rng.choice(FOLDERS)
        sender = f"{rng.choice(['ana', 'bo', 'chen', 'dmitri', 'eve', 'noreply', 'info'])}@{rng.choice(DOMAINS[folder])}"
        when = t0 + timedelta(minutes=rng.randrange(60 * 24 * 90))
        subject = " ".join(_words(rng, folder, rng.randint(3, 8))).capitalize()
        hops = rng.randint(1, 6) + (2 if folder in ("spam", "newsletters") else 0)
        lines = [" ".join(_words(rng, folder, rng.randint(6, 16))) for _ in range(rng.randint(min_lines, max_lines))]
        body = quopri.encodestring("\n".join(lines).encode("utf-8")).decode("ascii")
        headers = [f"From {sender} {when.strftime('%a %b %d %H:%M:%S %Y')}"]
        for h in range(hops):
            relay = f"mx{h}.relay{rng.randint(1, 40)}.example.net"
            headers.append(f"Received: from {relay} ([10.{h}.{rng.randint(0, 255)}.{rng.randint(1, 254)}])\n"
                           f"\tby mx.local with ESMTPS id {rng.getrandbits(40):010x};\n"
                           f"\t{format_datetime(when - timedelta(seconds=5 * h))}")
        headers += [
            f"From: {sender}",
            "To: me@home.example",
            f"Subject: {Header(subject, 'utf-8').encode()}",
            f"Date: {format_datetime(when)}",
            f"Message-ID: <{rng.getrandbits(64):016x}@{sender.split('@')[1]}>",
            "MIME-Version: 1.0",
            'Content-Type: text/plain; charset="utf-8"',
            "Content-Transfer-Encoding: quoted-printable",
        ]
        if folder == "mailing-list":
            headers.append(f"List-Id: <dev.{sender.split('@')[1]}>")
        if folder in ("newsletters", "spam") and rng.random() < 0.8:
            headers.append(f"List-Unsubscribe: <mailto:unsubscribe@{sender.split('@')[1]}>")
        chunks.append("\n".join(headers) + "\n\n" + body + "\n")
        labels.append(FOLDERS.index(folder))
    return "\n".join(chunks).encode("utf-8"), labels


def split_mbox(blob):
    """Split an mbox byte string on its 'From ' separator lines; drop the separator."""
    messages = []
    for part in blob.split(b"\nFrom "):
        part = part if part.startswith(b"From ") else b"From " + part
        messages.append(part.split(b"\n", 1)[1])
    return messages
