"""Deterministic fault points for the reliability tests: kill or break perfloop at a named place.

Inert unless ``PERFLOOP_FAULT_AT`` names a point. Tests set it (with
``PERFLOOP_FAULT_ACTION``: ``kill`` sends SIGKILL to perfloop itself, ``raise`` throws
an unexpected exception, ``decode_error`` a ``json.JSONDecodeError`` from parsing a
damaged document, a ``ValueError`` that is perfloop's bug and not the user's bad input)
to prove that a crash there leaves the user's files intact,
the audit chain verifiable and the run resumable. ``PERFLOOP_FAULT_SKIP=N`` lets the
first N passes through the point go by.
"""
from __future__ import annotations

import json
import os
import signal

POINTS = ("after_prepare", "mid_profile", "after_diagnose", "mid_optimize", "at_approval",
          "between_ab_pairs", "before_commit", "after_commit", "mid_report")
"""Every place a test may stop perfloop, in the order a run passes them."""
_passes: dict[str, int] = {}


class InjectedFault(RuntimeError):
    """The exception a ``raise`` fault throws: stands for any bug in perfloop."""


def fault_point(name: str) -> None:
    """Crash here if the environment asks for it; otherwise do nothing."""
    assert name in POINTS, f"unknown fault point {name!r}"
    if os.environ.get("PERFLOOP_FAULT_AT") != name:
        return
    _passes[name] = _passes.get(name, 0) + 1
    if _passes[name] <= int(os.environ.get("PERFLOOP_FAULT_SKIP", "0")):
        return
    action = os.environ.get("PERFLOOP_FAULT_ACTION", "kill")
    if action == "raise":
        raise InjectedFault(f"fault injected at {name}")
    if action == "decode_error":
        json.loads('{"fault injected at": "' + name)  # raises json.JSONDecodeError, a ValueError
    os.kill(os.getpid(), signal.SIGKILL)
