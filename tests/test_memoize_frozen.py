"""A memo keys an object of a class nothing changes after `__init__` by its state (frozen.py, memo_runtime).

A pure function handed a vocabulary or a tokenizer's tables (`encode(text, vocab)`) had no key for the object, so
every call was computed. The classes are read from the target's files: three differently written frozen classes
and the ways a class is refused; then the memo itself on objects, and a real capture and replay.
"""
from __future__ import annotations

import ast
import textwrap

import pytest

from perfloop.tools.change.codemods.frozen import frozen_classes
from perfloop.tools.change.codemods.lookup_index import only_reads

CLASSES = """
    SPECIALS = ["<pad>", "<unk>"]


    class Vocabulary:
        def __init__(self, words, buckets):
            self.itos = list(SPECIALS) + list(words)
            self.stoi = {w: i for i, w in enumerate(self.itos)}
            self.buckets = buckets

        def __len__(self):
            return len(self.itos) + self.buckets

        def lookup(self, tok):
            idx = self.stoi.get(tok)
            return idx if idx is not None else len(self.itos) + hash(tok) % self.buckets


    class MergeTable(object):
        \"\"\"BPE merges by rank.\"\"\"
        VERSION = 2

        def __init__(self, pairs, lowercase=True):
            self.ranks = dict((tuple(p), r) for r, p in enumerate(pairs))
            self.lowercase = lowercase

        def rank(self, a, b):
            return self.ranks.get((a, b), 1 << 30)


    class Lexicon:
        def __init__(self, entries):
            self.table = sorted(entries)
            self.first = [e[0] for e in self.table]

        def contains(self, word):
            return word in self.first


    class GrowingVocab:
        def __init__(self):
            self.itos = []

        def add(self, tok):
            self.itos.append(tok)


    class LeakyVocab:
        def __init__(self, words):
            self.itos = list(words)

        def tokens(self):
            return self.itos


    class Base:
        def __init__(self):
            self.table = {}


    class Derived(Base):
        pass


    class Rebinding:
        def __init__(self):
            self.cache = {}

        def reset(self):
            self.cache = {}
"""


def test_classes_nothing_changes_after_init_are_read_as_frozen():
    modules = {"vocab.py": ast.parse(textwrap.dedent(CLASSES))}
    found = frozen_classes(modules, only_reads)
    assert set(found) == {"Vocabulary", "MergeTable", "Lexicon"}, found
    assert found["Vocabulary"][0] == ("buckets",) and "lookup" in found["Vocabulary"][1]
    assert found["MergeTable"][0] == ("lowercase",)


def test_a_class_whose_table_the_rest_of_the_target_changes_is_not_frozen():
    modules = {"vocab.py": ast.parse(textwrap.dedent(CLASSES)),
               "train.py": ast.parse("def grow(v, w):\n    v.stoi[w] = len(v.stoi)\n")}
    assert "Vocabulary" not in frozen_classes(modules, only_reads)
    modules["train.py"] = ast.parse("def peek(v, w):\n    return w in v.stoi, len(v.itos)\n")
    assert "Vocabulary" in frozen_classes(modules, only_reads)


def _memoised(tmp_path, source: str, function: str):
    from perfloop.tools.change.codemods import CodemodContext, apply_codemod
    from tests.conftest import hot

    text = textwrap.dedent(source)
    (tmp_path / "mod.py").write_text(text)
    line = next(i for i, l in enumerate(text.splitlines(), 1) if l.startswith(f"def {function}("))
    result = apply_codemod("memoize_pure_helper", CodemodContext(root=tmp_path, profile=hot(function, "mod.py",
                                                                                             line)))
    old, new = {}, {}
    exec(compile(text, "old", "exec"), old)
    exec(compile(result.files["mod.py"], "new", "exec"), new)
    return old, new, result


ENCODE = CLASSES + """

    def encode(text, vocab):
        ids = []
        for word in text.lower().split():
            ids.append(vocab.lookup(word.strip(".,!?")))
        return ids
"""


