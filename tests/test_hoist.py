"""hoist_step_invariants: per-step work that gives the same value moves out of the training loop, on real
pipelines in subprocesses (three written differently), and each refusal says which statement and why."""
from __future__ import annotations

import ast
import difflib
import subprocess
import sys
import textwrap

import pytest

from perfloop.tools.change.codemods import CodemodContext, NotApplicable, apply_codemod
from perfloop.tools.change.codemods.hoist import MARK

PIPELINES = {
    # A main() with epoch and batch loops; class weights from a helper that counts into a fresh array, an
    # identity matrix for one-hot targets. Both leave both loops.
    "nested_main": ('''
        import numpy as np
        import torch
        import torch.nn.functional as F
        from torch.utils.data import DataLoader, TensorDataset

        LABELS = np.random.default_rng(0).integers(0, 5, 512)


        def class_weights(labels, k):
            counts = np.zeros(k)
            for label in labels:
                counts[label] += 1
            return torch.tensor(counts.sum() / (k * counts), dtype=torch.float32)


        def main():
            torch.manual_seed(0)
            x = torch.randn(512, 8)
            loader = DataLoader(TensorDataset(x, torch.as_tensor(LABELS)), batch_size=32)
            model = torch.nn.Linear(8, 5)
            opt = torch.optim.SGD(model.parameters(), lr=0.1)
            for epoch in range(2):
                for xb, yb in loader:
                    weights = class_weights(LABELS, 5)
                    eye = torch.eye(5)
                    target = eye[yb]
                    out = model(xb)
                    loss = F.cross_entropy(out, yb, weight=weights) + 0.01 * ((out.softmax(-1) - target) ** 2).mean()
                    opt.zero_grad()
                    loss.backward()
                    opt.step()
                    print("LOSS", repr(loss.item()))


        main()
    ''', {"weights = class_weights(LABELS, 5)", "eye = torch.eye(5)"}),
    # A flat script with a while loop and get_batch(): the normalisation's statistics and a character vocabulary
    # are recomputed every step.
    "flat_while": ('''
        import torch

        torch.manual_seed(1)
        TEXT = "the quick brown fox jumps over the lazy dog " * 40
        data = torch.randn(2000, 16)
        model = torch.nn.Sequential(torch.nn.Linear(16 + 8, 32), torch.nn.ReLU(), torch.nn.Linear(32, 1))
        opt = torch.optim.Adam(model.parameters(), lr=1e-3)


        def get_batch(step):
            start = (step * 64) % 1900
            return data[start:start + 64]


        step = 0
        while step < 40:
            xb = get_batch(step)
            mean, std = data.mean(0), data.std(0)
            vocab = {c: i for i, c in enumerate(sorted(set(TEXT)))}
            codes = torch.tensor([vocab[c] for c in TEXT[:8]], dtype=torch.float32) / len(vocab)
            feats = torch.cat([(xb - mean) / std, codes.expand(len(xb), 8)], dim=1)
            loss = model(feats).pow(2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            print("LOSS", step, repr(loss.item()))
            step += 1
    ''', {"mean, std = (data.mean(0), data.std(0))", "vocab = {c: i for i, c in enumerate(sorted(set(TEXT)))}",
          "codes = torch.tensor([vocab[c] for c in TEXT[:8]], dtype=torch.float32) / len(vocab)"}),
    # A trainer class: the loop is in fit(); a causal mask and a scale from the trainer's own settings, while
    # self.model, self.opt and self.seen change every step.
    "trainer_class": ('''
        import math

        import torch
        from torch.utils.data import DataLoader, TensorDataset


        class Trainer:
            def __init__(self, dim, length):
                torch.manual_seed(2)
                self.dim, self.length = dim, length
                data = torch.randn(256, length, dim)
                self.loader = DataLoader(TensorDataset(data), batch_size=16)
                self.model = torch.nn.Linear(dim, dim)
                self.opt = torch.optim.SGD(self.model.parameters(), lr=0.05)
                self.seen = 0

            def fit(self, epochs):
                for _ in range(epochs):
                    for (xb,) in self.loader:
                        mask = torch.triu(torch.ones(self.length, self.length), diagonal=1).bool()
                        scale = math.sqrt(self.dim)
                        h = self.model(xb)
                        scores = (h @ h.transpose(1, 2) / scale).masked_fill(mask, -1e9)
                        loss = scores.softmax(-1).var()
                        self.opt.zero_grad()
                        loss.backward()
                        self.opt.step()
                        self.seen += len(xb)
                        print("LOSS", self.seen, repr(loss.item()))


        Trainer(12, 10).fit(2)
    ''', {"mask = torch.triu(torch.ones(self.length, self.length), diagonal=1).bool()",
          "scale = math.sqrt(self.dim)"}),
}


