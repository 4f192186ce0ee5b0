"""A transform chain's steps that draw nothing, cached per index: three differently written chains, old
against new over three epochs, and what is refused."""
from __future__ import annotations

import random
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
import torch

from perfloop.tools.change.codemods import CodemodContext, NotApplicable, apply_codemod
from tests.conftest import hot

CHAINS = {
    # a1's shape: raw bytes in a dict sample, a static decode of the target's own codec class, the Compose's
    # list copied from a parameter, the dataset's attributes set by one tuple assignment, crops drawn from a
    # generator the transforms share.
    "dict_sample_from_bytes": ('''
        import struct

        import numpy as np
        import torch


        class Codec:
            @staticmethod
            def decode(buf):
                h, w = struct.unpack_from("<HH", buf, 0)
                return np.frombuffer(buf, dtype="<u2", offset=4).reshape(h, w)


        class Compose:
            def __init__(self, transforms):
                self.transforms = list(transforms)

            def __call__(self, sample):
                for t in self.transforms:
                    sample = t(sample)
                return sample


        class Decode:
            def __call__(self, sample):
                sample["counts"] = Codec.decode(sample["raw"])
                return sample


        class Calibrate:
            def __init__(self, gain):
                self.gain = gain

            def __call__(self, sample):
                rows = []
                for row, grow in zip(sample["counts"].tolist(), self.gain.tolist()):
                    rows.append([v * g if v else None for v, g in zip(row, grow)])
                sample["image"] = torch.tensor([[0.0 if v is None else v for v in r] for r in rows])
                return sample


        class RandomCrop:
            def __init__(self, size, generator):
                self.size, self.generator = size, generator

            def __call__(self, sample):
                img = sample["image"]
                top = int(torch.randint(0, img.shape[0] - self.size + 1, (1,), generator=self.generator))
                sample["image"] = img[top:top + self.size]
                return sample


        class Frames(torch.utils.data.Dataset):
            def __init__(self, frames, labels, transform):
                self.frames, self.labels, self.transform = frames, labels, transform

            def __len__(self):
                return len(self.frames)

            def __getitem__(self, idx):
                sample = self.transform({"raw": self.frames[idx]})
                return sample["image"], self.labels[idx]


        def build(n):
            frames = [struct.pack("<HH", 6, 5) + np.arange(30, dtype="<u2").tobytes() * 1 for _ in range(n)]
            gain = np.linspace(0.5, 1.5, 30).reshape(6, 5)
            transform = Compose([Decode(), Calibrate(gain), RandomCrop(4, torch.Generator().manual_seed(0))])
            return Frames(frames, [k % 3 for k in range(n)], transform)
    ''', "Calibrate.__call__", "Calibrate"),
    # A numpy signal behind `if self.transform is not None:`, the chain built in `__init__` from its arguments,
    # a shift drawn from numpy's global generator.
    "guarded_numpy_signal": ('''
        import numpy as np
        import torch
        from torch.utils.data import Dataset


        def moving_average(x, width):
            out = []
            for i in range(len(x)):
                window = x[max(0, i - width + 1):i + 1]
                out.append(sum(window) / len(window))
            return np.asarray(out)


        class Chain:
            """Apply each step in turn."""

            def __init__(self, steps):
                self.steps = steps

            def __call__(self, x):
                """The steps, in order."""
                for step in self.steps:
                    x = step(x)
                return x


        class Standardize:
            def __init__(self, mean, std):
                self.mean, self.std = mean, std

            def __call__(self, x):
                return (x - self.mean) / self.std


        class Smooth:
            def __init__(self, width):
                self.width = width

            def __call__(self, x):
                return moving_average(x.tolist(), self.width)


        class RandomShift:
            def __init__(self, most):
                self.most = most

            def __call__(self, x):
                return np.roll(x, np.random.randint(-self.most, self.most + 1))


        class Signals(Dataset):
            def __init__(self, n, mean, std, augment=True):
                rng = np.random.default_rng(7)
                self.x = rng.normal(mean, std, size=(n, 40))
                steps = [Standardize(mean, std), Smooth(5)]
                self.transform = Chain(steps + [RandomShift(3)] if augment else steps)

            def __len__(self):
                return len(self.x)

            def __getitem__(self, i):
                x = self.x[i]
                if self.transform is not None:
                    x = self.transform(x)
                return torch.from_numpy(x).float(), i % 2


        def build(n):
            return Signals(n, 2.0, 0.5)
    ''', "moving_average", "Smooth"),
    # Text through a tuple of steps handed over by a builder function, called inside the returned tuple, with
    # masking from the random module.
    "returned_text_pipeline": ('''
        import random

        import torch


        class Pipeline:
            def __init__(self, *steps):
                self.steps = steps

            def __call__(self, text):
                for fn in self.steps:
                    text = fn(text)
                return text


        class Normalize:
            def __call__(self, text):
                return " ".join(w.strip(".,;!?").lower() for w in text.split())


        class WordPieces:
            def __init__(self, vocab):
                self.vocab = vocab

            def pieces(self, word):
                out, start = [], 0
                while start < len(word):
                    end = len(word)
                    while end > start and word[start:end] not in self.vocab:
                        end -= 1
                    if end == start:
                        out.append(1)
                        start += 1
                    else:
                        out.append(self.vocab[word[start:end]])
                        start = end
                return out

            def __call__(self, text):
                return [p for w in text.split() for p in self.pieces(w)]


        class RandomMask:
            def __init__(self, p):
                self.p = p

            def __call__(self, ids):
                return torch.tensor([0 if random.random() < self.p else t for t in ids])


        class Reviews(torch.utils.data.Dataset):
            def __init__(self, texts, labels, pipeline):
                self.texts = texts
                self.labels = labels
                self.pipeline = pipeline

            def __len__(self):
                return len(self.texts)

            def __getitem__(self, index):
                return self.pipeline(self.texts[index]), self.labels[index]


        def build(n):
            vocab = {p: k + 2 for k, p in enumerate(["the", "ca", "t", "sat", "on", "ma", "a", "s"])}
            pipe = Pipeline(Normalize(), WordPieces(vocab), RandomMask(0.2))
            texts = [("The cat sat on the mat. " * (1 + k % 3)).strip() for k in range(n)]
            return Reviews(texts, [k % 2 for k in range(n)], pipe)
    ''', "WordPieces.pieces", "WordPieces"),
}


