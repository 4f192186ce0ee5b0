"""Judge one agent run from the harness's own measurements: pure functions over plain numbers."""
from __future__ import annotations

import math
import statistics
from collections.abc import Iterable, Sequence

# Below this much gain over noise an accepted change is not a speed-up we believe.
MIN_GAIN = 0.03
# An oracle that gains less than this leaves no headroom to share out.
MIN_ORACLE_GAIN = 0.05
VERDICT_LETTERS = {"accepted": "A", "rejected": "R", "declined": "D", "undecided": "U"}


def median(values: Sequence[float]) -> float | None:
    """Return the median of ``values``, or None when there are none."""
    return statistics.median(values) if values else None


def spread(values: Sequence[float]) -> float:
    """Return (max - min) / median of ``values``: the noise of repeated runs of one checkout."""
    if len(values) < 2:
        return 0.0
    return (max(values) - min(values)) / statistics.median(values)


def ratio(new: float | None, old: float | None) -> float | None:
    """Return new / old, or None when either side is missing or old is not positive."""
    if new is None or old is None or old <= 0:
        return None
    return new / old


def share_of_oracle_gain(agent_speedup: float | None, oracle_speedup: float | None,
                         min_oracle_gain: float = MIN_ORACLE_GAIN) -> float | None:
    """Return (agent - 1) / (oracle - 1), or None when the oracle gains too little to compare against."""
    if agent_speedup is None or oracle_speedup is None or oracle_speedup - 1 <= min_oracle_gain:
        return None
    return (agent_speedup - 1) / (oracle_speedup - 1)


def log_share_of_oracle_gain(agent_speedup: float | None, oracle_speedup: float | None,
                             min_oracle_gain: float = MIN_ORACLE_GAIN) -> float | None:
    """Return log(agent) / log(oracle): the share of the oracle's speed-up on a log scale.

    Gains compose by multiplication, so a 2x change that is half of a 4x one scores 0.5 here
    (and 0.33 on the linear scale). None when the oracle gains too little to compare against
    or either speed-up is not positive.
    """
    if (agent_speedup is None or oracle_speedup is None or oracle_speedup - 1 <= min_oracle_gain
            or agent_speedup <= 0):
        return None
    return math.log(agent_speedup) / math.log(oracle_speedup)


def relative_diff(new: float | None, old: float | None) -> float | None:
    """Return |new - old| / |old| (absolute difference when old is 0); None when either is missing."""
    if new is None or old is None:
        return None
    return abs(new - old) / abs(old) if old else abs(new - old)


def false_accept(accepted_data_checks: Sequence[str], agent_speedup: float | None, noise: float,
                 data_identical: bool | None, loss_identical: bool | None = None) -> tuple[bool, str]:
    """Decide whether the agent accepted something it should not have; return (verdict, why).

    A false accept needs at least one accepted change, and then either no real gain
    (re-measured speed-up within max(noise, MIN_GAIN) of 1, or not measurable) or
    changed data that every accepted iteration reported as identical. Each check is the
    data verdict's label: "identical (layout changed)" and "identical at model input"
    disclose that the loader's batches changed (their digest may differ), but claim the
    model saw the same numbers, so the loss curve must then be the original's.
    """
    if not accepted_data_checks:
        return False, ""
    threshold = 1 + max(noise, MIN_GAIN)
    if agent_speedup is None:
        return True, "accepted a change but its checkout could not be measured"
    if agent_speedup <= threshold:
        return True, f"accepted a change but re-measured {agent_speedup:.2f}x <= {threshold:.2f}x"
    if data_identical is False and all(check == "identical" for check in accepted_data_checks):
        return True, "data changed but every accepted change reported it identical"
    if data_identical is False and loss_identical is False and all(
            check in ("identical", *IDENTICAL_BEYOND_LOADER) for check in accepted_data_checks):
        return True, "data changed and so did the loss, but every accepted change reported the model input identical"
    return False, ""


IDENTICAL_BEYOND_LOADER = ("identical (layout changed)", "identical at model input")
"""Data verdicts (labels) that say the loader's batches changed but the model was given the same numbers."""


def verdict_letters(verdicts: Iterable[str]) -> str:
    """Return the verdict sequence as letters, e.g. "A,R" (unknown verdicts keep their name)."""
    letters = [VERDICT_LETTERS.get(verdict, verdict) for verdict in verdicts]
    return ",".join(letters) if letters else "-"


def diagnosis_matches(top: str | None, expected: str | None, also_acceptable: Sequence[str] = ()) -> bool | None:
    """Return whether ``top`` is the expected diagnosis or an acceptable one; None when nothing is expected."""
    if not expected:
        return None
    return top is not None and top in {expected, *also_acceptable}