def test_a_frozen_object_keys_by_its_state_once_per_object(tmp_path):
    old, new, result = _memoised(tmp_path, ENCODE, "encode")
    assert "_MEMO_FROZEN = " in result.files["mod.py"]
    words = ["the", "cat", "sat", "on", "mat"]
    v_old, v_new = old["Vocabulary"](words, 7), new["Vocabulary"](words, 7)
    text = "The cat sat on the red mat. The dog!"
    assert new["encode"](text, v_new) == old["encode"](text, v_old)
    again = new["encode"](text, v_new)
    again.append(-1)  # the caller changes its copy
    assert new["encode"](text, v_new) == old["encode"](text, v_old)
    assert len(new["_encode_memo"]) == 1
    # An equal vocabulary made anew is the same key; another one, or other buckets, is not.
    assert new["encode"](text, new["Vocabulary"](words, 7)) == old["encode"](text, v_old)
    assert len(new["_encode_memo"]) == 1
    other = new["Vocabulary"](words[:3], 7)
    assert new["encode"](text, other) == old["encode"](text, old["Vocabulary"](words[:3], 7))
    assert new["encode"](text, new["Vocabulary"](words, 11)) == old["encode"](text, old["Vocabulary"](words, 11))
    assert len(new["_encode_memo"]) == 3


def test_a_given_field_without_an_exact_key_is_computed_as_before(tmp_path):
    _, new, _ = _memoised(tmp_path, ENCODE, "encode")
    vocab = new["Vocabulary"](["a", "b"], [3])  # buckets handed in as a list: no exact key, and a list may change
    with pytest.raises(TypeError):
        new["encode"]("a zzz", vocab)  # `hash(tok) % [3]` raises in the original too: computed, not remembered
    assert len(new["_encode_memo"]) == 0


def test_an_object_of_a_class_that_changes_is_never_keyed(tmp_path):
    source = CLASSES + """

    def count_known(text, vocab):
        return sum(1 for w in text.split() if w in vocab.itos)
"""
    _, new, result = _memoised(tmp_path, source, "count_known")
    grow = new["GrowingVocab"]()
    grow.add("x")
    assert new["count_known"]("x y x", grow) == 2
    grow.add("y")
    assert new["count_known"]("x y x", grow) == 3  # computed again: GrowingVocab is not frozen
    assert "GrowingVocab" not in result.files["mod.py"].split("_MEMO_FROZEN = ")[1].splitlines()[0]


PIPELINE = '''
"""Transcript-style encoding: every sample re-encodes a whole document against a fixed vocabulary object."""
import random

import torch
from torch.utils.data import DataLoader, Dataset

WORDS = ["alpha", "beta", "gamma", "delta", "omega", "sigma", "tau", "rho"]


class Vocabulary:
    def __init__(self, words):
        self.itos = ["<unk>"] + list(words)
        self.stoi = {w: i for i, w in enumerate(self.itos)}

    def lookup(self, tok):
        return self.stoi.get(tok, 0)


def encode(text, vocab):
    ids = []
    for word in text.split():
        ids.append(vocab.lookup(word.lower()))
    return ids


class Docs(Dataset):
    def __init__(self, vocab, seed):
        rng = random.Random(seed)
        self.docs = [" ".join(rng.choice(WORDS + ["zeta"]) for _ in range(4000)) for _ in range(6)]
        self.vocab = vocab
        self.rng = random.Random(seed + 1)

    def __len__(self):
        return 48

    def __getitem__(self, index):
        ids = encode(self.docs[index % len(self.docs)], self.vocab)
        start = self.rng.randrange(len(ids) - 64)
        return torch.tensor(ids[start:start + 64])


def main():
    torch.manual_seed(0)
    torch.set_num_threads(1)
    loader = DataLoader(Docs(Vocabulary(WORDS), 0), batch_size=8)
    model = torch.nn.Embedding(len(WORDS) + 1, 4)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(1000):
        for ids in loader:
            loss = model(ids).pow(2).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()


if __name__ == "__main__":
    main()
'''


