"""index_lookup_tables on vocabularies bound again after construction (`train`, `fit`, `load`), each time to a new list.

The tables are kept per list object, so a list bound again gets a table of its own; a list filled or shared outside
`__init__` keeps its scan. A value no table holds raises the list's own ValueError without scanning it.
"""
from __future__ import annotations

import json
import sys
import textwrap

import pytest

from perfloop.tools.change.codemods import CodemodContext, NotApplicable, apply_codemod
from tests.conftest import hot

# Three differently written tokenizers whose vocabulary is set after construction.
TRAINED = '''
    from collections import Counter


    class Grams:
        def __init__(self, size=40):
            self.size = size
            self.vocab = ["[PAD]", "[UNK]"]

        def train(self, texts):
            counts = Counter(g for t in texts for g in t.split())
            ranked = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
            self.vocab = ["[PAD]", "[UNK]"] + [g for g, _ in ranked[: self.size - 2]]
            return self

        def encode(self, text):
            ids = []
            for tok in text.split():
                try:
                    ids.append(self.vocab.index(tok))
                except ValueError:
                    ids.append(1)
            return ids
'''
FITTED = '''
    class Labels:
        def __init__(self):
            self.classes_ = []

        def fit(self, values):
            self.classes_ = sorted(set(values))
            return self

        def encode(self, values):
            return [self.classes_.index(v) if v in self.classes_ else -1 for v in values]
'''
LOADED = '''
    import json


    class Words:
        def __init__(self, path=None):
            self.itos = list(json.load(open(path))) if path else []

        def load(self, path):
            with open(path) as f:
                self.itos = list(json.load(f))

        def encode(self, text):
            return [self.itos.index(w) for w in text.split() if w in self.itos]
'''

FACTORY = '''
    SPECIALS = ["<pad>", "<unk>", "<bos>"]


    class Moves:
        def __init__(self, vocab):
            self.vocab = list(vocab)

        @classmethod
        def from_games(cls, games):
            tok = cls(SPECIALS)
            seen = {w for g in games for w in g.split()}
            nags = sorted(w for w in seen if w.startswith("$"))
            sans = sorted(w for w in seen if not w.startswith("$"))
            tok.vocab = SPECIALS + nags + sans
            return tok

        def encode(self, text):
            return [self.vocab.index(w) if w in self.vocab else 1 for w in text.split()]
'''


def _vocab_file(tmp_path, name, words):
    (tmp_path / name).write_text(json.dumps(words))
    return str(tmp_path / name)


def _texts(seed, n=20):
    return [" ".join(f"w{(seed * 7 + i * 5 + k * 3) % 37}" for k in range(6)) for i in range(n)]


def _trained(ns, tmp_path):
    tok = ns["Grams"]().train(_texts(1))
    out = [tok.encode(t) for t in _texts(2)]
    tok.train(_texts(3))  # a new vocabulary: the old table must not answer
    return out + [tok.encode(t) for t in _texts(2)]


def _fitted(ns, tmp_path):
    enc = ns["Labels"]().fit([f"c{k % 17}" for k in range(60)])
    out = [enc.encode([f"c{(i * 5) % 23}" for i in range(30)])]
    enc.fit([f"c{k % 11 + 4}" for k in range(60)])
    return out + [enc.encode([f"c{(i * 5) % 23}" for i in range(30)])]


def _loaded(ns, tmp_path):
    words = ns["Words"](_vocab_file(tmp_path, "a.json", [f"w{k}" for k in range(0, 37, 2)]))
    out = [words.encode(t) for t in _texts(4)]
    words.load(_vocab_file(tmp_path, "b.json", [f"w{k}" for k in range(36, -1, -3)]))
    return out + [words.encode(t) for t in _texts(4)]


