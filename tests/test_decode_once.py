"""Decode stored records once: the codemod on real datasets, what it refuses, and the profile that asks for it."""
from __future__ import annotations

import json
import textwrap
import types
from pathlib import Path

import numpy as np
import pytest
import torch

from perfloop.agent.proposers.codemod import codemod_facts
from perfloop.knowledge_base import diagnose
from perfloop.tools.change.codemods import CodemodContext, NotApplicable, apply_codemod
from perfloop.tools.measure.profiler import ProbeSettings, build_profile, run_probed
from tests.conftest import hot

JSON_DATASET = textwrap.dedent('''
    import json

    import numpy as np
    import torch
    from torch.utils.data import Dataset


    class Clicks(Dataset):
        def __init__(self, lines, scale):
            self.lines = lines
            self.scale = scale

        def __len__(self):
            return len(self.lines)

        def __getitem__(self, i):
            record = json.loads(self.lines[i])
            return record
''')

READ_ONLY_BODY = textwrap.dedent('''
    def __getitem__(self, i):
        record = json.loads(self.lines[i])
        dense = []
        for v in record["dense"]:
            dense.append(float(v) * self.scale)
        history = [int(t) for t in record["history"]]
        return {
            "ids": torch.tensor([record["user"], record["item"]]),
            "history": torch.tensor(history),
            "dense": torch.tensor(dense, dtype=torch.float32),
            "nested": np.asarray(record["meta"]["weights"], dtype=np.float32),
            "label": torch.tensor(float(record["clicked"]) + 0.0),
        }
''')


def dataset_source(getitem: str) -> str:
    head = JSON_DATASET.split("    def __getitem__")[0]
    return head + textwrap.indent(getitem, "    ")


def lines(n=24, seed=0):
    rng = np.random.default_rng(seed)
    return [json.dumps({"user": int(rng.integers(100)), "item": int(rng.integers(50)),
                        "history": rng.integers(0, 50, 6).tolist(), "dense": rng.standard_normal(5).round(4).tolist(),
                        "meta": {"weights": rng.random(3).tolist()}, "clicked": int(rng.integers(2))})
            for _ in range(n)]


def rewrite(tmp_path: Path, source: str):
    (tmp_path / "data.py").write_text(source)
    line = next(i for i, text in enumerate(source.splitlines(), 1) if "def __getitem__" in text)
    ctx = CodemodContext(root=tmp_path, profile=hot("Clicks.__getitem__", "data.py", line))
    return apply_codemod("cache_decoded_records", ctx)


def load(text: str) -> dict:
    namespace: dict = {}
    exec(compile(text, "data.py", "exec"), namespace)
    return namespace


def test_records_are_decoded_once_and_every_epoch_sees_the_same_samples(tmp_path):
    source = dataset_source(READ_ONLY_BODY)
    result = rewrite(tmp_path, source)
    new_text = result.files["data.py"]
    assert "self._decoded_lines = [json.loads(self.lines[k]) for k in range(len(self.lines))]" in new_text
    assert "record = self._decoded_lines[i]" in new_text and "in memory" in " ".join(result.notes)
    decoded = []
    new_namespace = load(new_text)
    new_namespace["json"] = types.SimpleNamespace(loads=lambda text: decoded.append(text) or json.loads(text))
    old, new = load(source)["Clicks"](lines(), 0.5), new_namespace["Clicks"](lines(), 0.5)
    for epoch in range(3):  # a cached record handed out in epoch 0 must come back unchanged
        for i in range(len(old)):
            a, b = old[i], new[i]
            assert a.keys() == b.keys()
            for key in a:
                if isinstance(a[key], torch.Tensor):
                    assert a[key].dtype == b[key].dtype and torch.equal(a[key], b[key]), (epoch, i, key)
                else:
                    assert a[key].dtype == b[key].dtype and np.array_equal(a[key], b[key]), (epoch, i, key)
    assert decoded == lines()  # each record decoded once, at construction, in order


def test_literal_eval_records_decode_once(tmp_path):
    source = textwrap.dedent('''
        import ast

        import torch
        from torch.utils.data import Dataset


        class Clicks(Dataset):
            def __init__(self, rows):
                self.rows = [str(r) for r in rows]

            def __len__(self):
                return len(self.rows)

            def __getitem__(self, idx):
                pair = ast.literal_eval(self.rows[idx])
                return torch.tensor(pair[0]), len(pair[1])
    ''')
    result = rewrite(tmp_path, source)
    assert "self._decoded_rows[idx]" in result.files["data.py"]
    rows = [([1.5, 2.0], "abc"), ([3.0, -1.0], "de")]
    old, new = load(source)["Clicks"](rows), load(result.files["data.py"])["Clicks"](rows)
    for i in range(2):
        assert torch.equal(old[i][0], new[i][0]) and old[i][1] == new[i][1]


