"""Load knowledge-base entries from YAML files, one entry per file."""

from pathlib import Path

import yaml
from pydantic import ValidationError

from perfloop.knowledge_base.schema import Entry, check_unique_ids

ENTRIES_DIR = Path(__file__).parent / "entries"
# The C loader parses the bundled entries several times faster; the pure one is the fallback.
_YAML_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

_HINTS = {
    "missing": "add it",
    "extra_forbidden": "remove it or fix its spelling",
    "literal_error": "use one of the allowed values",
}


def load_entries(directory: str | Path | None = None) -> list[Entry]:
    """Load every <id>.yaml in directory (default: the bundled entries), in tie-break order.

    Ties in expected speedup go to the entry cheapest to try and verify: one with a codemod
    remedy first, then one with an LLM remedy, then an informational one; by id within each.
    """
    folder = ENTRIES_DIR if directory is None else Path(directory)
    if not folder.is_dir():
        raise ValueError(f"{folder}: no such folder; pass one holding <entry_id>.yaml files")
    if strays := sorted(folder.glob("*.yml")):
        stray = strays[0]
        raise ValueError(f"{stray}: only *.yaml files are read; rename it to {stray.stem}.yaml")
    entries = [load_entry(path) for path in sorted(folder.glob("*.yaml"))]
    if not entries:
        raise ValueError(f"{folder}: holds no *.yaml entries; see knowledge_base/README.md")
    check_unique_ids(entries)
    return sorted(entries, key=lambda e: (_cost_rank(e), e.id))


def load_entry(path: str | Path) -> Entry:
    """Load and validate one entry file; any problem raises ValueError naming file and field."""
    path = Path(path)
    try:
        data = yaml.load(path.read_text(encoding="utf-8"), Loader=_YAML_LOADER)
    except yaml.YAMLError as exc:
        raise ValueError(f"{path}: not valid YAML ({exc}); fix the syntax") from exc
    if not isinstance(data, dict):
        kind = type(data).__name__
        raise ValueError(f"{path}: expected a mapping of entry fields (id, title, ...), got {kind}")
    try:
        entry = Entry.model_validate(data)
    except ValidationError as exc:
        raise ValueError(_describe(path, exc)) from exc
    if entry.id != path.stem:
        raise ValueError(f"{path}: field 'id': {entry.id!r} must equal the file stem; rename one")
    return entry


def _describe(path: Path, exc: ValidationError) -> str:
    problems = []
    for error in exc.errors():
        field = ".".join(str(part) for part in error["loc"]) or "(top level)"
        message = error["msg"].removeprefix("Value error, ")
        hint = _HINTS.get(error["type"])
        problems.append(f"{path}: field '{field}': {message}" + (f"; {hint}" if hint else ""))
    return "\n".join(problems)


def _cost_rank(entry: Entry) -> int:
    kinds = {remedy.kind for remedy in entry.remedies}
    return 0 if "codemod" in kinds else 1 if kinds else 2