def _factory(ns, tmp_path):
    games = [" ".join(f"m{(i * 3 + k) % 29}" if k % 4 else f"${k % 5}" for k in range(12)) for i in range(15)]
    tok = ns["Moves"].from_games(games[:8])
    other = ns["Moves"].from_games(games[5:])
    return [tok.encode(g) for g in games] + [other.encode(g) for g in games]


CASES = {"factory": (FACTORY, "Moves.encode", _factory),
         "trained": (TRAINED, "Grams.encode", _trained), "fitted": (FITTED, "Labels.encode", _fitted),
         "loaded": (LOADED, "Words.encode", _loaded)}


def _apply(tmp_path, text, hot_name):
    (tmp_path / "tok.py").write_text(text)
    line = next(n for n, row in enumerate(text.splitlines(), 1) if f"def {hot_name.split('.')[-1]}(" in row)
    return apply_codemod("index_lookup_tables", CodemodContext(root=tmp_path, profile=hot(hot_name, "tok.py", line)))


def _run(text, tmp_path, call):
    namespace: dict = {}
    exec(compile(text, "tok.py", "exec"), namespace)
    return call(namespace, tmp_path)


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_vocabulary_bound_again_to_a_new_list_is_answered_from_a_table_of_its_own(tmp_path, name):
    source, hot_name, call = CASES[name]
    text = textwrap.dedent(source)
    new = _apply(tmp_path, text, hot_name).files["tok.py"]
    assert "_index_of(self." in new, new
    assert _run(new, tmp_path, call) == _run(text, tmp_path, call)


@pytest.mark.parametrize("rebind, refused", [
    ("self.vocab = texts", "bound outside __init__ \\(line \\d+\\) to something other than a new list"),
    ("self.vocab += ['extra']", "may change or share .vocab"),
])
def test_a_vocabulary_bound_again_to_a_list_it_may_share_keeps_its_scan(tmp_path, rebind, refused):
    text = textwrap.dedent(TRAINED)
    text = text.replace('self.vocab = ["[PAD]", "[UNK]"] + [g for g, _ in ranked[: self.size - 2]]', rebind)
    assert rebind in text
    with pytest.raises(NotApplicable, match=refused):
        _apply(tmp_path, text, "Grams.encode")


def test_a_vocabulary_filled_after_it_is_bound_again_keeps_its_scan(tmp_path):
    text = textwrap.dedent(FITTED).replace("self.classes_ = sorted(set(values))",
                                           "self.classes_ = []\n        self.classes_.extend(sorted(set(values)))")
    with pytest.raises(NotApplicable, match="may change or share .classes_"):
        _apply(tmp_path, text, "Labels.encode")


def test_a_missing_value_raises_the_lists_own_error_without_a_scan():
    from perfloop.tools.change.codemods.lookup_index import HELPER_SOURCE

    namespace: dict = {}
    exec(HELPER_SOURCE, namespace)
    index_of = namespace["_index_of"]

    class Counting(list):
        """A list that counts the comparisons a search makes (a subclass: the table leaves it to its own search)."""

    items = [f"w{k}" for k in range(50)]
    for container in (items, tuple(items)):
        for value in ("zz", 7, 2.5, None, ("w1",)):
            with pytest.raises(ValueError) as expected:
                container.index(value)
            with pytest.raises(ValueError) as got:
                index_of(container, value)
            assert str(got.value) == str(expected.value)
    # Not a list or tuple (an array a `+` made): no table, the object's own search, its own error.
    import numpy as np

    with pytest.raises(AttributeError):
        index_of(np.array(items), "w3")
    # The miss is answered from the table: no search of the list itself is called (sys.setprofile sees C calls).
    searched = []

    def watch(frame, event, arg):
        if event == "c_call" and getattr(arg, "__self__", None) is items:
            searched.append(arg.__name__)

    sys.setprofile(watch)
    try:
        with pytest.raises(ValueError):
            index_of(items, "zz")
        assert index_of(items, "w7") == 7
    finally:
        sys.setprofile(None)
    assert not searched, searched
