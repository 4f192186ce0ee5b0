"""Draws that DataLoader workers would split outside a dataset's `__getitem__`: transform objects handed to the
pipeline and collate functions (`worker_draws.callable_draws`), each prediction checked against the real loader."""
from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from perfloop.tools.change.codemods import NotApplicable, apply_codemod
from tests.test_codemods import make_context

HEAD = """
import functools
import sys

import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset, Sampler


class Rows(Dataset):
    def __init__(self, n, transform=None):
        self.x = np.arange(n * 4, dtype=np.float32).reshape(n, 4)
        self.transform = transform

    def __len__(self):
        return len(self.x)

    def __getitem__(self, i):
        row = self.x[i]
        return self.transform(row) if self.transform is not None else row
"""

CASES = {
    # A torchvision-style chain built in the script and handed to the dataset; the flip keeps its own generator.
    "compose_object": ("""
class Compose:
    def __init__(self, steps):
        self.steps = steps

    def __call__(self, x):
        for step in self.steps:
            x = step(x)
        return x


class RandomFlip:
    def __init__(self, seed):
        self.rng = np.random.default_rng(seed)

    def __call__(self, x):
        return x[::-1].copy() if self.rng.random() < 0.5 else x


class Scale:
    def __call__(self, x):
        return x * 2.0


def build(workers):
    chain = Compose([Scale(), RandomFlip(seed=1)])
    return DataLoader(Rows(16, transform=chain), batch_size=4, num_workers=workers)
""", r"RandomFlip \(train.py:\d+\), handed to the data pipeline, draws from self.rng in __call__"),
    # An HF-style collator whose generator is made by a chained manual_seed.
    "collate_class": ("""
class MaskingCollator:
    def __init__(self, seed, p=0.3):
        self.gen = torch.Generator().manual_seed(seed)
        self.p = p

    def _mask(self, batch):
        keep = torch.rand(batch.shape, generator=self.gen) >= self.p
        return batch * keep

    def __call__(self, rows):
        return self._mask(torch.as_tensor(np.stack(rows)))


def build(workers):
    collate = MaskingCollator(seed=3)
    return DataLoader(Rows(16), batch_size=4, num_workers=workers, collate_fn=collate)
""", r"MaskingCollator \(train.py:\d+\), handed to the data pipeline, draws from self.gen in _mask"),
    # A crop handed its generator by the script (`RandomCrop(size, rng)`), blind10 b1's shape.
    "handed_generator": ("""
class RandomCrop:
    def __init__(self, size, rng):
        self.size = size
        self.rng = rng

    def __call__(self, x):
        start = int(self.rng.integers(0, len(x) - self.size + 1))
        return x[start:start + self.size].copy()


def build(workers):
    crop = RandomCrop(3, np.random.default_rng(4))
    return DataLoader(Rows(16, transform=crop), batch_size=4, num_workers=workers)
""", r"RandomCrop \(train.py:\d+\), handed to the data pipeline, draws with self.rng.integers\(\) in __call__"),
    # A torchvision-style flip drawing with `torch.rand(1, generator=self.generator)` on a generator the script made
    # and handed over by keyword (blind11 b1's shape): the draw names the generator as an argument, not a method.
    "generator_keyword": ("""
class RandomFlipRotate:
    def __init__(self, p=0.5, generator=None):
        self.p = p
        self.generator = generator

    def __call__(self, x):
        if torch.rand(1, generator=self.generator).item() < self.p:
            x = x[::-1]
        k = int(torch.randint(0, 3, (1,), generator=self.generator))
        return np.roll(x, k).copy()


def build(workers):
    flip = RandomFlipRotate(p=0.5, generator=torch.Generator().manual_seed(5))
    return DataLoader(Rows(16, transform=flip), batch_size=4, num_workers=workers)
""", r"RandomFlipRotate \(train.py:\d+\), handed to the data pipeline, draws with torch.rand(int)?\(generator=self.generator\) "
       r"in __call__"),
    # blind12 a5's shape: an HF-style dataclass collator whose generator is made in __post_init__.
    "dataclass_collator": ('''
from dataclasses import dataclass, field


@dataclass
class ClozeCollator:
    seed: int = 0
    p: float = 0.3
    rng: np.random.Generator = field(init=False, repr=False)

    def __post_init__(self):
        self.rng = np.random.default_rng(self.seed)

    def __call__(self, rows):
        batch = np.stack(rows)
        return torch.as_tensor(np.where(self.rng.random(batch.shape) < self.p, -1.0, batch))


def build(workers):
    collator = ClozeCollator(seed=7)
    return DataLoader(Rows(16), batch_size=4, num_workers=workers, collate_fn=collator)
''', r"ClozeCollator \(train.py:\d+\), handed to the data pipeline, draws from self.rng in __call__ \(line \d+\), "
     r"a np.random.default_rng its __post_init__ made"),
    # blind12 a1's shape: a crop whose __init__ keeps its generator by a tuple assignment, inside a Compose.
    "tuple_assigned_generator": ('''
class Compose:
    def __init__(self, transforms):
        self.transforms = list(transforms)

    def __call__(self, x):
        for t in self.transforms:
            x = t(x)
        return x


class RandomCrop:
    def __init__(self, size, generator):
        self.size, self.generator = size, generator

    def __call__(self, x):
        start = int(torch.randint(0, len(x) - self.size + 1, (1,), generator=self.generator))
        return x[start:start + self.size].copy()


def build(workers):
    chain = Compose([RandomCrop(3, torch.Generator().manual_seed(9))])
    return DataLoader(Rows(16, transform=chain), batch_size=4, num_workers=workers)
''', r"RandomCrop \(train.py:\d+\), handed to the data pipeline, draws with torch.randint\(generator=self.generator\)"),
    # A collate function through functools.partial that draws from torch's process-wide stream via a helper.
    "collate_function": ("""
def jitter(batch, scale):
    return batch + scale * torch.randn(batch.shape)


def collate(rows, scale):
    return jitter(torch.as_tensor(np.stack(rows)), scale)


def build(workers):
    return DataLoader(Rows(16), batch_size=4, num_workers=workers, collate_fn=functools.partial(collate, scale=0.1))
""", r"the collate function collate \(train.py:\d+\) draws from the process-wide stream with torch.randn\(\)"),
    # A collate that seeds its own generator from the batch: the same draws in any process.
    "seeded_per_batch": ("""
def collate(rows):
    batch = torch.as_tensor(np.stack(rows))
    gen = torch.Generator().manual_seed(int(batch[0, 0]))
    return batch + torch.rand(batch.shape, generator=gen)


def build(workers):
    return DataLoader(Rows(16), batch_size=4, num_workers=workers, collate_fn=collate)
""", None),
    # A mixup object called in the training loop (the main process), never handed to the pipeline; a sampler with
    # a generator of its own, which the loader runs in the main process too.
    "main_process_only": ("""
class Mixup:
    def __init__(self, seed):
        self.rng = np.random.default_rng(seed)

    def __call__(self, batch):
        lam = float(self.rng.beta(0.4, 0.4))
        return lam * batch + (1 - lam) * batch.flip(0)


class ShuffledSampler(Sampler):
    def __init__(self, n, seed):
        self.n, self.rng = n, np.random.default_rng(seed)

    def __call__(self):
        return self.rng.permutation(self.n)

    def __iter__(self):
        return iter(self.rng.permutation(self.n).tolist())

    def __len__(self):
        return self.n


def build(workers):
    return DataLoader(Rows(16), batch_size=4, num_workers=workers, sampler=ShuffledSampler(16, seed=5))
""", None),
}

