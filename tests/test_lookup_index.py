"""index_lookup_tables on real files: `.index(v)` on lists the target never changes, answered from a dict."""
from __future__ import annotations

import ast
import textwrap

import pytest

from perfloop.tools.change.codemods import CodemodContext, NotApplicable, apply_codemod
from tests.conftest import hot

# Three differently written pipelines: a vocabulary on self used through a helper method, a module-level tuple
# imported from the target's own module, and a list built with sorted() indexed in a comprehension.
BASKETS = '''
    import torch


    class Baskets(torch.utils.data.Dataset):
        def __init__(self, orders, products):
            self.orders = orders
            self.vocab = [p["name"] for p in products]

        def __len__(self):
            return len(self.orders)

        def encode(self, name):
            return self.vocab.index(name) + 1

        def __getitem__(self, i):
            ids = [self.encode(p) for p in self.orders[i]]
            return torch.tensor(ids + [0] * (6 - len(ids)))
'''
ZONES = '''
    import torch
    from zones import ZONE_NAMES


    def encode_trip(trip):
        start = ZONE_NAMES.index(trip[0])
        end = ZONE_NAMES.index(trip[1])
        return torch.tensor([start, end, len(ZONE_NAMES)])


    class Trips(torch.utils.data.Dataset):
        def __init__(self, trips):
            self.trips = trips

        def __len__(self):
            return len(self.trips)

        def __getitem__(self, i):
            return encode_trip(self.trips[i])
'''
CODES = '''
    import torch


    class Codes(torch.utils.data.Dataset):
        def __init__(self, rows, codes):
            self.rows = rows
            self.codes = sorted(set(codes))

        def __len__(self):
            return len(self.rows)

        def __getitem__(self, i):
            hits = [self.codes.index(c) if c in self.codes else -1 for c in self.rows[i]]
            return torch.tensor(hits)
'''
TOKENS = '''
    import torch


    class Tokens(torch.utils.data.Dataset):
        def __init__(self, texts):
            self.texts = texts
            self.itos = ["<pad>", "<unk>"]
            for text in texts:
                for word in text.split():
                    if word not in self.itos:
                        self.itos.append(word)

        def __len__(self):
            return len(self.texts)

        def __getitem__(self, i):
            return torch.tensor([self.itos.index(w) for w in self.texts[i].split()])
'''
STOPWORDS = '''
    import torch

    STOP = ["a", "an", "the", "of", "to", "in", "on", "and", "or", "is", "for", "with"]


    class Titles(torch.utils.data.Dataset):
        def __init__(self, titles, vocab):
            self.titles = titles
            self.vocab = list(vocab)

        def __len__(self):
            return len(self.titles)

        def __getitem__(self, i):
            words = [w for w in self.titles[i].lower().split() if w not in STOP]
            ids = [self.vocab.index(w) if w in self.vocab else -1 for w in words]
            return torch.tensor(ids)
'''
PIPELINES = {
    "baskets": (BASKETS, "Baskets.__getitem__", lambda ns: ns["Baskets"](
        [[f"p{(7 * i + k) % 40}" for k in range(1 + i % 5)] for i in range(12)], [{"name": f"p{k}"} for k in range(40)])),
    "zones": (ZONES, "encode_trip", lambda ns: ns["Trips"]([(f"z{k % 30}", f"z{(5 * k) % 30}") for k in range(12)])),
    "vocab_filled_in_init": (TOKENS, "Tokens.__getitem__", lambda ns: ns["Tokens"](
        [" ".join(f"w{(i * 7 + k * 3) % 23}" for k in range(5)) for i in range(12)])),
    "stopwords_and_membership": (STOPWORDS, "Titles.__getitem__", lambda ns: ns["Titles"](
        [" ".join(["the", f"w{i % 9}", "of", f"w{(3 * i) % 13}", "AND", "x"]) for i in range(12)],
        [f"w{k}" for k in range(11)])),
    "codes": (CODES, "Codes.__getitem__", lambda ns: ns["Codes"](
        [[f"c{(3 * i + k) % 25}" for k in range(4)] for i in range(12)], [f"c{k}" for k in range(20)] * 2)),
}


def _write(tmp_path, source: str) -> str:
    text = textwrap.dedent(source)
    (tmp_path / "data.py").write_text(text)
    (tmp_path / "zones.py").write_text("ZONE_NAMES = tuple(f'z{k}' for k in range(30))\n")
    return text


def _apply(tmp_path, text: str, hot_name: str):
    line = next(n for n, l in enumerate(text.splitlines(), 1) if f"def {hot_name.split('.')[-1]}(" in l)
    return apply_codemod("index_lookup_tables", CodemodContext(root=tmp_path, profile=hot(hot_name, "data.py", line)))