def test_on_a_real_pipeline_the_memo_with_a_vocabulary_argument_passes_replay(tmp_path):
    """Real capture and replay: the captured calls pass the document and a vocabulary object (restored from the
    capture, a fresh copy in every timing round), which key by their state: replay counts them keyed and times the
    memo serving them."""
    from types import SimpleNamespace as NS

    from perfloop.agent.proposers import codemod as proposer
    from perfloop.tools.change.codemods import CodemodContext, ProfileFacts
    from perfloop.tools.change.codemods.base import FunctionRef
    from perfloop.tools.contract.target import load_target
    from perfloop.tools.measure.profiler import ProbeSettings
    from tests.conftest import git, make_repo

    repo = make_repo(tmp_path / "repo", "tokenizer")
    (repo / "train.py").write_text(PIPELINE.lstrip())
    git(repo, "commit", "-qam", "documents against a vocabulary")
    line = next(i for i, l in enumerate(PIPELINE.lstrip().splitlines(), 1) if l.startswith("def encode("))
    facts = ProfileFacts(hot_function=FunctionRef(file="train.py", name="encode", line=line))
    recorded = []
    ctx = NS(record=recorded.append, next_run=lambda label: tmp_path / f"{label}-{len(recorded)}",
             protected=lambda tree: ProbeSettings(), workspace=NS(candidate_tree=repo, reset_candidate=lambda: None),
             state=NS(profile=None, target=load_target(repo)))
    result = proposer._replayed_choice(ctx, "memoize_pure_helper", CodemodContext(root=repo, profile=facts), repo)
    assert result.replay.function == "encode" and "_MEMO_FROZEN = {'Vocabulary'" in result.files["train.py"]
    assert recorded[0].ok and recorded[0].speedup >= proposer.MEMO_MIN_REPLAY_SPEEDUP, recorded


def test_a_caller_of_a_function_an_earlier_memo_wrapped_is_read_through_the_wrapper(tmp_path):
    """The second memo of a path: the first one's wrapper writes its own dict and calls the key helpers, which read
    as impure; the caller is judged by the original the wrapper renamed, and the helpers are the memo's own."""
    source = """
        def neighbours(node, edges):
            return tuple(b for a, b in edges if a == node)


        def two_hops(node, edges):
            out = []
            for n in neighbours(node, edges):
                out.extend(neighbours(n, edges))
            return tuple(sorted(set(out)))
    """
    _, first, result = _memoised(tmp_path, source, "neighbours")
    (tmp_path / "mod.py").write_text(result.files["mod.py"])
    from perfloop.tools.change.codemods import CodemodContext, apply_codemod
    from tests.conftest import hot

    text = result.files["mod.py"]
    line = next(i for i, l in enumerate(text.splitlines(), 1) if l.startswith("def two_hops("))
    second = apply_codemod("memoize_pure_helper", CodemodContext(root=tmp_path, profile=hot("two_hops", "mod.py",
                                                                                              line)))
    assert "def _two_hops_uncached(" in second.files["mod.py"]
    namespace = {}
    exec(compile(second.files["mod.py"], "second", "exec"), namespace)
    edges = ((1, 2), (2, 3), (2, 4), (4, 1))
    original = {}
    exec(compile(textwrap.dedent(source), "original", "exec"), original)
    for node in (1, 2, 4, 9):
        assert namespace["two_hops"](node, edges) == original["two_hops"](node, edges) == namespace["two_hops"](node,
                                                                                                           edges)


def test_a_made_field_holding_what_could_change_gives_no_key(tmp_path):
    """`self.rows = list(rows)` copies the outer list only: rows that are lists stay the caller's, who may change
    them after the key was read, so such an object has no key and every call is computed."""
    source = """
        class Table:
            def __init__(self, rows):
                self.rows = list(rows)

            def width(self, i):
                return len(self.rows[i])


        def total_width(n, table):
            return sum(table.width(i) for i in range(n))
    """
    old, new, result = _memoised(tmp_path, source, "total_width")
    assert "'Table'" in result.files["mod.py"].split("_MEMO_FROZEN = ")[1].splitlines()[0]
    rows = [[1, 2], [3]]
    table = new["Table"](rows)
    assert new["total_width"](2, table) == 3
    rows[0].append(9)  # the caller changes a row it still holds
    assert new["total_width"](2, table) == old["total_width"](2, old["Table"](rows)) == 4
    assert len(new["_total_width_memo"]) == 0
