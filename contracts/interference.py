"""How verification treats runs the machine's other work disturbed: the modes, declared once.

``Target.interference`` (``[tool.perfloop] interference``), the CLI's ``--interference`` and
``PERFLOOP_INTERFERENCE`` all take one of ``INTERFERENCE_MODES``; the rule that says when a run
is disturbed is ``tools/measure/interference.py``'s.
"""
from typing import Literal, get_args

InterferenceMode = Literal["rerun", "report"]
"""rerun: contaminated runs are left out and run again; report: measured and reported, kept in the decision."""
INTERFERENCE_MODES: tuple[str, ...] = get_args(InterferenceMode)
INTERFERENCE_ENV = "PERFLOOP_INTERFERENCE"
"""The default of ``interference`` where the contract and the flags leave it unset."""

__all__ = ["INTERFERENCE_ENV", "INTERFERENCE_MODES", "InterferenceMode"]
