"""Hot spots from sampler counts: robust to any stack the interpreter can hand the sampler."""
from __future__ import annotations

import json
import random
import time
import types
from pathlib import Path

import pytest

from perfloop.tools.measure.hotspots import batch_build_hotspots, main_hotspots
from tests.conftest import PIPELINES, ROOT


@pytest.fixture
def sampler_module(monkeypatch):
    monkeypatch.syspath_prepend(str(ROOT / "tools" / "measure" / "probe"))
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
    loop_source = ("def build(values):\n    out = []\n    for v in values:\n"
                   "        out.append(helper(v))\n    return out\n")
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
        stacks = _fuzzed_snapshot(sampler_module, pool, "fetch", seed)
        stacks["totals"]["other"] = 100
        hot = batch_build_hotspots(stacks, tmp_path, tmp_path)
        assert hot, "user frames were sampled, so some function is named"
        for function in hot:
            assert function.line >= 0 and all(isinstance(n, int) and n >= 0 for n in function.hot_lines)
            assert 0 < function.share <= 1
        names = {function.name for function in hot}
        assert not names & {"_load", "generated"}, "frames without a file on disk are not user code"
    other = _fuzzed_snapshot(sampler_module, pool, "other", 9)
    assert main_hotspots(other, tmp_path)


def test_sample_without_line_is_booked_to_first_line(sampler_module, tmp_path):
    pool = _code_pool(tmp_path)
    counts = sampler_module._Counts(lambda: "fetch")
    for _ in range(10):
        counts.record(_Frame(pool["helper"], None, _Frame(pool["good"], None, None)))
    hot = batch_build_hotspots(counts.snapshot(), tmp_path, tmp_path)
    helper = next(function for function in hot if function.name == "helper")
    assert helper.hot_lines == [1] and helper.source == "def helper(v):"


def test_timed_samples_are_bounded_and_on_the_anchor_clock(sampler_module, tmp_path):
    from perfloop.tools.measure.record import HotSamples

    pool = _code_pool(tmp_path)
    counts = sampler_module._Counts(lambda: "fetch", anchor=(1000.0, 0.0))  # wall = 1000 s + perf_counter
    inner = _Frame(pool["helper"], 2, _Frame(pool["good"], 4, None))
    for _ in range(sampler_module.MAX_TIMED + 7):
        counts.record(inner)
    counts.record(_Frame(pool["frozen"], 1, None))  # no user frame: counted, not placed in time
    timed = HotSamples.model_validate(json.loads(json.dumps(counts.timed_samples())))
    assert len(timed.samples) == sampler_module.MAX_TIMED and timed.dropped == 7
    assert counts.totals["fetch"] == sampler_module.MAX_TIMED + 8
    wall, label, file, function, line = timed.samples[0]
    assert (label, Path(file).name, function, line) == ("fetch", "helper.py", "helper", 2)  # the innermost frame
    assert 1000.0 < wall <= 1000.0 + time.perf_counter()
    assert [row[0] for row in timed.samples] == sorted(row[0] for row in timed.samples)


def test_source_of_odd_files_is_shown_or_left_empty(sampler_module, tmp_path):
    pool = _code_pool(tmp_path)
    counts = sampler_module._Counts(lambda: "fetch")
    for name, line in (("cookie", 3), ("latin", 2), ("changed", 45), ("missing", 2)):
        counts.record(_Frame(pool[name], line, None))
    hot = {function.name: function for function in batch_build_hotspots(counts.snapshot(),
                                                                          tmp_path, tmp_path)}
    assert hot["accented"].source == "    return 'é'"  # decoded by its coding cookie
    assert "return '" in hot["noisy"].source  # undecodable bytes replaced, not fatal
    assert hot["late"].source == "" and hot["gone"].source == ""


def test_malformed_sampler_rows_are_skipped(tmp_path):
    good = tmp_path / "m.py"
    good.write_text("def f():\n    return 1\n")
    f = str(good)
    stacks = {"totals": {"fetch": 10, "other": "x"},
              "paths": [["fetch", [[f, "f", 1, None]], 6], ["fetch", [[f, "f", 1, 2]], 4],
                        ["fetch", [[None, "g", 1, 2]], 3], ["fetch", [[f, "h", None, 2]], 3],
                        ["fetch", [[f, "i", 1, 2]], -2], ["fetch", [[f, "j", 1, 2]], "many"],
                        ["fetch", "not frames", 1], ["fetch", [[f, "k"]], 1], ["fetch"], None]}
    hot = batch_build_hotspots(stacks, tmp_path, tmp_path)
    assert [function.name for function in hot] == ["f"]
    assert hot[0].hot_lines == [1, 2]  # the six line-less samples went to the first line
    assert main_hotspots("garbage", tmp_path) == []