def _load(text: str, tmp_path) -> dict:
    import sys

    sys.path.insert(0, str(tmp_path))
    try:
        sys.modules.pop("zones", None)
        namespace: dict = {}
        exec(compile(text, "data.py", "exec"), namespace)
        return namespace
    finally:
        sys.path.remove(str(tmp_path))


@pytest.mark.parametrize("name", sorted(PIPELINES))
def test_index_calls_on_lists_made_once_are_answered_from_a_dict_with_the_same_samples(tmp_path, name):
    source, hot_name, build = PIPELINES[name]
    text = _write(tmp_path, source)
    result = _apply(tmp_path, text, hot_name)
    new = result.files["data.py"]
    body = new.split("def _is_listed(")[1]
    assert "_index_of(" in body and ".index(" not in body.split("\n\n\n", 1)[1], body
    assert name not in ("codes", "stopwords_and_membership") or "_is_listed(" in body.split("\n\n\n", 1)[1]
    ast.parse(new)
    old_ds, new_ds = build(_load(text, tmp_path)), build(_load(new, tmp_path))
    for _ in range(2):
        for i in range(len(old_ds)):
            assert old_ds[i].tolist() == new_ds[i].tolist()


def test_the_helpers_answer_as_the_list_does_and_raise_its_errors():
    """First positions, numbers equal across types (1, 1.0, True; -0.0 and 0.0), NaN by identity, numpy scalars,
    values a dict cannot hold; an IntEnum hashes by its name, so a list holding one is searched as before."""
    import enum

    import numpy as np

    class Level(enum.IntEnum):
        LOW = 3

    namespace: dict = {}
    from perfloop.tools.change.codemods.lookup_index import HELPER_SOURCE
    exec(HELPER_SOURCE, namespace)
    index_of, listed = namespace["_index_of"], namespace["_is_listed"]
    nan = float("nan")
    for items in (["a", "b", "a", 1, 2.0, True, ("t", 1), -0.0, nan] + [f"x{k}" for k in range(10)],
                  [Level.LOW, 1, "a"] + list(range(10, 20))):
        for value in ["a", "b", 1, 2, 2.0, True, ("t", 1), "x9", 0.0, nan, float("nan"), np.float64(2.0),
                      np.int64(1), np.str_("x3"), Level.LOW, 3, "zz", [1], 3.5]:
            try:
                expected = items.index(value)
            except ValueError:
                expected = ValueError
            try:
                got = index_of(items, value)
            except ValueError:
                got = ValueError
            assert got == expected and listed(items, value) == (value in items), (items[0], value)
    unhashable = [[k] for k in range(12)]
    assert index_of(unhashable, [7]) == 7 and listed(unhashable, [7])  # items a dict cannot hold: scanned


@pytest.mark.parametrize("change, refused", [
    ("self.vocab.append('extra')", "may change or share .vocab"),
    ("v = self.vocab", "may change or share .vocab"),
    ("self.vocab = self.orders[0]", r"bound outside __init__ \(line \d+\) to something other than a new list"),
])
def test_a_list_the_target_may_change_or_share_keeps_its_scan(tmp_path, change, refused):
    text = textwrap.dedent(BASKETS).replace("    def __len__(self):\n",
                                            f"    def grow(self):\n        {change}\n\n    def __len__(self):\n")
    assert change in text
    (tmp_path / "data.py").write_text(text)
    with pytest.raises(NotApplicable, match=refused):
        _apply(tmp_path, text, "Baskets.__getitem__")


def test_a_list_passed_in_from_outside_or_a_string_keeps_its_scan(tmp_path):
    shared = textwrap.dedent(BASKETS).replace('self.vocab = [p["name"] for p in products]', "self.vocab = products")
    (tmp_path / "data.py").write_text(shared)
    with pytest.raises(NotApplicable, match="the `products` handed to __init__: Baskets is built nowhere"):
        _apply(tmp_path, shared, "Baskets.__getitem__")
    text = textwrap.dedent(BASKETS).replace('self.vocab = [p["name"] for p in products]', 'self.vocab = "abcdef"')
    (tmp_path / "data.py").write_text(text)
    with pytest.raises(NotApplicable, match="str.index is a substring search|new list or tuple"):
        _apply(tmp_path, text, "Baskets.__getitem__")


