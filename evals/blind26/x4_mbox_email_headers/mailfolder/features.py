import email
import re
import zlib
from email import policy
from email.utils import parsedate_to_datetime

import numpy as np

TOKEN = re.compile(r"[^\W\d_]+", re.UNICODE)


def _bucket(token, dim):
    return zlib.crc32(token.encode("utf-8")) % dim


def message_features(raw, hash_dim, max_hops):
    """Parse one RFC 822 message and turn it into a fixed-size float32 vector."""
    msg = email.message_from_bytes(raw, policy=policy.default)
    vec = np.zeros(hash_dim + 8, dtype=np.float32)
    subject = str(msg["subject"] or "")
    for tok in TOKEN.findall(subject.lower()):
        vec[_bucket("s:" + tok, hash_dim)] += 1.0
    body = msg.get_body(preferencelist=("plain",)).get_content()
    for tok in TOKEN.findall(body.lower()):
        vec[_bucket("b:" + tok, hash_dim)] += 1.0
    vec[:hash_dim] = np.log1p(vec[:hash_dim])
    sender = msg["from"].addresses[0]
    vec[_bucket("d:" + sender.domain, hash_dim)] += 1.0
    hops = len(msg.get_all("received") or [])
    when = parsedate_to_datetime(str(msg["date"]))
    extra = [
        min(hops, max_hops) / max_hops,
        when.hour / 23.0,
        when.weekday() / 6.0,
        float("list-id" in msg),
        float("list-unsubscribe" in msg),
        float(sender.username in ("noreply", "info")),
        min(len(body), 4000) / 4000.0,
        float(any(ord(c) > 127 for c in subject + body)),
    ]
    vec[hash_dim:] = extra
    return vec
