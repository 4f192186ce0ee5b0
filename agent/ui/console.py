"""What perfloop prints: progress, warnings and errors on stderr; results or the --json object on stdout; exit codes."""
from __future__ import annotations

import json
import sys
import time
import traceback
from pathlib import Path

from perfloop.agent.runs import RunFolder

EXIT_OK = 0
EXIT_USAGE = 2  # bad input: the message names the file or value and what to do
EXIT_PIPELINE = 3  # the user's pipeline failed; its stderr tail is shown
EXIT_TAMPERED = 4  # the audit log's hash chain is broken
EXIT_INTERNAL = 5  # a bug in perfloop: the traceback is saved, the run stays resumable
EXIT_INTERRUPTED = 130  # Ctrl-C; the run is resumable
EXIT_BROKEN_PIPE = 141  # stdout was closed before the output ended (piped into `head`), as SIGPIPE would end it


_JSON_MODE = False


def set_json_mode(enabled: bool) -> None:
    """Remember that --json was given: stdout is reserved and no live progress line is drawn."""
    global _JSON_MODE
    _JSON_MODE = bool(enabled)


def json_mode() -> bool:
    """Tell whether --json was given (see set_json_mode)."""
    return _JSON_MODE


def say(message: str) -> None:
    """Print one progress line to stderr (in one write: the progress thread may say a line too)."""
    sys.stderr.write(f"perfloop: {message}\n")
    sys.stderr.flush()


def emit_json(obj: dict) -> None:
    """Print ``obj`` as the last line of stdout."""
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


class InternalError(Exception):
    """A bug in perfloop stopped a run; the traceback is saved in the run folder."""

    def __init__(self, run_id: str, state_dir: Path, trace_path: Path) -> None:
        super().__init__(f"internal error in run {run_id}; traceback saved to {trace_path}; audit log "
                         f"{RunFolder(state_dir).audit_log}; `perfloop resume {run_id}` retries from the last checkpoint")
        self.run_id, self.state_dir, self.trace_path = run_id, state_dir, trace_path


def save_traceback(folder: Path) -> Path:
    """Write the exception being handled to ``folder``/crash-<time>.txt and return its path."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"crash-{time.strftime('%Y%m%d-%H%M%S')}.txt"
    path.write_text(traceback.format_exc(), encoding="utf-8")
    return path
