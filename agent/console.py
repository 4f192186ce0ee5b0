"""Human-readable progress on stderr (stdout is kept for --json)."""
from __future__ import annotations

import sys


def say(message: str) -> None:
    """Print one progress line to stderr."""
    print(f"perfloop: {message}", file=sys.stderr, flush=True)