TAIL = """

if __name__ == "__main__":
    torch.manual_seed(0)
    mix = Mixup(seed=2) if "Mixup" in globals() else None
    out = []
    for batch in build(int(sys.argv[1])):
        batch = torch.as_tensor(batch)
        out.append([round(v, 4) for v in (mix(batch) if mix else batch).flatten().tolist()])
    print(out)
"""


@pytest.mark.parametrize("case", sorted(CASES))
def test_draws_the_workers_would_split_are_said_before_any_run(tmp_path, case):
    body, refusal = CASES[case]
    source = textwrap.dedent(HEAD) + textwrap.dedent(body) + TAIL
    ctx = make_context(tmp_path, {"train.py": source}, params={"value": 2})
    if refusal:
        with pytest.raises(NotApplicable, match=r"num_workers 0 → 2 would change the samples: " + refusal):
            apply_codemod("set_num_workers", ctx)
    else:
        assert apply_codemod("set_num_workers", ctx).new_value == 2
    runs = [subprocess.run([sys.executable, "train.py", str(n)], cwd=tmp_path, capture_output=True, text=True,
                           timeout=120) for n in (0, 2)]
    assert all(run.returncode == 0 for run in runs), runs[1].stderr
    assert (runs[0].stdout != runs[1].stdout) == (refusal is not None), (runs[0].stdout, runs[1].stdout)


