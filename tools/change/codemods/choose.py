"""Pick which of several same-named config keys feeds the training DataLoader."""

from perfloop.tools.change.codemods.base import NotApplicable

# Section names, most telling first: a train section beats a generic data section.
_TRAIN_PREFIXES = ("train",)
_DATA_WORDS = ("data", "loader")
_EVAL_PREFIXES = ("val", "eval", "test", "predict", "infer")


def choose_config_path(paths: list[tuple], hint: list[str], name: str) -> tuple:
    """Return the one path the call site reads, else the one in a training section.

    `hint` is the key chain the call site's expression reads, root variable first
    (e.g. ["cfg", "train", "num_workers"]); empty when the site says nothing.
    """
    assert paths, "choose_config_path needs at least one candidate"
    if len(paths) == 1:
        return paths[0]
    chosen = _by_hint(paths, hint) or _by_section(paths)
    if chosen is None:
        dotted = ", ".join(_dotted(p) for p in paths)
        raise NotApplicable(
            f"ambiguous: {name} appears at {dotted} and neither the DataLoader call "
            "nor the section names tell which one the training DataLoader reads"
        )
    return chosen


def _by_hint(paths: list[tuple], hint: list[str]) -> tuple | None:
    """Match the call site's key chain: exactly below its root, else by longest suffix."""
    if not hint:
        return None
    exact = [p for p in paths if list(map(str, p)) == hint[1:]]
    if len(exact) == 1:
        return exact[0]
    scores = {p: _common_suffix(list(map(str, p)), hint) for p in paths}
    best = max(scores.values())
    winners = [p for p, s in scores.items() if s == best]
    # A suffix of 1 is just the option name itself, which every candidate shares.
    return winners[0] if best > 1 and len(winners) == 1 else None


def _by_section(paths: list[tuple]) -> tuple | None:
    """Prefer a train section, then a data/loader section, never an eval one."""
    scores = {p: _section_score(p) for p in paths}
    best = max(scores.values())
    winners = [p for p, s in scores.items() if s == best]
    return winners[0] if len(winners) == 1 else None


def _section_score(path: tuple) -> int:
    sections = [str(k).lower() for k in path[:-1]]
    if any(s.startswith(_EVAL_PREFIXES) for s in sections):
        return -1
    if any(s.startswith(_TRAIN_PREFIXES) for s in sections):
        return 2
    if any(w in s for s in sections for w in _DATA_WORDS):
        return 1
    return 0


def _common_suffix(a: list[str], b: list[str]) -> int:
    n = 0
    while n < min(len(a), len(b)) and a[-1 - n] == b[-1 - n]:
        n += 1
    return n


def _dotted(path: tuple) -> str:
    return ".".join(map(str, path))
