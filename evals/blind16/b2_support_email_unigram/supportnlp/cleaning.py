"""Strip quoted replies and signatures, mask URLs, e-mail and street addresses."""
import re

_REPLY_HEADER = re.compile(r"^(On .{5,120} wrote:|-{2,}\s*Original Message\s*-{2,}|From: .+)$", re.M)
_SIGNOFF = re.compile(r"^(thanks|thank you|best|best regards|regards|cheers|kind regards|sincerely)[,!.]?\s*$",
                      re.I)
_URL = re.compile(r"\b(?:https?://|www\.)[^\s<>\"')]+", re.I)
_EMAIL = re.compile(r"\b[\w.+-]+@[\w-]+(?:\.[\w-]+)+\b")
_STREET = re.compile(r"\b\d{1,5}\s+(?:[A-Z][a-z]+\s){1,3}(?:Street|St|Avenue|Ave|Road|Rd|Lane|Ln|Drive|Dr|Blvd)\b\.?")
_PHONE = re.compile(r"\+?\d[\d ()-]{7,}\d")
_SPACES = re.compile(r"[ \t]+")


def strip_quoted(text):
    m = _REPLY_HEADER.search(text)
    if m:
        text = text[:m.start()]
    return "\n".join(line for line in text.splitlines() if not line.lstrip().startswith(">"))


def strip_signature(text):
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if line.rstrip() == "--" or line == "-- ":
            lines = lines[:i]
            break
    # a sign-off in the last few lines ends the message body
    for i in range(len(lines) - 1, max(len(lines) - 6, 0) - 1, -1):
        if _SIGNOFF.match(lines[i].strip()):
            lines = lines[:i]
            break
    return "\n".join(lines)


def mask_entities(text):
    text = _URL.sub(" <url> ", text)
    text = _EMAIL.sub(" <email> ", text)
    text = _STREET.sub(" <address> ", text)
    text = _PHONE.sub(" <phone> ", text)
    return text


def clean_email(raw):
    body = strip_signature(strip_quoted(raw.replace("\r\n", "\n")))
    body = mask_entities(body)
    return _SPACES.sub(" ", body).strip()
