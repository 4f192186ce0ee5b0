"""A perfect proposer: a scripted OpenAI-compatible server that answers with the target's own oracle.patch.

`python -m perfloop.evals --proposer oracle` starts one per target and points the agent at it, so
the eval measures how much of the oracle's gain the loop keeps when the proposer is
perfect. The patch's hunks become search/replace edits (each search grown with more of
the original file until it is unique); a new or deleted file cannot be said that way and
is named in `unsayable`.
"""
from __future__ import annotations

import ast
import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from perfloop.evals.scripted_llm import Reply, ScriptedLLM

HUNK = re.compile(r"^@@ -(?P<start>\d+)(?:,(?P<count>\d+))? \+\d+(?:,\d+)? @@")
DIAGNOSIS = re.compile(r"^## The bottleneck: .* \((?P<entry>[\w-]+)\)$", re.MULTILINE)


@dataclass
class OracleEdits:
    """The oracle as edits, and what of it could not be expressed."""

    edits: list[dict] = field(default_factory=list)
    unsayable: list[str] = field(default_factory=list)


def patch_to_edits(patch_text: str, target_dir: Path) -> OracleEdits:
    """Turn a unified diff against the files of `target_dir` into unique search/replace edits."""
    result = OracleEdits()
    file = None
    is_new = False
    old: list[str] = []
    new: list[str] = []
    start = 0

    def flush() -> None:
        if file is not None and (old or new):
            result.edits.append(_unique_edit(target_dir, file, start, old, new))

    for line in patch_text.splitlines():
        if line.startswith("--- "):
            flush()
            old, new, file = [], [], None
            is_new = line[4:].strip() == "/dev/null"
        elif line.startswith("+++ "):
            dest = line[4:].strip()
            if is_new or dest == "/dev/null":
                result.unsayable.append(f"{'a new' if is_new else 'a deleted'} file {dest}: search/replace "
                                        "edits only change existing files")
            else:
                file = dest[2:] if dest.startswith("b/") else dest
        elif (match := HUNK.match(line)) and file is not None:
            flush()
            old, new, start = [], [], int(match["start"])
        elif file is not None and line[:1] in (" ", "-", "+") and not line.startswith(("diff ", "index ")):
            body = line[1:]
            if line[0] in (" ", "-"):
                old.append(body)
            if line[0] in (" ", "+"):
                new.append(body)
        elif file is not None and line == "":
            old.append("")
            new.append("")
    flush()
    return result


def _unique_edit(target_dir: Path, file: str, start: int, old: list[str], new: list[str]) -> dict:
    """One edit; context from the original file is added around it until the search text is unique."""
    lines = (Path(target_dir) / file).read_text(encoding="utf-8").splitlines(keepends=True)
    first, last = start - 1, start - 1 + len(old)  # the hunk's old lines, 0-based [first, last)
    if [l.rstrip("\n") for l in lines[first:last]] != old:
        raise ValueError(f"oracle.patch does not apply to {file} at line {start}: its old lines differ from the file")
    before = after = 0
    while True:
        head = "".join(lines[first - before:first])
        tail = "".join(lines[last:last + after])
        search = head + "".join(lines[first:last]) + tail
        text = "".join(lines)
        if (text.count(search) == 1 and search.strip()) or (before >= first and last + after >= len(lines)):
            break
        before, after = min(before + 1, first), min(after + 1, len(lines) - last)
    replace = head + "".join(l + "\n" for l in new) + tail
    if lines[first:last] and not lines[last - 1].endswith("\n"):
        replace = replace[:-1] if replace.endswith("\n") and not tail else replace
    return {"file": file, "search": search, "replace": replace}


FILE_BLOCK = re.compile(r"^### (?P<path>\S+)(?: \([^\n]*\))?\n```\n(?P<text>.*?)\n```$", re.MULTILINE | re.DOTALL)


def changed_functions(original: str, patched: str) -> dict[str, str]:
    """The functions (by qualified name) whose source the oracle changes, with their oracle source."""
    from perfloop.agent.proposers.llm_context import function_source
    from perfloop.tools.change.codemods.hot_function import functions

    changed = {}
    for _, qual in functions(ast.parse(patched)):
        new = function_source(patched, qual)
        if new is not None and function_source(original, qual) not in (None, new) and "<locals>" not in qual:
            changed[qual] = new
    return changed


def rebased_edits(oracle: OracleEdits, target_dir: Path, shown: dict[str, str]) -> list[dict]:
    """The oracle's edits against the code the prompt shows, which an earlier accepted change may have moved.

    Where a hunk no longer applies, each function the oracle changes is replaced whole (the
    current function's text as the search); hunks that still apply outside those functions stay.
    """
    from perfloop.agent.proposers.llm_context import function_source

    if all(shown.get(e["file"], "").count(e["search"]) == 1 for e in oracle.edits if e["file"] in shown):
        return oracle.edits
    edits, spans = [], []
    for file in dict.fromkeys(e["file"] for e in oracle.edits):
        current = shown.get(file)
        if current is None:
            continue
        original = (Path(target_dir) / file).read_text(encoding="utf-8")
        patched = original
        for edit in (e for e in oracle.edits if e["file"] == file):
            patched = patched.replace(edit["search"], edit["replace"], 1)
        for qual, new in changed_functions(original, patched).items():
            old = function_source(current, qual)
            if old and old != new and current.count(old) == 1:
                edits.append({"file": file, "search": old, "replace": new})
                spans.append((file, current.index(old), current.index(old) + len(old)))
        for edit in (e for e in oracle.edits if e["file"] == file and current.count(e["search"]) == 1):
            start = current.index(edit["search"])
            end = start + len(edit["search"])
            if not any(f == file and start < e and s < end for f, s, e in spans):
                edits.append(edit)
    return edits


class OracleLLM(ScriptedLLM):
    """Answer every chat completion with the oracle as one candidate; note the diagnosis each prompt named."""

    def __init__(self, target_dir: Path, summary: str = "the oracle's change") -> None:
        oracle = patch_to_edits((Path(target_dir) / "oracle.patch").read_text(encoding="utf-8"), target_dir)
        self.oracle = oracle
        self.rebased: list[bool] = []

        def answer_for(body: dict) -> Reply:
            shown = {m["path"]: m["text"] for m in FILE_BLOCK.finditer(body["messages"][0]["content"])}
            edits = rebased_edits(oracle, Path(target_dir), shown)
            self.rebased.append(edits is not oracle.edits)
            return Reply(content=json.dumps({"candidates": [{"summary": summary, "edits": edits or oracle.edits}]}))

        super().__init__([], answer_for=answer_for)

    def diagnoses_asked(self) -> list[str]:
        """The knowledge-base entry named by each prompt received, in order."""
        asked = []
        for request in self.requests:
            first = request["body"]["messages"][0]["content"]
            match = DIAGNOSIS.search(first)
            asked.append(match["entry"] if match else "?")
        return asked
