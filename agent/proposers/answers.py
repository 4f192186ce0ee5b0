"""Read the answers real models send and turn them into new file texts, or say exactly why not.

Models answer in more shapes than the one asked for. Accepted:
- the asked-for JSON object (`{"candidates": [...]}` or one bare `{"summary", "edits"}`), bare,
  in a ```json fence, or inside prose;
- an edit as `search`/`replace` (exact and unique; else, where it is unambiguous, the same
  lines with trailing spaces ignored, or with another indentation, re-indented to the file's),
  as a unified `diff` of one file, or as the whole new `content` of a file;
- an answer that is only a unified diff (a ```diff fence, or `--- a/... +++ b/...` text) for
  one or several files.
Everything else fails with a `BadAnswer` whose message is what the model is told on its
retry: which file, which edit, and what to send instead.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

from pydantic import BaseModel, Field, ValidationError, model_validator

from perfloop.tools.change.patching import matches_any


class Edit(BaseModel):
    """One change to one file: search/replace, a unified diff of it, or its whole new content."""

    file: str = Field(description="Path relative to the pipeline folder.")
    search: str | None = Field(None, description="Text to find, once.")
    replace: str | None = None
    diff: str | None = Field(None, description="A unified diff of this file.")
    content: str | None = Field(None, description="The whole new file.")

    @model_validator(mode="after")
    def _one_kind(self) -> "Edit":
        kinds = [k for k in ("search", "diff", "content") if getattr(self, k) is not None]
        if len(kinds) != 1:
            raise ValueError("give exactly one of search/replace, diff or content")
        if self.search is not None and (not self.search or self.replace is None):
            raise ValueError("a search edit needs a non-empty search and a replace")
        return self


class EditAnswer(BaseModel):
    """One candidate change."""

    summary: str = Field(min_length=1, description="One line: what changes.")
    edits: list[Edit] = Field(min_length=1)


class CandidatesAnswer(BaseModel):
    """What the model must answer when asked for several candidates."""

    candidates: list[EditAnswer] = Field(min_length=1)


class BadAnswer(ValueError):
    """The model's answer cannot become a change; the message is fed back on the next attempt."""


_FENCED_JSON = re.compile(r"```(?:json)?\s*(\{.*\})\s*```", re.DOTALL)
_FENCED_DIFF = re.compile(r"```(?:diff|patch)\s*\n(.*?)```", re.DOTALL)
_DIFF_FILE = re.compile(r"^--- (?:a/)?(\S+).*\n\+\+\+ (?:b/)?(\S+).*$", re.MULTILINE)


def parse_candidates(content: str, limit: int) -> list[EditAnswer]:
    """Read up to `limit` candidates from an answer in any of the accepted shapes."""
    data = _json_object(content)
    if data is None:
        diff = _diff_text(content)
        if diff is None:
            raise BadAnswer("the answer is neither one JSON object nor a unified diff; answer with the JSON "
                            "object described under 'Answer format'")
        return [EditAnswer(summary=_first_prose_line(content) or "unified diff", edits=split_diff(diff))]
    try:
        if isinstance(data, dict) and "candidates" in data:
            return CandidatesAnswer.model_validate(data).candidates[:limit]
        return [EditAnswer.model_validate(data)]
    except ValidationError as error:
        first = error.errors()[0]
        raise BadAnswer(f"the JSON does not match the answer format: {first['msg']} at "
                        f"{'.'.join(map(str, first['loc']))}") from None


def _json_object(content: str):
    """The answer's JSON object: bare, fenced, or the outermost {...} inside prose; None when there is none."""
    texts = [content.strip()]
    fenced = _FENCED_JSON.search(content)
    if fenced:
        texts.insert(0, fenced.group(1))
    start, end = content.find("{"), content.rfind("}")
    if 0 <= start < end:
        texts.append(content[start:end + 1])
    error = None
    for text in texts:
        try:
            return json.loads(text)
        except json.JSONDecodeError as why:
            error = why
    if start >= 0 and _diff_text(content) is None:
        raise BadAnswer(f"the answer is not one JSON object ({error})")
    return None


def _diff_text(content: str) -> str | None:
    fenced = _FENCED_DIFF.search(content)
    text = fenced.group(1) if fenced else content
    return text if _DIFF_FILE.search(text) else None


def _first_prose_line(content: str) -> str:
    for line in content.splitlines():
        if line.strip() and not line.startswith(("```", "---", "+++", "diff ", "@@", "index ")):
            return line.strip()[:200]
    return ""


def split_diff(text: str) -> list[Edit]:
    """One `diff` edit per file of a multi-file unified diff."""
    edits, matches = [], list(_DIFF_FILE.finditer(text))
    for k, match in enumerate(matches):
        end = matches[k + 1].start() if k + 1 < len(matches) else len(text)
        path = match.group(2) if match.group(2) != "/dev/null" else match.group(1)
        edits.append(Edit(file=path, diff=text[match.start():end]))
    return edits