def _losses(folder) -> list[str]:
    done = subprocess.run([sys.executable, "train.py"], cwd=folder, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    losses = [line for line in done.stdout.splitlines() if line.startswith("LOSS")]
    assert len(losses) >= 20
    return losses


def _moved(text: str) -> set[str]:
    """The statements between perfloop's mark and the loop below it, unparsed."""
    lines = text.splitlines()
    found = set()
    for k, line in enumerate(lines):
        if line.strip() == MARK:
            block = []
            for following in lines[k + 1:]:
                if following.lstrip().startswith(("for ", "while ")):
                    break
                block.append(following)
            found |= {ast.unparse(s) for s in ast.parse(textwrap.dedent("\n".join(block))).body}
    return found


@pytest.mark.parametrize("name", sorted(PIPELINES))
def test_invariant_statements_leave_the_loop_and_every_loss_is_the_same(tmp_path, name):
    source, expected = PIPELINES[name]
    (tmp_path / "train.py").write_text(textwrap.dedent(source))
    before = _losses(tmp_path)
    result = apply_codemod("hoist_step_invariants", CodemodContext(root=tmp_path))
    new = result.files["train.py"]
    assert _moved(new) == expected, new
    for statement in expected:  # gone from the loop: each is computed once now
        assert sum(ast.unparse(s) == statement for s in ast.walk(ast.parse(new)) if isinstance(s, ast.stmt)) == 1
    (tmp_path / "train.py").write_text(new)
    assert _losses(tmp_path) == before  # every step's loss, bit for bit
    assert result.tolerance is None and "moved:" in result.notes[0]


BASE = '''
import numpy as np
import torch

HISTORY = []
data = torch.arange(64.0).reshape(16, 4)
model = torch.nn.Linear(4, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.01)


def log(value):
    HISTORY.append(value)
    return value


def centre(a):
    a -= a.mean()
    return a

{extra}
for step in range(8):
    xb = data[step:step + 4].clone()  # a copy: the model may change it, data stays
    {line}
    loss = model(xb).pow(2).mean(){use}
    opt.zero_grad()
    loss.backward()
    opt.step()
{after}'''


@pytest.mark.parametrize("line, use, extra, after, why", [
    ("buf = np.zeros(3)", "\n    buf[0] += loss.item()", "", "", "the loop may change buf"),
    ("noise = torch.randn(4)", " + noise.sum()", "", "", "draws random numbers"),
    ("c = centre(data.clone())", " + c.sum()", "", "", "changes `a` in place"),
    ("h = len(HISTORY)", " + h\n    log(step)", "", "", "the loop may change HISTORY"),
    ("s = data.sum()", " + s", "", "print(s)", "s is used outside the loop too"),
    ("t = cfg.total()", " + t", "class Cfg:\n    def __init__(self):\n        self.n = 1\n\n"
     "    def total(self):\n        return self.n\n\n    def bump(self):\n        self.n += 1\n\n\ncfg = Cfg()\n", "",
     "may change its object"),
    ("n = float(table.n)", " + n", "class Table:\n    def __init__(self):\n        self.n = 1\n\n"
     "    def bump(self):\n        self.n += 1\n\n\ntable = Table()\n", "", "reads .n, which a method other than __init__"),
    ("w = data.mean()", " + w\n    data.mul_(0.5)", "", "", "the loop may change data"),
    ("pairs = zip(data.tolist(), range(16))", "\n    n = sum(1 for _ in pairs)", "", "", "is an iterator"),
    ("squares = (v * v for v in data.sum(1).tolist())", " + sum(squares)", "", "", "is an iterator"),
    ("v = data[:4].float()", " + v.sum()\n    row = data[0]\n    row += 1", "", "", "the loop may change data"),
])
def test_refusals_name_the_statement_and_why(tmp_path, line, use, extra, after, why):
    (tmp_path / "train.py").write_text(BASE.replace("{line}", line).replace("{use}", use)
                                       .replace("{extra}", extra).replace("{after}", after))
    compile((tmp_path / "train.py").read_text(), "train.py", "exec")
    with pytest.raises(NotApplicable) as refused:
        apply_codemod("hoist_step_invariants", CodemodContext(root=tmp_path))
    assert line.split(" = ")[0] in str(refused.value) and why in str(refused.value), str(refused.value)


def test_a_loop_without_step_invariant_work_is_not_applicable_and_a_missing_step_says_so(tmp_path):
    (tmp_path / "train.py").write_text(BASE.replace("{line}", "z = xb.sum()").replace("{use}", " + z")
                                       .replace("{extra}", "").replace("{after}", ""))
    with pytest.raises(NotApplicable, match="no statement of the training loop"):
        apply_codemod("hoist_step_invariants", CodemodContext(root=tmp_path))
    (tmp_path / "train.py").write_text("x = 1\n")
    with pytest.raises(NotApplicable, match="no training step found"):
        apply_codemod("hoist_step_invariants", CodemodContext(root=tmp_path))


def test_a_statement_sharing_its_line_with_other_code_is_not_cut(tmp_path):
    (tmp_path / "train.py").write_text(BASE.replace("{line}", "s = data.sum(); t = 1").replace("{use}", " + s + t")
                                       .replace("{extra}", "").replace("{after}", ""))
    with pytest.raises(NotApplicable, match="shares its lines with other code"):
        apply_codemod("hoist_step_invariants", CodemodContext(root=tmp_path))


# hoist_loop_invariants: three hot functions written differently, each run old and new on the same inputs.
HOT = {
    # A greedy tokenizer that sorts its vocabulary at every character position (a nested loop's iterable).
    "tokenizer": ('''
        class Tokenizer:
            def __init__(self, vocab):
                self.vocab = list(vocab)

            def tokenize(self, text):
                out, i = [], 0
                while i < len(text):
                    match = text[i]
                    for tok in sorted(self.vocab, key=len, reverse=True):
                        if text.startswith(tok, i):
                            match = tok
                            break
                    out.append(match)
                    i += len(match)
                return out


        def run():
            tok = Tokenizer(["ab", "abc", "c", "Cl", "Br", "[nH]", "=", "(", ")"] + [f"x{k}" for k in range(60)])
            return [tok.tokenize(s) for s in ["abcClBr(=c)[nH]", "x1x22abcab", "((C))" * 5]]
    ''', "Tokenizer.tokenize", {"_loop_invariant_1 = sorted(self.vocab, key=len, reverse=True)"}),
    # A per-pixel function: a gain from the settings and a kernel rebuilt for every pixel.
    "pixels": ('''
        import math


        def render(img, cfg):
            h, w = len(img), len(img[0])
            out = [[0.0] * w for _ in range(h)]
            for y in range(h):
                for x in range(w):
                    gain = math.exp(cfg["gamma"]) * 2.0
                    kernel = [math.exp(-k * k / cfg["width"]) for k in range(-2, 3)]
                    left = img[y][max(x - 1, 0)]
                    out[y][x] = (img[y][x] * kernel[2] + left * kernel[1]) * gain
            return out


        def run():
            img = [[(y * 7 + x * 3) % 11 / 10.0 for x in range(12)] for y in range(9)]
            return render(img, {"gamma": 0.3, "width": 2.5})
    ''', "render", {"gain = math.exp(cfg['gamma']) * 2.0",
                    "kernel = [math.exp(-k * k / cfg['width']) for k in range(-2, 3)]"}),
    # A dataset's __getitem__ over frames: the window and the band centres recomputed for every frame.
    "frames": ('''
        import numpy as np


        class Frames:
            def __init__(self, n, win, bands):
                self.signals = [np.sin(np.arange(400) * (k + 1) / 30.0) for k in range(n)]
                self.win, self.bands = win, bands

            def __len__(self):
                return len(self.signals)

            def __getitem__(self, i):
                x = self.signals[i]
                feats = []
                t = 0
                while t + self.win <= len(x):
                    window = np.hanning(self.win)
                    spectrum = np.abs(np.fft.rfft(x[t:t + self.win] * window))
                    row = []
                    for centre in np.linspace(0, self.win // 2, self.bands).tolist():
                        row.append(float(spectrum[int(centre)]))
                    feats.append(row)
                    t += self.win // 2
                return np.asarray(feats)


        def run():
            ds = Frames(3, 32, 6)
            return [ds[i].tolist() for i in range(len(ds))]
    ''', "Frames.__getitem__", {"window = np.hanning(self.win)",
                                "_loop_invariant_1 = np.linspace(0, self.win // 2, self.bands).tolist()"}),
    # Filtered negative sampling: every candidate is checked against a list of known triples.
    "negatives": ('''
        import random


        def sample_negatives(triples, known, n_ent, k, seed):
            rng = random.Random(seed)
            out = []
            for h, r, t in triples:
                for _ in range(k):
                    cand = rng.randrange(n_ent)
                    while (h, r, cand) in known:
                        cand = rng.randrange(n_ent)
                    out.append((h, r, cand))
            return out


        def run():
            known = [(i % 50, i % 7, (i * 13) % 50) for i in range(400)]
            return sample_negatives(known[:60], known, 50, 4, 0)
    ''', "sample_negatives", {"_lookup_1 = _membership_lookup(known)"}),
}


def _run_module(path):
    import importlib.util

    spec = importlib.util.spec_from_file_location(f"hot_{path.stem}_{abs(hash(path.read_text()))}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.run()


@pytest.mark.parametrize("name", sorted(HOT))
def test_loop_invariants_of_the_hot_function_move_out_and_every_value_is_the_same(tmp_path, name):
    from tests.conftest import hot

    source, qualname, expected = HOT[name]
    path = tmp_path / f"{name}.py"
    path.write_text(textwrap.dedent(source))
    before = _run_module(path)
    line = next(k for k, text in enumerate(path.read_text().splitlines(), 1)
                if text.strip().startswith(f"def {qualname.rsplit('.', 1)[-1]}("))
    result = apply_codemod("hoist_loop_invariants", CodemodContext(root=tmp_path, profile=hot(qualname, path.name, line)))
    new = result.files[path.name]
    moved = {ast.unparse(s) for s in ast.parse(new).body} | {
        ast.unparse(s) for n in ast.walk(ast.parse(new)) if isinstance(n, ast.FunctionDef) for s in n.body}
    assert expected <= moved, new
    assert result.replay is not None and result.replay.function == qualname
    path.write_text(new)
    assert _run_module(path) == before


@pytest.mark.parametrize("line, why", [
    ("scale = float(np.random.rand())", "draws random numbers"),
    ("pairs = zip(xs, xs)", "is an iterator"),
    ("order = sorted(seen)", "the loop may change seen"),
    ("m = max(xs) + v", None),  # reads the loop's own value: per-pass work, not named
])
def test_hot_function_refusals(tmp_path, line, why):
    from tests.conftest import hot

    (tmp_path / "feat.py").write_text(textwrap.dedent(f'''
        import numpy as np


        def feature(xs):
            seen, total = [], 0.0
            for v in xs:
                {line}
                seen.append(v)
                total += v * 2
            return total
    '''))
    with pytest.raises(NotApplicable) as refused:
        apply_codemod("hoist_loop_invariants", CodemodContext(root=tmp_path, profile=hot("feature", "feat.py", 5)))
    if why is not None:
        assert line.split(" = ")[0] in str(refused.value) and why in str(refused.value), str(refused.value)
    else:
        assert "no loop recomputes a value from a call" in str(refused.value)


def test_a_membership_test_against_a_list_the_loop_changes_keeps_its_list(tmp_path):
    from tests.conftest import hot

    (tmp_path / "dedup.py").write_text(textwrap.dedent('''
        def dedup(xs, banned):
            seen = []
            for v in xs:
                if v in seen or v in banned:
                    continue
                seen.append(v)
            return seen


        def run():
            return dedup([3, 1, 3, 2, 1, 5, 9, 2] * 20, [9, 4])
    '''))
    result = apply_codemod("hoist_loop_invariants", CodemodContext(root=tmp_path, profile=hot("dedup", "dedup.py", 2)))
    new = result.files["dedup.py"]
    assert "_lookup_2 = _membership_lookup(banned)" in new and "v in seen" in new, new
    # The patch this makes must pass the scope check: a helper once named `_perfloop_lookup` read as a
    # mention of the probe, and every hoist that used it was refused at the patch stage.
    from perfloop.tools.change.patching import scope_problems

    old = (tmp_path / "dedup.py").read_text()
    diff = "".join(difflib.unified_diff(old.splitlines(True), new.splitlines(True), "a/dedup.py", "b/dedup.py"))
    assert scope_problems(diff, "", ["*.py"]) == []
    assert any("the loop may change seen" in note for note in result.notes), result.notes
    before = _run_module(tmp_path / "dedup.py")
    (tmp_path / "dedup.py").write_text(new)
    assert _run_module(tmp_path / "dedup.py") == before


@pytest.mark.parametrize("items, probe", [
    ([1, 2.0, "a", b"b", None, (1, "x"), True], [1, 2, 2.0, "a", b"b", None, (1, "x"), 1.0, 0, False, "z"]),
    ("abcdef", ["ab", "z", "cd"]),  # a string: substring tests, kept as it is
    ([[1], [2]], [[1], [3]]),  # unhashable items: kept
    ([float("nan"), -0.0], [0.0, float("nan")]),
])
def test_the_lookup_helper_answers_as_the_container_does(items, probe):
    from perfloop.tools.change.codemods.hoist import LOOKUP_HELPER, LOOKUP_SOURCE

    namespace: dict = {}
    exec(LOOKUP_SOURCE, namespace)
    lookup = namespace[LOOKUP_HELPER](items)
    assert [p in lookup for p in probe] == [p in items for p in probe]


def test_no_name_a_codemod_writes_mentions_the_probe():
    """Identifiers the codemods write into user code never read as a mention of the probe or its variables.

    The scope check refuses any patch whose added lines mention PROBE_REFERENCES (case-insensitive),
    so a made name like `_perfloop_lookup` silently lost every rewrite that used it.
    """
    import re
    from pathlib import Path

    import perfloop.tools.change.codemods as codemods
    from perfloop.tools.change.patching import PROBE_REFERENCES

    identifier = re.compile(r"_*[A-Za-z][A-Za-z0-9_]*")
    found = []
    for path in sorted(Path(codemods.__file__).parent.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and identifier.fullmatch(node.value):
                found += [f"{path.name}: {node.value!r}" for ref in PROBE_REFERENCES
                          if ref.lower() in node.value.lower()]
    assert found == []
