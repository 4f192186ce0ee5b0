"""A sample built through a classmethod of the target's own class (`cls(...)`, `cls.helper(...)`) is read as the
sample's code, as `Cls(...)` is, so the per-index cache takes it (blind25 v4's `ServiceStringAdvice.from_una`
was refused: "calls `cls`, a value perfloop cannot read the code of"). Three differently written datasets, each
cached and equal to the original over three epochs; a random draw in the class made, or a subclass that may be
the `cls`, still refuses."""
from __future__ import annotations

import pytest

from perfloop.tools.change.codemods import NotApplicable
from tests.test_cache_samples import rewrite, same


def load(text: str) -> dict:
    """The module's namespace, compiled without this file's `from __future__` (a dataclass reads real annotations)."""
    namespace: dict = {"__name__": "data"}
    exec(compile(text, "data.py", "exec", dont_inherit=True), namespace)
    return namespace

MADE_BY_CLS = {
    # A dataclass read from a header through `cls(*fields)`, then used to split the body.
    "dataclass_from_header": ('''
        from dataclasses import dataclass

        import torch
        from torch.utils.data import Dataset


        @dataclass
        class Layout:
            sep: str = ","
            decimal: str = "."
            skip: int = 0

            @classmethod
            def from_header(cls, line):
                sep, decimal, skip = line.split("|")[:3]
                return cls(sep, decimal, int(skip))


        class Sheets(Dataset):
            def __init__(self, texts):
                self.texts = texts

            def __len__(self):
                return len(self.texts)

            def __getitem__(self, i):
                head, body = self.texts[i].split("\\n", 1)
                layout = Layout.from_header(head)
                cells = body.split(layout.sep)[layout.skip:]
                return torch.tensor([float(c.replace(layout.decimal, ".")) for c in cells])
    ''', "Sheets.__getitem__", lambda ns: ns["Sheets"]([f";|,|{k % 2}\n" + ";".join(f"{k}{j},5" for j in range(6))
                                                          for k in range(8)])),
    # A plain class whose classmethod makes `obj = cls()`, fills it and calls a method of the object.
    "filled_object": ('''
        import math

        import torch
        from torch.utils.data import Dataset


        class Track:
            def __init__(self):
                self.points = []

            @classmethod
            def parse(cls, text):
                obj = cls()
                for part in text.split():
                    x, y = part.split(":")
                    obj.points.append((float(x), float(y)))
                return obj

            def length(self):
                total = 0.0
                for (x0, y0), (x1, y1) in zip(self.points, self.points[1:]):
                    total += math.hypot(x1 - x0, y1 - y0)
                return total


        class Tracks(Dataset):
            def __init__(self, rows):
                self.rows = rows

            def __len__(self):
                return len(self.rows)

            def __getitem__(self, idx):
                track = Track.parse(self.rows[idx])
                return torch.tensor([track.length(), len(track.points)], dtype=torch.float64)
    ''', "Tracks.__getitem__", lambda ns: ns["Tracks"]([" ".join(f"{j * k}:{j + k}" for j in range(5))
                                                        for k in range(1, 9)])),
    # A classmethod that calls a static helper of its own class through `cls.`.
    "static_through_cls": ('''
        import torch
        from torch.utils.data import Dataset


        class Reading:
            def __init__(self, unit, values):
                self.unit, self.values = unit, values

            @staticmethod
            def _number(text):
                return float(text.strip().rstrip("%")) / (100.0 if text.endswith("%") else 1.0)

            @classmethod
            def from_record(cls, record):
                unit, _, rest = record.partition("=")
                return cls(unit, [cls._number(v) for v in rest.split(",")])


        class Readings(Dataset):
            def __init__(self, records):
                self.records = records

            def __len__(self):
                return len(self.records)

            def __getitem__(self, k):
                r = Reading.from_record(self.records[k])
                return torch.tensor(r.values), len(r.unit)
    ''', "Readings.__getitem__", lambda ns: ns["Readings"]([f"u{k}=1.5,{k}%,{k * 3}" for k in range(8)])),
}


@pytest.mark.parametrize("name", sorted(MADE_BY_CLS))
def test_a_sample_made_through_cls_in_a_classmethod_is_cached(tmp_path, name):
    source, hot_name, build = MADE_BY_CLS[name]
    old_text, result = rewrite(tmp_path, source, hot_name)
    new_text = result.files["data.py"]
    assert "def _uncached_getitem(self" in new_text, result.summary
    old, new = build(load(old_text)), build(load(new_text))
    for _ in range(3):
        assert all(same(old[i], new[i]) for i in range(len(old)))


def test_cls_stays_refused_where_its_init_draws_or_a_subclass_may_be_it(tmp_path):
    source, hot_name, _ = MADE_BY_CLS["filled_object"]
    drawing = source.replace("self.points = []", "import random\n                self.points = []\n"
                             "                self.jitter = random.random()")
    with pytest.raises(NotApplicable, match="random draw"):
        rewrite(tmp_path, drawing, hot_name)
    derived = source.replace("        class Tracks(Dataset):",
                             "        class Loop(Track):\n            pass\n\n\n        class Tracks(Dataset):")
    with pytest.raises(NotApplicable, match="calls `cls`"):
        rewrite(tmp_path, derived, hot_name)