def apply_edits(root: Path, answer: EditAnswer, editable: list[str]) -> dict[str, str]:
    """Return the new text of each edited file; BadAnswer naming the file and edit when one cannot apply."""
    texts: dict[str, str] = {}
    for number, edit in enumerate(answer.edits, 1):
        relative = edit.file[2:] if edit.file.startswith("./") else edit.file
        path = (root / relative).resolve()
        if not path.is_relative_to(root.resolve()) or not matches_any(relative, editable):
            raise BadAnswer(f"{edit.file} may not be edited (editable: {', '.join(editable)})")
        where = f"edit {number} ({edit.file})"
        if relative not in texts:
            if not path.is_file() and edit.content is None:
                raise BadAnswer(f"{where}: {edit.file} does not exist in the pipeline folder; send its whole "
                                "text as `content` to create it")
            texts[relative] = path.read_text(encoding="utf-8") if path.is_file() else ""
        if edit.content is not None:
            texts[relative] = edit.content
        elif edit.diff is not None:
            texts[relative] = apply_unified_diff(texts[relative], edit.diff, where)
        else:
            texts[relative] = replace_once(texts[relative], edit.search, edit.replace, where)
    return texts


def replace_once(text: str, search: str, replace: str, where: str) -> str:
    """Replace `search` once: exactly, else ignoring trailing spaces, else ignoring indentation; never guessing."""
    count = text.count(search)
    if count == 1:
        return text.replace(search, replace, 1)
    if count > 1:
        raise BadAnswer(f"{where}: the search text occurs {count} times; copy a longer, unique piece")
    lines = text.splitlines(keepends=True)
    wanted = search.strip("\n").splitlines()
    for label, norm in (("trailing spaces", str.rstrip), ("indentation", str.strip)):
        target = [norm(line) for line in wanted]
        hits = [i for i in range(len(lines) - len(target) + 1)
                if [norm(line.rstrip("\n")) for line in lines[i:i + len(target)]] == target]
        if len(hits) > 1:
            raise BadAnswer(f"{where}: the search text matches {len(hits)} places when {label} are ignored; copy "
                            "a longer, unique piece exactly")
        if hits:
            i = hits[0]
            new = _reindent(replace, wanted, lines[i]) if label == "indentation" else replace
            if not new.endswith("\n") and lines[i + len(target) - 1].endswith("\n"):
                new += "\n"
            return "".join(lines[:i]) + new.lstrip("\n") + "".join(lines[i + len(target):])
    raise BadAnswer(f"{where}: the search text does not occur in the file (not even with other spacing); "
                    "copy a unique piece exactly, or send a unified diff")


def _reindent(replace: str, wanted: list[str], first_line: str) -> str:
    """Shift `replace` by the indentation difference between the file's matched line and the search's."""
    have = len(first_line) - len(first_line.lstrip(" "))
    asked = len(wanted[0]) - len(wanted[0].lstrip(" "))
    shift = have - asked
    out = []
    for line in replace.splitlines(keepends=True):
        if not line.strip():
            out.append(line)
        elif shift >= 0:
            out.append(" " * shift + line)
        else:
            out.append(line[min(-shift, len(line) - len(line.lstrip(" "))):])
    return "".join(out)


_HUNK = re.compile(r"^@@ -(\d+)(?:,\d+)? \+\d+(?:,\d+)? @@")


def apply_unified_diff(text: str, diff: str, where: str) -> str:
    """Apply one file's unified diff to `text` in memory: each hunk's old lines must match once (trailing
    spaces aside), nearest the line the hunk names."""
    lines = text.splitlines(keepends=True)
    hunks = _hunks(diff, where)
    if not hunks:
        raise BadAnswer(f"{where}: the diff has no @@ hunk")
    offset = 0
    for start, old, new in hunks:
        want = [line.rstrip() for line in old]
        hits = [i for i in range(len(lines) - len(old) + 1)
                if [line.rstrip() for line in lines[i:i + len(old)]] == want] if old else [max(start - 1, 0)]
        if not hits:
            raise BadAnswer(f"{where}: the hunk at line {start} does not match the file; make the diff against the "
                            "file as shown")
        at = min(hits, key=lambda i: abs(i - (start - 1 + offset)))
        if len([i for i in hits if abs(i - (start - 1 + offset)) == abs(at - (start - 1 + offset))]) > 1:
            raise BadAnswer(f"{where}: the hunk at line {start} matches several places; add context lines")
        lines[at:at + len(old)] = [line if line.endswith("\n") else line + "\n" for line in new]
        offset += len(new) - len(old)
    return "".join(lines)


def _hunks(diff: str, where: str) -> list[tuple[int, list[str], list[str]]]:
    hunks: list[tuple[int, list[str], list[str]]] = []
    for line in diff.splitlines(keepends=True):
        match = _HUNK.match(line)
        if match:
            hunks.append((int(match.group(1)), [], []))
            continue
        if not hunks or line.startswith(("--- ", "+++ ", "\\")):
            continue
        body = line[1:]
        if line.startswith("-"):
            hunks[-1][1].append(body)
        elif line.startswith("+"):
            hunks[-1][2].append(body)
        elif line.startswith(" ") or line in ("\n", ""):
            hunks[-1][1].append(body or "\n")
            hunks[-1][2].append(body or "\n")
        else:
            raise BadAnswer(f"{where}: diff line {line.rstrip()[:60]!r} is not context, + or -")
    return hunks
