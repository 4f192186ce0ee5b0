"""Reply/signature stripping and PII masking for support mail."""
import re

_REPLY_HEADER = re.compile(r"^On .{10,120} wrote:\s*$")
_FORWARD_MARKERS = ("-----Original Message-----", "________________________________", "From: ")
_SIGNOFFS = {"best regards,", "thanks,", "kind regards,", "cheers,", "regards,", "best,", "thank you,"}
_MOBILE = re.compile(r"^sent from my \w+", re.I)

URL_RE = re.compile(r"\b(?:https?://|www\.)[^\s<>\"]+", re.I)
EMAIL_RE = re.compile(r"\b[\w.+-]+@[\w-]+(?:\.[\w-]+)+\b")
PHONE_RE = re.compile(r"\+?\d{1,2}[\s.-]?\(?\d{3}\)?[\s.-]?\d{3}[\s.-]?\d{4}\b")
ADDRESS_RE = re.compile(r"\b\d{1,5} [A-Z][a-z]+ (?:St|Ave|Rd|Blvd|Dr|Ln)\b\.?(?:, [A-Z][a-z]+)?(?:, [A-Z]{2})?(?: \d{5})?")
ORDER_RE = re.compile(r"#\d{5,}")
TOKEN_RE = re.compile(r"<\w+>|[a-z0-9]+(?:['-][a-z0-9]+)*|[^\sa-z0-9]")


def strip_reply(text):
    """Keep what the customer wrote in this message: cut at the first quoted block or forward header."""
    kept = []
    for line in text.replace("\r\n", "\n").split("\n"):
        s = line.strip()
        if s.startswith(">") or _REPLY_HEADER.match(s) or any(s.startswith(m) for m in _FORWARD_MARKERS):
            break
        kept.append(line)
    return kept


def strip_signature(lines):
    """Drop a '-- ' delimited signature, a trailing sign-off block, or a mobile footer."""
    for i, line in enumerate(lines):
        if line.rstrip() == "--" or line == "-- ":
            lines = lines[:i]
            break
    while lines and not lines[-1].strip():
        lines.pop()
    if lines and _MOBILE.match(lines[-1].strip()):
        lines.pop()
    for back in range(1, min(4, len(lines)) + 1):
        if lines[-back].strip().lower() in _SIGNOFFS:
            lines = lines[:-back]
            break
    return lines


def mask(text):
    text = URL_RE.sub(" <url> ", text)
    text = EMAIL_RE.sub(" <email> ", text)
    text = ADDRESS_RE.sub(" <address> ", text)
    text = PHONE_RE.sub(" <phone> ", text)
    return ORDER_RE.sub(" <order> ", text)


def clean_email(raw):
    lines = strip_signature(strip_reply(raw))
    body = mask("\n".join(lines)).lower()
    return TOKEN_RE.findall(body)