LOOPS = """\
def _is_control(ch):
    return ch in "\\t\\r"


def normalize(text):
    out = []
    for ch in text:
        if _is_control(ch):
            continue
        out.append(ch)
    return "".join(out)


def encode(text):
    return [ord(ch) for ch in normalize(text)]


def train(docs):
    for doc in docs:
        encode(doc)
        log_metrics(doc)


def log_metrics(doc):
    return sum(len(word) for word in doc.split())
"""


def _loop_paths(file: str, rows: list[tuple[list[tuple[str, int]], int]], label: str = "fetch") -> dict:
    def frame(name: str, line: int) -> list:
        first = {"_is_control": 1, "normalize": 5, "encode": 14, "train": 18, "log_metrics": 24,
                 "log_metrics.<locals>.<genexpr>": 25}[name]
        return [file, name, first, line]

    return {"totals": {label: sum(count for _, count in rows)},
            "paths": [[label, [frame(name, line) for name, line in path], count] for path, count in rows]}


def test_loop_owner_beats_the_helper_with_more_self_time(tmp_path):
    source = tmp_path / "tok.py"
    source.write_text(LOOPS)
    file = str(source)
    # The per-character helper has the most self samples, yet the loop that calls it is what to change.
    stacks = _loop_paths(file, [
        ([("encode", 15), ("normalize", 8), ("_is_control", 2)], 45),
        ([("encode", 15), ("normalize", 10)], 30),
        ([("encode", 15), ("normalize", 7)], 15),
        ([("encode", 15)], 10),
    ])
    hot = batch_build_hotspots(stacks, tmp_path, tmp_path)
    owner = hot[0]
    assert owner.name == "normalize" and owner.loop_line == 7
    assert owner.share == pytest.approx(0.9) and owner.loop_share == pytest.approx(0.9)
    assert owner.self_share == pytest.approx(0.45)
    assert [(h.name, round(h.self_share, 2)) for h in owner.helpers] == [("_is_control", 0.45)]
    assert owner.hot_lines[0] == 8 and "_is_control(ch)" in owner.source
    # encode's list comprehension (its own frame before 3.12) is folded into encode's loop.
    assert {h.name: h.loop_line for h in hot}["encode"] == 15
    assert "encode.<locals>.<listcomp>" not in {h.name for h in hot}


def test_a_hot_loops_whole_body_is_its_source_whichever_lines_were_sampled_most(tmp_path):
    source = tmp_path / "tok.py"
    source.write_text(LOOPS)
    # Two sample mixes of one loop: the hottest lines differ, the loop (and so the source the
    # knowledge base reads words in) does not.
    mixes = [[([("encode", 15), ("normalize", 8), ("_is_control", 2)], 45), ([("encode", 15), ("normalize", 8)], 30)],
             [([("encode", 15), ("normalize", 10)], 45), ([("encode", 15), ("normalize", 9)], 30)]]
    sources = set()
    for rows in mixes:
        owner = batch_build_hotspots(_loop_paths(str(source), rows), tmp_path, tmp_path)[0]
        assert owner.name == "normalize" and owner.loop_line == 7
        sources.add(owner.source)
    assert sources == {"\n".join(LOOPS.splitlines()[6:10])}  # lines 7-10: the header and its body


def test_loop_driver_gives_way_to_the_loop_it_calls_with_most_of_the_time(tmp_path):
    source = tmp_path / "tok.py"
    source.write_text(LOOPS)
    file = str(source)
    rows = [([("train", 20), ("encode", 15), ("normalize", 8), ("_is_control", 2)], 60),
            ([("train", 21), ("log_metrics", 25), ("log_metrics.<locals>.<genexpr>", 25)], 30),
            ([("train", 19)], 10)]
    hot = main_hotspots(_loop_paths(file, rows, label="other"), tmp_path)
    assert hot[0].name == "normalize"  # train's loop holds 100%, normalize's 60% (>= half): move down
    rows[0], rows[1] = (rows[0][0], 30), (rows[1][0], 60)
    hot = main_hotspots(_loop_paths(file, rows, label="other"), tmp_path)
    assert hot[0].name == "log_metrics" and hot[0].loop_line == 25
    rows[0], rows[1] = (rows[0][0], 40), (rows[1][0], 40)
    hot = main_hotspots(_loop_paths(file, rows, label="other"), tmp_path)
    assert hot[0].name == "train"  # no single callee holds half the loop: the driver itself is named


