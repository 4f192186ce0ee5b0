"""Hot spots from sampler counts: robust to any stack the interpreter can hand the sampler."""
from __future__ import annotations

import json
import random
import types
from pathlib import Path

import pytest

from tests.conftest import ROOT
from tools.hotspots import batch_build_hotspots, main_hotspots


@pytest.fixture
def sampler_module(monkeypatch):
    monkeypatch.syspath_prepend(str(ROOT / "tools" / "probe"))
    import perfloop_sampler

    return perfloop_sampler


class _Frame:
    """Stand-in for a frame object: the attributes the sampler's stack walk reads."""

    def __init__(self, code: types.CodeType, lineno: int | None, back: _Frame | None) -> None:
        self.f_code = code
        self.f_lineno = lineno
        self.f_back = back


def _function_code(source: str, filename: str) -> types.CodeType:
    module = compile(source, filename, "exec")
    return next(c for c in module.co_consts if isinstance(c, types.CodeType))


def _code_pool(tmp_path: Path) -> dict[str, types.CodeType]:
    """Code objects whose files are fine, missing, changed since sampling, not UTF-8, or not files at all."""
    loop_source = "def build(values):\n    out = []\n    for v in values:\n        out.append(helper(v))\n    return out\n"
    good = tmp_path / "good.py"
    good.write_text(loop_source)
    helper = tmp_path / "helper.py"
    helper.write_text("def helper(v):\n    return v * 2\n")
    changed = tmp_path / "changed.py"
    changed.write_text("\n" * 40 + "def late():\n" + "    x = 1\n" * 20)
    late = _function_code(changed.read_text(), str(changed))
    changed.write_text("x = 1\n")  # edited after sampling: the sampled lines no longer exist
    latin = tmp_path / "latin.py"
    latin.write_bytes(b"def noisy():\n    return '\xe9\xff\xfe'\n")  # no coding cookie, not UTF-8
    cookie = tmp_path / "cookie.py"
    cookie.write_bytes(b"# -*- coding: latin-1 -*-\ndef accented():\n    return '\xe9'\n")
    return {
        "good": _function_code(loop_source, str(good)),
        "helper": _function_code(helper.read_text(), str(helper)),
        "missing": _function_code("def gone():\n    pass\n", str(tmp_path / "deleted.py")),
        "changed": late,
        "latin": _function_code("def noisy():\n    return 1\n", str(latin)),
        "cookie": _function_code("\ndef accented():\n    return 1\n", str(cookie)),
        "frozen": _function_code("def _load():\n    pass\n", "<frozen importlib._bootstrap>"),
        "string": _function_code("def generated():\n    pass\n", "<string>"),
    }


def _fuzzed_snapshot(sampler_module, pool: dict, label: str, seed: int) -> dict:
    counts = sampler_module._Counts(lambda: label)
    rng = random.Random(seed)
    codes = list(pool.values())
    for _ in range(2000):
        frame = None
        for _ in range(rng.randint(1, 6)):
            frame = _Frame(rng.choice(codes), rng.choice([None, 0, 1, 2, 3, 4, 45, 10**6]), frame)
        counts.record(frame)
    return json.loads(json.dumps(counts.snapshot()))  # as the probe writes it


def test_fuzzed_stacks_never_crash_sampler_or_hot_spots(sampler_module, tmp_path):
    pool = _code_pool(tmp_path)
    for seed in range(5):
        record = {"stacks": _fuzzed_snapshot(sampler_module, pool, "fetch", seed)}
        record["stacks"]["totals"]["other"] = 100
        hot = batch_build_hotspots(record, tmp_path, tmp_path)
        assert hot, "user frames were sampled, so some function is named"
        for function in hot:
            assert function.line >= 0 and all(isinstance(n, int) and n >= 0 for n in function.hot_lines)
            assert 0 < function.share <= 1
        names = {function.name for function in hot}
        assert not names & {"_load", "generated"}, "frames without a file on disk are not user code"
    other = {"stacks": _fuzzed_snapshot(sampler_module, pool, "other", 9)}
    assert main_hotspots(other, tmp_path)


def test_sample_without_line_is_booked_to_first_line(sampler_module, tmp_path):
    pool = _code_pool(tmp_path)
    counts = sampler_module._Counts(lambda: "fetch")
    for _ in range(10):
        counts.record(_Frame(pool["helper"], None, _Frame(pool["good"], None, None)))
    hot = batch_build_hotspots({"stacks": counts.snapshot()}, tmp_path, tmp_path)
    helper = next(function for function in hot if function.name == "helper")
    assert helper.hot_lines == [1] and helper.source == "def helper(v):"


def test_source_of_odd_files_is_shown_or_left_empty(sampler_module, tmp_path):
    pool = _code_pool(tmp_path)
    counts = sampler_module._Counts(lambda: "fetch")
    for name, line in (("cookie", 3), ("latin", 2), ("changed", 45), ("missing", 2)):
        counts.record(_Frame(pool[name], line, None))
    hot = {function.name: function for function in batch_build_hotspots({"stacks": counts.snapshot()},
                                                                          tmp_path, tmp_path)}
    assert hot["accented"].source == "    return 'é'"  # decoded by its coding cookie
    assert "return '" in hot["noisy"].source  # undecodable bytes replaced, not fatal
    assert hot["late"].source == "" and hot["gone"].source == ""


def test_malformed_sampler_rows_are_skipped(tmp_path):
    good = tmp_path / "m.py"
    good.write_text("def f():\n    return 1\n")
    stacks = {"totals": {"fetch": 10, "other": "x"},
              "functions": [["fetch", "f", str(good), 1, 10], ["fetch", None, str(good), 1, 3], ["fetch", "f"],
                            ["fetch", "g", str(good), None, 4], ["fetch", "h", str(good), 1, -2]],
              "lines": [["fetch", str(good), None, "f", 6], ["fetch", str(good), 2, "f", 4],
                        ["fetch", None, 2, "f", 1], ["fetch", str(good), 2, "f", "many"]]}
    hot = batch_build_hotspots({"stacks": stacks}, tmp_path, tmp_path)
    assert [function.name for function in hot] == ["f"]
    assert hot[0].hot_lines == [1, 2]  # the six line-less samples went to the first line
