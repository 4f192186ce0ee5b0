"""hoist_loop_invariants, per-counter tables: a value an inner loop computes from its counter alone (and what no
enclosing loop changes) is computed the first time each counter comes and kept across the outer loop's passes.

Three functions written differently (a method per FFT bin under a frame loop, a module function per token
position under a `while` over documents, two math calls per column under image and row loops), each run old
and new on the same inputs; and the refusals, each naming nothing it should not move."""
from __future__ import annotations

import ast
import importlib.util
import textwrap

import pytest

from perfloop.tools.change.codemods import CodemodContext, NotApplicable, apply_codemod
from perfloop.tools.change.codemods.hoist import TABLE_STEM

TABLED = {
    # A torchaudio-style feature class: each FFT bin's band from a method that reads the object's fixed settings
    # and returns None outside the band range; the method call is the cost of every bin of every frame.
    "bands": ('''
        import math


        class BandPool:
            def __init__(self, sample_rate, n_fft, f_lo=60.0, f_hi=5000.0, n_bands=10):
                self.sample_rate, self.n_fft = sample_rate, n_fft
                self.f_lo, self.f_hi, self.n_bands = f_lo, f_hi, n_bands

            def band(self, k):
                hz = k * self.sample_rate / self.n_fft
                if hz < self.f_lo or hz > self.f_hi:
                    return None
                return min(int(self.n_bands * math.log(hz / self.f_lo) / math.log(self.f_hi / self.f_lo)),
                           self.n_bands - 1)

            def __call__(self, frames):
                pooled = []
                for frame in frames:
                    energy = [0.0] * self.n_bands
                    for k, mag in enumerate(frame):
                        b = self.band(k)
                        if b is not None:
                            energy[b] += mag * mag
                    pooled.append(energy)
                return pooled


        def run():
            frames = [[((f * 31 + k * 17) % 97) / 7.0 for k in range(257)] for f in range(12)]
            frames.append([])  # an empty frame
            frames.append([1.0] * 300)  # a longer one: counters the earlier frames never reached
            return BandPool(16000, 512)(frames)
    ''', "BandPool.__call__", "for frame in frames:", "self.band(k)"),
    # A tokenised-document featuriser: a position weight from a module function, per position of every
    # document of a `while` loop; the weight reads a fixed parameter.
    "positions": ('''
        import math


        def position_weight(pos, alpha):
            return 1.0 / (1.0 + alpha * math.log1p(pos))


        def weighted_bags(docs, alpha=0.7):
            out = []
            d = 0
            while d < len(docs):
                doc = docs[d]
                bag = {}
                for pos in range(len(doc)):
                    w = position_weight(pos, alpha)
                    bag[doc[pos]] = bag.get(doc[pos], 0.0) + w
                out.append(sorted(bag.items()))
                d += 1
            return out


        def run():
            docs = [[(i * 7 + j * 3) % 11 for j in range(5 + i % 9)] for i in range(40)] + [[]]
            return weighted_bags(docs)
    ''', "weighted_bags", "while d < len(docs):", "position_weight(pos, alpha)"),
    # An image taper: per column, two math calls; rows and images around it. The table goes before the image
    # loop, the outermost loop the column's value stays the same in.
    "taper": ('''
        import math


        def taper_images(images, width):
            tapered = []
            for image in images:
                rows = []
                for row in image:
                    out = []
                    for col in range(width):
                        gain = 0.5 - 0.5 * math.cos(2.0 * math.pi * col / (width - 1)) * math.exp(-col / width)
                        out.append(row[col] * gain)
                    rows.append(out)
                tapered.append(rows)
            return tapered


        def run():
            images = [[[float((r * 5 + c + n) % 13) for c in range(24)] for r in range(6)] for n in range(5)]
            return taper_images(images, 24)
    ''', "taper_images", "for image in images:", "math.cos(2.0 * math.pi * col / (width - 1))"),
}