def test_after_the_loop_owner_functions_are_ranked_by_inclusive_time(tmp_path):
    source = tmp_path / "tok.py"
    source.write_text(LOOPS)
    file = str(source)
    rows = [([("train", 20), ("encode", 15), ("normalize", 8), ("_is_control", 2)], 60),
            ([("train", 21), ("log_metrics", 25), ("log_metrics.<locals>.<genexpr>", 25)], 30),
            ([("train", 19)], 10)]
    hot = main_hotspots(_loop_paths(file, rows, label="other"), tmp_path)
    # normalize owns the hot loop; then the driver (on every path), then the 60% path's functions
    # (the leaf first on the tie: self time), then log_metrics, whose own loop holds only 30%.
    assert [(h.name, round(h.share, 2)) for h in hot] == [
        ("normalize", 0.6), ("train", 1.0), ("_is_control", 0.6), ("encode", 0.6), ("log_metrics", 0.3)]


def test_tokenizer_loop_owner_is_named_in_10_of_10_profiles(tmp_path):
    from perfloop.tools.measure.profiler import ProbeSettings, build_profile, run_probed

    pipeline = PIPELINES / "tokenizer"
    source = (pipeline / "train.py").read_text().splitlines()
    settings = ProbeSettings(steps=10, warmup_steps=1)
    named = []
    for attempt in range(10):
        run = run_probed("python train.py", pipeline, tmp_path / f"run{attempt}", settings, mode="full")
        hot = build_profile(run, [], "python train.py", pipeline, settings).hot_functions
        named.append(hot[0].name)
        if hot[0].name == "normalize":
            owner = hot[0]
            assert source[owner.loop_line - 1].strip() == "for ch in text:"
            assert owner.helpers[0].name == "_is_control" and 0 < owner.helpers[0].self_share <= owner.share
            assert owner.self_share <= owner.share <= 1
    assert named == ["normalize"] * 10, named


def test_a_worker_file_cut_short_is_left_out_not_fatal(tmp_path):
    # A worker ended by its loader mid-epoch can leave an empty or partial file; the profile goes on.
    from perfloop.tools.measure.hotspots import batch_build_hotspots

    (tmp_path / "stacks-101.json").write_text("")
    (tmp_path / "stacks-102.json").write_text('{"totals": {"fetch": 3}, "paths": [')
    assert batch_build_hotspots(None, tmp_path, tmp_path) == []


_VENDORED = '''class Repeat:
    """A library wrapper whose own loop calls the user's dataset (as torch's fetcher or Subset do)."""

    def __init__(self, inner, times):
        self.inner, self.times = inner, times

    def __len__(self):
        return len(self.inner)

    def __getitem__(self, i):
        out = None
        for _ in range(self.times):
            out = self.inner[i]
        return out
'''

_WRAPPED_PIPELINE = '''import sys
from pathlib import Path

import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset

sys.path.insert(0, str(Path(__file__).parent / "vendor" / "lib" / "site-packages"))
from wrapds import Repeat  # noqa: E402


class Signals(Dataset):
    def __len__(self):
        return 4096

    def __getitem__(self, i):
        x = np.random.default_rng(i).standard_normal(20000)
        return torch.from_numpy(np.sort(x)[:8].copy())


loader = DataLoader(Repeat(Signals(), 3), batch_size=8)
model = torch.nn.Linear(8, 1)
for x in loader:
    model(x.float()).sum().backward()
'''


def test_installed_code_on_the_path_is_not_the_hot_function(tmp_path):
    # A package under any site-packages folder on sys.path (another venv's through a .pth, the user site)
    # is installed code: its loop must not take the hot function from the pipeline's own __getitem__,
    # which is the code a rewrite can change.
    from perfloop.tools.measure.profiler import ProbeSettings, build_profile, run_probed

    pipeline = tmp_path / "pipeline"
    vendor = pipeline / "vendor" / "lib" / "site-packages"
    vendor.mkdir(parents=True)
    (vendor / "wrapds.py").write_text(_VENDORED)
    (pipeline / "train.py").write_text(_WRAPPED_PIPELINE)
    settings = ProbeSettings(steps=20, warmup_steps=1)
    run = run_probed("python train.py", pipeline, tmp_path / "run", settings, mode="full")
    hot = build_profile(run, [], "python train.py", pipeline, settings).hot_functions
    assert hot, "the probe sampled no batch building"
    assert (hot[0].file, hot[0].name) == ("train.py", "Signals.__getitem__"), [(h.file, h.name) for h in hot]
    assert not any("site-packages" in h.file for h in hot)