ITERABLE = """
import sys

import torch
from torch.utils.data import DataLoader, IterableDataset


class Stream(IterableDataset):
    def __init__(self, n):
        self.n = n

    def __iter__(self):
        for i in range(self.n):
            yield torch.tensor([float(i)])


if __name__ == "__main__":
    loader = DataLoader(Stream(12), batch_size=4, num_workers=int(sys.argv[1]))
    print([b.flatten().tolist() for b in loader])
"""


def test_an_iterable_dataset_is_run_whole_by_every_worker(tmp_path):
    """blind10 a3: an IterableDataset's iterator runs from the start in each worker (every sample once per worker
    without sharding, interleaved batches with it): num_workers 0 → 2 changed the batches after two timed runs."""
    ctx = make_context(tmp_path, {"train.py": ITERABLE}, params={"value": 2})
    with pytest.raises(NotApplicable, match=r"Stream \(train.py:\d+\) is an IterableDataset: each worker runs its "
                                            r"iterator from the start"):
        apply_codemod("set_num_workers", ctx)
    runs = [subprocess.run([sys.executable, "train.py", str(n)], cwd=tmp_path, capture_output=True, text=True,
                           timeout=120) for n in (0, 2)]
    assert all(run.returncode == 0 for run in runs), runs[1].stderr
    assert runs[0].stdout != runs[1].stdout


BATCHED = """
import sys

import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset


class Windows(Dataset):
    def __init__(self, n, seed):
        self.x = np.arange(n * 4, dtype=np.float32).reshape(n, 4)
        self.rng = np.random.default_rng(seed)

    def __len__(self):
        return len(self.x)

    def __getitem__(self, i):
        return self.x[i]

    def __getitems__(self, indices):
        noise = self.rng.normal(size=(len(indices), 4)).astype(np.float32)
        return [torch.from_numpy(self.x[i] + noise[k]) for k, i in enumerate(indices)]


if __name__ == "__main__":
    loader = DataLoader(Windows(16, 0), batch_size=4, num_workers=int(sys.argv[1]))
    print([round(float(b.sum()), 4) for b in loader])
"""


def test_a_dataset_that_hands_out_batches_is_read_through_getitems(tmp_path):
    """blind10 b5: the loader calls `__getitems__` where a dataset has one, and its draws carry just the same."""
    ctx = make_context(tmp_path, {"train.py": BATCHED}, params={"value": 2})
    with pytest.raises(NotApplicable, match=r"would change the samples: Windows.__getitems__ .*self\.rng\.normal"):
        apply_codemod("set_num_workers", ctx)
    runs = [subprocess.run([sys.executable, "train.py", str(n)], cwd=tmp_path, capture_output=True, text=True,
                           timeout=120) for n in (0, 2)]
    assert all(run.returncode == 0 for run in runs), runs[1].stderr
    assert runs[0].stdout != runs[1].stdout