def _load(path):
    spec = importlib.util.spec_from_file_location(f"tabled_{path.stem}_{abs(hash(path.read_text()))}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _rewrite(tmp_path, name, source, qualname):
    from tests.conftest import hot

    path = tmp_path / f"{name}.py"
    path.write_text(textwrap.dedent(source))
    line = next(k for k, text in enumerate(path.read_text().splitlines(), 1)
                if text.strip().startswith(f"def {qualname.rsplit('.', 1)[-1]}("))
    return path, apply_codemod("hoist_loop_invariants",
                               CodemodContext(root=tmp_path, profile=hot(qualname, path.name, line)))


@pytest.mark.parametrize("name", sorted(TABLED))
def test_a_value_of_the_inner_counter_is_computed_once_per_counter_and_every_output_is_the_same(tmp_path, name):
    source, qualname, outer, call = TABLED[name]
    path, result = _rewrite(tmp_path, name, source, qualname)
    new = result.files[path.name]
    before = _load(path).run()
    lines = new.splitlines()
    table = next(k for k, text in enumerate(lines) if text.strip().startswith(f"{TABLE_STEM}1 = {{}}"))
    # The table is made just before the outermost loop the value stays the same in, and read where the call was.
    assert lines[table + 1].strip() == outer, new
    assert f"else {TABLE_STEM}1.setdefault(" in new and call in new, new
    assert "once per inner-loop counter" in result.summary
    assert any("computed once per value of the inner loop's counter" in note for note in result.notes)
    assert result.replay is not None and result.replay.function == qualname
    ast.parse(new)
    path.write_text(new)
    assert _load(path).run() == before


REFUSED = {
    # The scale changes with every frame: the value differs between passes for the same counter.
    "outer_binds": ('''
        import math


        def scaled(frames):
            out = []
            for frame in frames:
                scale = max(frame) if frame else 1.0
                out.append([v * math.exp(k / scale) * math.sqrt(scale) for k, v in enumerate(frame)])
                total = 0.0
                for k in range(len(frame)):
                    total += math.exp(k / scale) * math.sqrt(scale)
                out.append(total)
            return out
    ''', "scaled"),
    # The method counts its calls on the object: remembering its value would skip the count.
    "writes_self": ('''
        import math


        class Counted:
            def __init__(self):
                self.calls = 0

            def weight(self, k):
                self.calls += 1
                return math.exp(-k)

            def __call__(self, frames):
                out = []
                for frame in frames:
                    acc = 0.0
                    for k, v in enumerate(frame):
                        w = self.weight(k)
                        acc += v * w
                    out.append(acc)
                return out
    ''', "Counted.__call__"),
    # The loop changes the list the helper returned: one list kept across passes would grow on every pass.
    "changes_value": ('''
        def neighbours(k):
            return [k - 1, k + 1]


        def walk(frames):
            out = []
            for frame in frames:
                for k in range(len(frame)):
                    near = neighbours(k)
                    near.append(k)
                    out.append(sum(frame[j] for j in near if 0 <= j < len(frame)))
            return out
    ''', "walk"),
    # The counter is rebound in the loop: what the helper reads is no longer the pass's counter.
    "counter_rebound": ('''
        import math


        def ramp(k):
            return math.sqrt(k) * math.log1p(k)


        def stretched(frames):
            out = []
            for frame in frames:
                for k in range(len(frame)):
                    k = k * 2
                    out.append(frame[k // 2] * ramp(k))
            return out
    ''', "stretched"),
}


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_a_value_that_may_differ_between_passes_is_not_tabled(tmp_path, name):
    source, qualname = REFUSED[name]
    try:
        path, result = _rewrite(tmp_path, name, source, qualname)
    except NotApplicable as refused:
        assert "hoist_loop_invariants" in str(refused)
        return
    assert TABLE_STEM not in result.files[path.name], result.files[path.name]
