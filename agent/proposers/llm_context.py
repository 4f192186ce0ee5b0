"""What the LLM proposer shows the model besides the files: callers, captured shapes, an earlier failure.

Every part is capped (`cap`) and says what was cut, so the prompt stays bounded however
large the pipeline or its arguments are.
"""
from __future__ import annotations

import ast
import pickle
from pathlib import Path

from perfloop.tools.change.codemods.hot_function import functions, python_files
from perfloop.tools.measure.probe.perfloop_describe import describe_call

MAX_PART_CHARS = 6_000
"""Cap of each prompt part (function source, callers, shapes, config, failure)."""
MAX_CALLERS = 4
MAX_CALLS_DESCRIBED = 3


def cap(text: str, limit: int = MAX_PART_CHARS, what: str = "text") -> str:
    """Return `text` cut at `limit` characters, saying how much of which part was cut."""
    if len(text) <= limit:
        return text
    return text[:limit] + f"\n[... {what} cut: {len(text) - limit} of {len(text)} characters left out]"


def function_source(text: str, qualname: str) -> str | None:
    """Return the source of function `qualname` in module text `text` (decorators included), or None."""
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return None
    for node, qual in functions(tree):
        if qual == qualname:
            start = min([node.lineno] + [d.lineno for d in node.decorator_list])
            return "\n".join(text.splitlines()[start - 1:node.end_lineno]) + "\n"
    return None


def find_callers(root: Path, qualname: str) -> list[dict]:
    """Return the functions of the target's own files that call `qualname` by its last name: file, name, source."""
    short = qualname.split(".")[-1]
    found = []
    for relative in python_files(root):
        text = (root / relative).read_text(encoding="utf-8", errors="replace")
        if short not in text:
            continue
        try:
            tree = ast.parse(text)
        except SyntaxError:
            continue
        for node, qual in functions(tree):
            if qual == qualname:
                continue
            calls = [c for c in ast.walk(node) if isinstance(c, ast.Call) and _called_name(c.func) == short]
            # A call inside a nested function belongs to that one (listed on its own).
            nested = {id(c) for inner in ast.walk(node) if inner is not node and
                      isinstance(inner, (ast.FunctionDef, ast.AsyncFunctionDef)) for c in ast.walk(inner)}
            if any(id(c) not in nested for c in calls):
                found.append({"file": relative, "name": qual, "line": node.lineno,
                              "source": ast.get_source_segment(text, node) or ""})
    return found[:MAX_CALLERS]


def _called_name(func: ast.expr) -> str | None:
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return None


def describe_calls(calls_dir: Path) -> str:
    """Describe the captured calls' arguments (perfloop.tools.check.replay's call-*.pkl files): one block per call."""
    paths = sorted(Path(calls_dir).glob("call-*.pkl"))
    blocks = []
    for number, path in enumerate(paths[:MAX_CALLS_DESCRIBED], 1):
        described = path.with_suffix(".txt")
        if described.is_file():  # written by the capture, in the pipeline's process
            blocks.append(f"call {number}:\n{described.read_text(errors='replace')}")
            continue
        try:
            # Written by the target's own process during the capture run: as trusted as running it.
            call = pickle.loads(path.read_bytes())
            if "self_file" in call:  # a method: its object is kept once, beside the calls
                call["args"] = [pickle.loads((path.parent / call["self_file"]).read_bytes()), *call["args"]]
        except (pickle.UnpicklingError, ImportError, AttributeError, EOFError, TypeError, ValueError, OSError) as error:
            blocks.append(f"call {number}: could not be read back here ({type(error).__name__}: {error})")
            continue
        blocks.append(f"call {number}:\n" + describe_call(call.get("args", []), call.get("kwargs", {})))
    if len(paths) > MAX_CALLS_DESCRIBED:
        blocks.append(f"({len(paths) - MAX_CALLS_DESCRIBED} more captured calls not shown)")
    return "\n".join(blocks)


def earlier_failures(records, function: str) -> list[str]:
    """Reasons earlier replays of `function` in this run failed, newest last (audit records as dicts)."""
    reasons = []
    for record in records:
        data = record.get("data") or {}
        if record.get("event") == "replay" and data.get("function") == function and not data.get("ok"):
            reasons.append(f"{data.get('verdict')}: {data.get('reason')}")
        elif record.get("event") == "llm_candidate" and data.get("outcome") == "failed_replay" \
                and data.get("function", function) == function:
            reasons.append(f"candidate '{data.get('summary')}': {data.get('reason')}")
    return reasons


_FATES = {"chosen": "verified (the change above)",
          "survived": "not verified: another candidate of the same answer was chosen (candidates that passed "
                      "replay first, then the fastest on the captured calls, then the answer's order)",
          "failed_replay": "failed replay", "dropped": "not applied"}


def candidate_fates(records) -> dict[str, list[str]]:
    """What became of every candidate of the answers behind each LLM proposal, by proposal id.

    The model sees only the verdict of the candidate that was verified; without these lines it
    cannot tell a sibling that was wrong from one that was merely not chosen.
    """
    fates: dict[str, list[str]] = {}
    pending: list[str] = []
    for record in records:
        data = record.get("data") or {}
        if record.get("event") == "llm_candidate":
            speed = f", {data['speedup']:.2f}x on the captured calls" if data.get("speedup") else ""
            reason = data.get("reason") or ""
            fate = _FATES.get(data.get("outcome"), str(data.get("outcome")))
            pending.append(f"candidate {data.get('attempt', 1)}.{data.get('index')} \"{data.get('summary', '')}\": "
                           f"{fate}{speed}" + (f" ({reason})" if reason and data.get("outcome") != "chosen" else ""))
        elif record.get("event") == "proposal":
            proposal = data.get("proposal") or {}
            if proposal.get("source") == "llm" and pending:
                fates[proposal.get("id", "")] = pending
            pending = []
    return fates