GROWING = {
    # A GraphSAGE-style sampler numbering nodes as it meets them: try .index, append on ValueError.
    "numbering": ('''
        def sample_block(dst_nodes, neighbours):
            src_nodes = list(dst_nodes)
            src_index = []
            for v in dst_nodes:
                for u in neighbours[v]:
                    try:
                        s = src_nodes.index(u)
                    except ValueError:
                        s = len(src_nodes)
                        src_nodes.append(u)
                    src_index.append(s)
            return src_index, src_nodes
    ''', "sample_block", lambda rng: ([rng.randrange(40) for _ in range(6)],
                                     {v: [rng.randrange(40) for _ in range(5)] for v in range(40)})),
    # A first-seen vocabulary with `not in`, then positions read back, items of mixed kinds (1, 1.0, True, "1").
    "dedup": ('''
        def first_seen(tokens):
            seen = []
            for t in tokens:
                if t not in seen:
                    seen.append(t)
            codes = [seen.index(t) for t in tokens]
            return codes, seen
    ''', "first_seen", lambda rng: ([rng.choice([1, 1.0, True, "1", 2, (1, 2), -0.0, 0, "a", b"a"])
                                     for _ in range(60)],)),
    # A while loop over pairs; an unhashable item (a list) makes the kept positions stale, and the list answers.
    "stale": ('''
        def pair_ids(pairs):
            keys = []
            out = []
            k = 0
            while k < len(pairs):
                key = pairs[k]
                if key in keys:
                    out.append(keys.index(key))
                else:
                    keys.append(key)
                    out.append(len(keys) - 1)
                k += 1
            return out
    ''', "pair_ids", lambda rng: ([(rng.randrange(4), rng.randrange(3)) for _ in range(30)]
                                  + [[1, 2], (0, 0), [1, 2], (3, 1)],)),
}


@pytest.mark.parametrize("name", sorted(GROWING))
def test_a_list_built_by_appends_keeps_its_positions_beside_it(tmp_path, name):
    """blind10 a5: `src_nodes.index(u)` on a list the collate grows scanned it from the front for every neighbour.
    The same answers, the same ValueError for a missing value, from positions kept as it grows."""
    import random

    source, function, make_args = GROWING[name]
    text = textwrap.dedent(source)
    (tmp_path / "mod.py").write_text(text)
    line = next(i for i, l in enumerate(text.splitlines(), 1) if l.startswith(f"def {function}("))
    result = apply_codemod("index_lookup_tables", CodemodContext(root=tmp_path, profile=hot(function, "mod.py", line)))
    new_text = result.files["mod.py"]
    assert "_kept_positions(" in new_text and ("_index_kept(" in new_text or "_in_kept(" in new_text)
    old, new = {}, {}
    exec(compile(text, "old", "exec"), old)
    exec(compile(new_text, "new", "exec"), new)
    for seed in range(5):
        args = make_args(random.Random(seed))
        assert repr(old[function](*args)) == repr(new[function](*args))


def test_a_missing_value_raises_what_the_list_raises(tmp_path):
    text = textwrap.dedent('''
        def position(items, extra, probe):
            seen = list(items)
            for x in extra:
                seen.append(x)
            return seen.index(probe)
    ''')
    (tmp_path / "mod.py").write_text(text)
    result = apply_codemod("index_lookup_tables", CodemodContext(root=tmp_path, profile=hot("position", "mod.py", 2)))
    old, new = {}, {}
    exec(compile(text, "old", "exec"), old)
    exec(compile(result.files["mod.py"], "new", "exec"), new)
    for namespace in (old, new):
        with pytest.raises(ValueError, match=r"^'z' is not in list$"):
            namespace["position"](["a", "b"], ["c"], "z")
    assert new["position"](["a", "b"], ["c", "a"], "a") == old["position"](["a", "b"], ["c", "a"], "a") == 0


@pytest.mark.parametrize("source, why", [
    ('''
        def ids(tokens, log):
            vocab = []
            out = []
            for t in tokens:
                log(vocab)
                if t not in vocab:
                    vocab.append(t)
                out.append(vocab.index(t))
            return out
    ''', r"vocab: line 6 `log\(vocab\)` may change it or hand it on before its searches end"),
    ('''
        def ids(tokens):
            vocab = []
            out = []
            for t in tokens:
                if t not in vocab:
                    vocab.insert(0, t)
                out.append(vocab.index(t))
            return out
    ''', r"vocab: line 7 `vocab.insert` may change it"),
])
def test_a_list_changed_otherwise_or_handed_on_keeps_its_scan(tmp_path, source, why):
    text = textwrap.dedent(source)
    (tmp_path / "mod.py").write_text(text)
    with pytest.raises(NotApplicable, match=why):
        apply_codemod("index_lookup_tables", CodemodContext(root=tmp_path, profile=hot("ids", "mod.py", 2)))