_DISPATCH_PIPELINE = '''import torch
from torch.utils.data import DataLoader, Dataset


class Scale:
    def __init__(self, factor):
        self.factor = factor

    def __call__(self, rows):
        return [v * self.factor for v in rows]


class BandRatios:
    """Per-pixel ratios in a Python loop over lists, and a check whose sort holds most of its time (so its own
    loop holds too little of the dispatching loop's time to own the hot loop)."""

    def __call__(self, rows):
        out = []
        for v in rows:
            out.append((v - 0.5) / (v + 0.5 + 1e-3))
        order = sorted(rows * 8)
        return out if order[0] >= 0 else out[::-1]


class Compose:
    def __init__(self, transforms):
        self.transforms = transforms

    def __call__(self, x):
        for t in self.transforms:
            x = t(x)
        return x


class Pixels(Dataset):
    def __init__(self):
        self.transform = Compose([Scale(0.5), BandRatios()])

    def __len__(self):
        return 512

    def __getitem__(self, i):
        rows = [((i * 31 + k * 17) % 97) / 97.0 for k in range(6000)]
        return torch.tensor(self.transform(rows)[:8])


model = torch.nn.Linear(8, 1)
for x in DataLoader(Pixels(), batch_size=16):
    model(x.float()).sum().backward()
'''


def test_a_dispatching_loop_hands_the_vectoriser_the_function_sampled_under_it(tmp_path):
    # The hot loop only dispatches (`for t in self.transforms: x = t(x)`), calling its work by no name: the
    # profile's helpers under it reach the codemod, which rewrites the transform that holds the time.
    import torch

    from perfloop.agent.proposers.codemod import codemod_facts
    from perfloop.tools.change.codemods import CodemodContext, apply_codemod
    from perfloop.tools.measure.profiler import ProbeSettings, build_profile, run_probed

    (tmp_path / "train.py").write_text(_DISPATCH_PIPELINE)
    settings = ProbeSettings(steps=12, warmup_steps=1)
    run = run_probed("python train.py", tmp_path, tmp_path / "run", settings, mode="full")
    facts = codemod_facts(build_profile(run, [], "python train.py", tmp_path, settings))
    assert facts.hot_function is not None and facts.hot_function.name == "Compose.__call__", facts.hot_function
    assert "BandRatios.__call__" in [h.name for h in facts.hot_helpers]
    # The rest of the per-sample path (the dataset's __getitem__ that calls the hot loop) reaches the memo's
    # candidates; the hot function itself and comprehensions (code of the function holding them) do not.
    path = [f.name for f in facts.path_functions]
    assert "Pixels.__getitem__" in path and facts.hot_function.name not in path, path
    assert all("<" not in name for name in path), path
    result = apply_codemod("vectorize_hot_function", CodemodContext(root=tmp_path, profile=facts))
    assert "BandRatios.__call__" in result.summary, result.summary
    old, new = {}, {}
    exec(compile(_DISPATCH_PIPELINE.split("\nmodel = ")[0], "old", "exec"), old)
    exec(compile(result.files["train.py"].split("\nmodel = ")[0], "new", "exec"), new)
    for i in (0, 5, 300):
        assert torch.equal(old["Pixels"]()[i], new["Pixels"]()[i])


def test_a_comprehension_nested_in_a_comprehension_is_folded_into_its_function():
    """Before 3.12 `[[f(v) for v in row] for row in rows]` in `scale` samples as scale, then
    `scale.<locals>.<listcomp>`, then `scale.<locals>.<listcomp>.<locals>.<listcomp>`: both loops are
    scale's. The inner one was once left standing as a function of its own, and no codemod could find
    a function by that name."""
    from perfloop.tools.measure.hotspots import parse_frames

    raw = [["m.py", "train", 30, 33], ["m.py", "scale", 5, 6],
           ["m.py", "scale.<locals>.<listcomp>", 6, 6], ["m.py", "scale.<locals>.<listcomp>.<locals>.<listcomp>", 6, 6]]
    assert [name for _, name, _, _ in parse_frames(raw, keep_module=False)] == ["train", "scale"]
    # A comprehension of another function called from scale's comprehension stays that function's frame.
    raw = [["m.py", "scale", 5, 6], ["m.py", "scale.<locals>.<listcomp>", 6, 6], ["m.py", "clip", 12, 13],
           ["m.py", "clip.<locals>.<genexpr>", 13, 13], ["m.py", "scale.<locals>.<listcomp>.<locals>.<genexpr>", 6, 6]]
    assert [name for _, name, _, _ in parse_frames(raw, keep_module=False)] == [
        "scale", "clip", "scale.<locals>.<listcomp>.<locals>.<genexpr>"]
