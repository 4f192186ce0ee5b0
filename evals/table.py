"""Render the suite's results as one aligned plain-text table with a totals line."""
from __future__ import annotations

from collections.abc import Sequence

COLUMNS = ["target", "expected", "top diagnosis", "headspace", "verdicts", "agent", "oracle", "share", "log share",
           "data same", "false accept", "wall s", "runs", "note"]


def _speedup(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}x"


def _yes_no(value: bool | None) -> str:
    return "-" if value is None else ("yes" if value else "no")


def _diagnosis(row: dict) -> str:
    if "top_diagnosis" not in row:
        return "-"  # the agent never got to report one
    mark = {True: " ✓", False: " ✗", None: ""}[row.get("diagnosis_ok")]
    return f"{row['top_diagnosis'] or '(none)'}{mark}"


def _share(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.0%}"


def row_cells(row: dict) -> list[str]:
    """Turn one result row into the table's cells, in COLUMNS order."""
    note = (row.get("error") or row.get("false_accept_reason")
            or (f"oracle: {row['oracle_error']}" if row.get("oracle_error") else ""))
    if row.get("remeasured_natural"):  # a cache's gain starts in epoch 2: whole runs, not the 60-step window
        note = f"re-measured to the pipeline's end{'; ' + note if note else ''}"
    return [
        row["label"],
        row.get("expected_diagnosis") or "-",
        _diagnosis(row),
        "-" if row.get("headspace") is None else f"{row['headspace']:.0%}",
        row.get("verdicts") or "-",
        _speedup(row.get("agent_speedup")),
        _speedup(row.get("oracle_speedup")),
        _share(row.get("share_of_oracle_gain")),
        _share(row.get("log_share_of_oracle_gain")),
        _yes_no(row.get("data_identical")),
        _yes_no(row.get("false_accept")),
        "-" if row.get("agent_wall_s") is None else f"{row['agent_wall_s']:.0f}",
        "-" if row.get("runs_used") is None else str(row["runs_used"]),
        note.splitlines()[0] if note else "",
    ]


def totals_line(totals: dict) -> str:
    """Summarize the suite in one line: diagnosis accuracy, false accepts, median share, errors."""
    share = totals.get("median_share_of_oracle_gain")
    return (f"diagnosis {totals['diagnosis_correct']}/{totals['diagnosis_expected']}"
            f" · false accepts {totals['false_accepts']}"
            f" · median share of oracle gain {_share(share)}"
            f" (log scale {_share(totals.get('median_log_share_of_oracle_gain'))})"
            f" · errors {totals['errors']}")


def format_table(rows: Sequence[dict], totals: dict) -> str:
    """Return the header, one line per row and the totals line, columns padded to align."""
    grid = [COLUMNS, *(row_cells(row) for row in rows)]
    # The note is free text and comes last, so it is never padded.
    widths = [max(len(line[i]) for line in grid) for i in range(len(COLUMNS) - 1)]
    lines = ["  ".join([*(cell.ljust(w) for cell, w in zip(line, widths)), line[-1]]).rstrip() for line in grid]
    rule = "-" * max(len(line) for line in lines)
    return "\n".join([lines[0], rule, *lines[1:], rule, totals_line(totals)])
