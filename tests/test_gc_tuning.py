"""raise_gc_threshold: fewer young-generation collections, the same batches, on real pipelines in subprocesses."""
from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

from perfloop.tools.change.codemods import CodemodContext, DataLoaderSite, NotApplicable, ProfileFacts, apply_codemod

# Three differently written pipelines whose batches are built from many small Python objects. Each prints the
# number of collections the loop paid for (gc.callbacks) and a digest of every batch.
REPORT = '''
import gc as _gc_probe, hashlib as _h, json as _j
_collections = [0]
_gc_probe.callbacks.append(lambda phase, info: _collections.__setitem__(0, _collections[0] + (phase == "start")))
def report(batches):
    digest = _h.sha256()
    for b in batches:
        for t in (b if isinstance(b, (tuple, list)) else [b]):
            digest.update(t.numpy().tobytes())
    print("REPORT", _j.dumps({"collections": _collections[0], "digest": digest.hexdigest()}))
'''
PIPELINES = {
    # A voxel collate: a dict of accumulators per batch (sparse-conv style).
    "voxel_collate": ('''
        """Voxelise point clouds in the collate."""
        import math

        import torch
        from torch.utils.data import DataLoader

        from report import report


        def voxelize(batch):
            cells = {}
            for b, cloud in enumerate(batch):
                for x, y, z in cloud.tolist():
                    key = (b, math.floor(x * 4), math.floor(y * 4), math.floor(z * 4))
                    acc = cells.setdefault(key, [0.0, 0])
                    acc[0] += x + y + z
                    acc[1] += 1
            return torch.tensor([[v[0] / v[1]] for v in cells.values()])


        torch.manual_seed(0)
        clouds = [torch.rand(300, 3) for _ in range(64)]
        loader = DataLoader(clouds, batch_size=8, collate_fn=voxelize)
        report([batch for _ in range(2) for batch in loader])
    ''', "voxelize"),
    # A tokeniser returning lists of tuples per sample (the collate pads them).
    "token_pairs": ('''
        import random
        import torch
        from torch.utils.data import DataLoader, Dataset
        from report import report

        class Pairs(Dataset):
            def __init__(self):
                rng = random.Random(0)
                self.lines = [" ".join(rng.choice("abcdefgh") * rng.randint(1, 4) for _ in range(60)) for _ in range(400)]

            def __len__(self):
                return len(self.lines)

            def __getitem__(self, i):
                words = self.lines[i].split()
                pairs = [{"word": w, "count": [len(w)]} for w in words]
                return torch.tensor([[sum(map(ord, p["word"])) % 97, p["count"][0]] for p in pairs])

        loader = DataLoader(Pairs(), batch_size=16, collate_fn=lambda xs: torch.cat(xs))
        report([b for b in loader])
    ''', "Pairs.__getitem__"),
    # A get_batch() loop without a DataLoader: rows as dicts.
    "dict_rows": ('''
        import torch
        from report import report
        rows = [{"a": float(i % 7), "b": float(i % 5), "tags": [i % 3, i % 2]} for i in range(4000)]

        def get_batch(step):
            chunk = [dict(r, c=r["a"] * r["b"]) for r in rows[(step * 400) % 4000:][:400]]
            return torch.tensor([[r["a"], r["b"], r["c"], sum(r["tags"])] for r in chunk])

        report([get_batch(step) for step in range(20)])
    ''', "get_batch"),
}


def _run(folder, name):
    done = subprocess.run([sys.executable, f"{name}.py"], cwd=folder, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(next(line for line in done.stdout.splitlines() if line.startswith("REPORT"))[7:])


@pytest.mark.parametrize("name", sorted(PIPELINES))
def test_fewer_collections_and_the_same_batches(tmp_path, name):
    source, hot_name = PIPELINES[name]
    (tmp_path / "report.py").write_text(REPORT)
    (tmp_path / f"{name}.py").write_text(textwrap.dedent(source))
    before = _run(tmp_path, name)
    if name == "dict_rows":  # no DataLoader: the training loop's file
        ctx = CodemodContext(root=tmp_path, profile=ProfileFacts(main_hot_functions=[
            {"name": hot_name, "file": f"{name}.py", "line": 6}]))
    else:
        ctx = CodemodContext(root=tmp_path, sites=[DataLoaderSite(file=f"{name}.py", line=1, kwargs={})])
    result = apply_codemod("raise_gc_threshold", ctx)
    new_text = result.files[f"{name}.py"]
    compile(new_text, name, "exec")
    assert new_text.count("import gc\n") == 1 and "gc.set_threshold(max(gc.get_threshold()[0], 50000)" in new_text
    (tmp_path / f"{name}.py").write_text(new_text)
    after = _run(tmp_path, name)
    assert after["digest"] == before["digest"]
    assert after["collections"] * 10 < before["collections"], (before, after)


def test_a_file_that_manages_the_collector_is_left_alone(tmp_path):
    (tmp_path / "train.py").write_text("import gc\nimport torch\ngc.disable()\n")
    ctx = CodemodContext(root=tmp_path, sites=[DataLoaderSite(file="train.py", line=1, kwargs={})])
    with pytest.raises(NotApplicable, match=r"train.py:3 already manages the garbage collector \(gc.disable\)"):
        apply_codemod("raise_gc_threshold", ctx)
    with pytest.raises(NotApplicable, match="nowhere known"):
        apply_codemod("raise_gc_threshold", CodemodContext(root=tmp_path))
