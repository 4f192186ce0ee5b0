"""Keep credentials out of what perfloop prints and records."""
from __future__ import annotations

from urllib.parse import urlsplit, urlunsplit


def redacted_url(url: str | None) -> str | None:
    """Return `url` with any user:password@ replaced by ***@, for logs and messages."""
    if not url:
        return url
    parts = urlsplit(url)
    if parts.username is None and parts.password is None:
        return url
    return urlunsplit((parts.scheme, "***@" + parts.netloc.rsplit("@", 1)[-1], parts.path, parts.query,
                       parts.fragment))