def rewrite(tmp_path: Path, source: str, hot_name: str):
    text = textwrap.dedent(source)
    (tmp_path / "data.py").write_text(text)
    short = hot_name.split(".")[-1]
    line = next(i for i, l in enumerate(text.splitlines(), 1) if f"def {short}(" in l)
    ctx = CodemodContext(root=tmp_path, profile=hot(hot_name, "data.py", line))
    return text, apply_codemod("cache_samples", ctx)


def load(text: str, name: str) -> dict:
    """The module's namespace, its classes carrying `name` as their module (as an imported module's would)."""
    module = type(sys)(name)
    sys.modules[name] = module
    try:
        exec(compile(text, f"{name}.py", "exec"), module.__dict__)
    finally:
        del sys.modules[name]
    return module.__dict__


def same(a, b) -> bool:
    if isinstance(a, torch.Tensor):
        return a.dtype == b.dtype and torch.equal(a, b)
    if isinstance(a, (list, tuple)):
        return type(a) is type(b) and len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    return type(a) is type(b) and a == b


def epochs(dataset, n: int = 3) -> list:
    """Every sample, `n` epochs, the global generators seeded per epoch as a training script would."""
    out = []
    for epoch in range(n):
        random.seed(epoch), np.random.seed(epoch), torch.manual_seed(epoch)
        out.append([dataset[i] for i in range(len(dataset))])
    return out


@pytest.mark.parametrize("name", sorted(CHAINS))
def test_a_chains_leading_steps_that_draw_nothing_run_once_per_index_and_every_draw_stays(tmp_path, name):
    """The chain's call is split in two; the head, with what comes before it, is cached per index; the steps
    from the first random one on run on every access, so three epochs draw what they drew, in the same order."""
    source, hot_name, hot_class = CHAINS[name]
    old_text, result = rewrite(tmp_path, source, hot_name)
    new_text = result.files["data.py"]
    assert "def _transform_head(self" in new_text and "split off into the cached part" in result.summary, result.summary
    assert "random" in result.notes[0] and hot_class in result.notes[0], result.notes
    namespace = load(new_text, "data")
    calls = []
    original = namespace[hot_class].__call__
    namespace[hot_class].__call__ = lambda self, x: calls.append(1) or original(self, x)
    old, new = load(old_text, "data")["build"](6), namespace["build"](6)
    for before, after in zip(epochs(old), epochs(new)):
        assert all(same(a, b) for a, b in zip(before, after))
    assert len(calls) == len(new), calls  # the hot step ran once per index over three epochs


def test_another_chain_of_the_same_classes_is_split_where_its_own_first_random_step_is(tmp_path):
    """The head's length is read per call from the chain's own list: a dataset built without the random shift
    runs every step in the cached part, and its samples stay the old ones."""
    source, hot_name, _ = CHAINS["guarded_numpy_signal"]
    old_text, result = rewrite(tmp_path, source, hot_name)
    old = load(old_text, "data")["Signals"](5, 2.0, 0.5, augment=False)
    new = load(result.files["data.py"], "data")["Signals"](5, 2.0, 0.5, augment=False)
    assert new._transform_head_length(new.transform.steps) == 2
    for before, after in zip(epochs(old), epochs(new)):
        assert all(same(a, b) for a, b in zip(before, after))


REFUSED = {
    # The random step comes first: nothing leads that draws nothing.
    "random_step_first": ("Chain(steps + [RandomShift(3)] if augment else steps)",
                          "Chain([RandomShift(3)] + steps)", "no chain it holds starts with a step that draws nothing"),
    # The hot smoothing runs after the draw: caching the standardisation would not save its time.
    "hot_step_after_the_draw": ("Chain(steps + [RandomShift(3)] if augment else steps)",
                                "Chain([Standardize(mean, std), RandomShift(3), Smooth(5)])", "is not run by the steps that draw nothing"),
    # A chain that counts its calls is not only its steps: it is not split.
    "a_chain_with_its_own_state": ("            x = step(x)\n",
                                   "            x = step(x)\n            self.calls = getattr(self, 'calls', 0) + 1\n",
                                   "cannot read the code of|random draw"),
    # The dataset already has a method of a name the split adds.
    "a_method_of_the_same_name": ("    def __len__(self):\n",
                                  "    def _transform_tail(self, x):\n        return x\n\n    def __len__(self):\n",
                                  "already has a method named _transform_tail"),
    # Called inside a conditional expression: it may not run whenever its statement does.
    "called_under_a_condition": ("            x = self.transform(x)\n",
                                 "            x = self.transform(x) if len(x) else x\n", "may not run every time"),
}


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_a_chain_that_cannot_be_split_is_refused_saying_why(tmp_path, name):
    old, new, why = REFUSED[name]
    source = textwrap.dedent(CHAINS["guarded_numpy_signal"][0])
    assert old in source
    with pytest.raises(NotApplicable, match=why):
        rewrite(tmp_path, source.replace(old, new), "moving_average")
