"""What perfloop prints: progress lines on stderr, the --json object on stdout, and exit codes."""
from __future__ import annotations

import json
import sys

EXIT_OK = 0
EXIT_USAGE = 2  # bad input: the message names the file or value and what to do
EXIT_PIPELINE = 3  # the user's pipeline failed; its stderr tail is shown
EXIT_TAMPERED = 4  # the audit log's hash chain is broken
EXIT_INTERRUPTED = 130  # Ctrl-C; the run is resumable


def say(message: str) -> None:
    """Print one progress line to stderr."""
    print(f"perfloop: {message}", file=sys.stderr, flush=True)


def emit_json(obj: dict) -> None:
    """Print ``obj`` as the last line of stdout."""
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()