REFUSED = {
    "changes or calls into a decoded value": '''
        def __getitem__(self, i):
            record = json.loads(self.lines[i])
            record["history"].append(0)
            return torch.tensor(record["history"])
    ''',
    "changes or calls into a decoded value ": '''
        def __getitem__(self, i):
            record = json.loads(self.lines[i])
            record["clicked"] = 1 - record["clicked"]
            return torch.tensor(record["history"])
    ''',
    "decodes no `self.<attr>[i]`": '''
        def __getitem__(self, i):
            record = json.loads(self.lines[i].strip())
            return torch.tensor(record["history"])
    ''',
}


@pytest.mark.parametrize("reason", sorted(REFUSED))
def test_records_that_could_change_after_decoding_are_refused(tmp_path, reason):
    source = dataset_source(textwrap.dedent(REFUSED[reason]))
    with pytest.raises(NotApplicable, match=reason.strip().replace("`", ".").replace("<", ".").replace(">", ".")
                       .replace("[", ".").replace("]", ".")):
        rewrite(tmp_path, source)


HANDED_OUT = {
    # The record: features converted, the int label handed out as it is.
    "label in a tuple": '''
        def __getitem__(self, i):
            rec = json.loads(self.lines[i])
            x = torch.tensor(rec["dense"], dtype=torch.float32)
            x = (x - x.mean()) / (x.std() + 1e-6)
            return x, rec["label_list"], rec["clicked"]
    ''',
    "kept in a variable": '''
        def __getitem__(self, i):
            record = json.loads(self.lines[i])
            history = record["history"]
            return torch.tensor(history), history
    ''',
    "the whole record": '''
        def __getitem__(self, i):
            record = json.loads(self.lines[i])
            return record
    ''',
}


@pytest.mark.parametrize("name", sorted(HANDED_OUT))
def test_values_handed_out_as_they_are_are_copied_so_epochs_stay_independent(tmp_path, name):
    source = dataset_source(textwrap.dedent(HANDED_OUT[name]))
    result = rewrite(tmp_path, source)
    new_text = result.files["data.py"]
    assert "copy.deepcopy(" in new_text and "\nimport copy\n" in new_text
    assert "deepcopy" in " ".join(result.notes)
    raw = [line[:-1] + ', "label_list": [1, 2]}' for line in lines()]
    old, new = load(source)["Clicks"](raw, 0.5), load(new_text)["Clicks"](raw, 0.5)

    def spoil(sample):  # what a careless caller might do to what it was handed
        for leaf in (sample.values() if isinstance(sample, dict) else sample if isinstance(sample, tuple) else []):
            if isinstance(leaf, list):
                leaf.append(-1)
        if isinstance(sample, dict):
            sample["clicked"] = "changed"

    for epoch in range(3):
        for i in range(len(old)):
            a, b = old[i], new[i]
            assert repr(a) == repr(b), (epoch, i)
            spoil(a), spoil(b)


def test_records_reassigned_after_init_are_refused(tmp_path):
    source = dataset_source(READ_ONLY_BODY) + textwrap.indent(textwrap.dedent('''

        def reload(self, lines):
            self.lines = lines
    '''), "    ")
    with pytest.raises(NotApplicable, match="only reads by subscript or len"):
        rewrite(tmp_path, source)


JSON_PIPELINE = '''
import json

import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset

torch.set_num_threads(1)
rng = np.random.default_rng(0)
LINES = [json.dumps({"history": rng.integers(0, 500, 400).tolist(), "dense": rng.standard_normal(400).round(4).tolist(),
                     "clicked": int(rng.integers(2))}) for _ in range(256)]


class Clicks(Dataset):
    def __init__(self, lines):
        self.lines = lines

    def __len__(self):
        return len(self.lines)

    def __getitem__(self, i):
        record = json.loads(self.lines[i])
        return (torch.tensor(record["history"]), torch.tensor(record["dense"], dtype=torch.float32),
                torch.tensor(float(record["clicked"])))


model = torch.nn.Linear(400, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
for epoch in range(100):
    for history, dense, label in DataLoader(Clicks(LINES), batch_size=32):
        loss = (model(dense).squeeze(1) - label).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
'''


def test_a_real_json_pipeline_asks_for_decoding_once_and_gets_it(tmp_path):
    (tmp_path / "train.py").write_text(JSON_PIPELINE)
    settings = ProbeSettings(steps=10, warmup_steps=1)
    full = run_probed("python train.py", tmp_path, tmp_path / "out", settings, mode="full")
    built = build_profile(full, [], "python train.py", tmp_path, settings)
    metrics = built.metrics()
    found = {d.entry_id: d for d in diagnose(metrics)}
    assert "decode_heavy_samples" in found, (metrics["hot_function"], metrics.get("hot_function_source"), list(found))
    remedy = found["decode_heavy_samples"].remedies[0]
    assert remedy.id == "decode_records_once" and remedy.kind == "codemod"
    ctx = CodemodContext(root=tmp_path, profile=codemod_facts(built))
    result = apply_codemod(remedy.codemod, ctx)
    assert result.files["train.py"].count("self._decoded_lines") == 2
