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


def split_credentials(url: str | None) -> tuple[str | None, str | None]:
    """Return (`url` without its user:password@, "user:password" or None when it had none)."""
    if not url:
        return url, None
    parts = urlsplit(url)
    if parts.username is None and parts.password is None:
        return url, None
    userinfo, _, host = parts.netloc.rpartition("@")
    return urlunsplit((parts.scheme, host, parts.path, parts.query, parts.fragment)), userinfo


def has_credentials(url: str | None) -> bool:
    """Tell whether `url` carries user:password@."""
    return split_credentials(url)[1] is not None
