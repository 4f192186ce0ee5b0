"""Remembering a pure helper's results per argument: differently written helpers, exact keys, copies, refusals."""
from __future__ import annotations

import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from perfloop.tools.change.codemods import CodemodContext, NotApplicable, apply_codemod
from tests.conftest import hot


def memoize(tmp_path: Path, source: str, function: str):
    """Write `source` as mod.py, remember `function`; return (old namespace, new namespace, result)."""
    text = textwrap.dedent(source)
    (tmp_path / "mod.py").write_text(text)
    short = function.split(".")[-1]
    line = next(i for i, l in enumerate(text.splitlines(), 1) if l.lstrip().startswith(f"def {short}("))
    result = apply_codemod("memoize_pure_helper", CodemodContext(root=tmp_path, profile=hot(function, "mod.py", line)))
    old, new = {}, {}
    exec(compile(text, "old", "exec"), old)
    exec(compile(result.files["mod.py"], "new", "exec"), new)
    return old, new, result


WORDPIECE = """
    import re

    VOCAB = {w: i for i, w in enumerate(["[UNK]", "un", "##aff", "##able", "the", "cat", "##s", "a"])}


    def wordpiece(word, max_chars=16):
        if len(word) > max_chars:
            return [VOCAB["[UNK]"]]
        pieces, start = [], 0
        while start < len(word):
            end, found = len(word), None
            while start < end:
                sub = word[start:end] if start == 0 else "##" + word[start:end]
                if sub in VOCAB:
                    found = VOCAB[sub]
                    break
                end -= 1
            if found is None:
                return [VOCAB["[UNK]"]]
            pieces.append(found)
            start = end
        return pieces


    def encode(text):
        ids = []
        for word in re.findall(r"\\w+", text.lower()):
            ids.extend(wordpiece(word))
        return ids
"""

METHOD = """
    class CharVocab:
        def __init__(self, alphabet):
            self.stoi = {c: i + 1 for i, c in enumerate(alphabet)}

        def ids(self, word, *, lower=True):
            word = word.lower() if lower else word
            return tuple(self.stoi.get(ch, 0) for ch in word)

        def _norm(self, word):
            return word.strip()

        def field(self, token):
            return self._norm(token).split("=")
"""

NUMERIC = """
    import math


    def bucket(value, edges):
        for k, edge in enumerate(edges):
            if value < edge:
                return k, math.copysign(1.0, value)
        return len(edges), math.copysign(1.0, value)
"""


def test_a_module_level_tokenizer_helper_is_remembered_and_hands_out_copies(tmp_path):
    old, new, result = memoize(tmp_path, WORDPIECE, "wordpiece")
    assert "def _wordpiece_uncached(word, max_chars=16):" in result.files["mod.py"]
    assert result.replay is not None and result.replay.function == "wordpiece"
    text = "The cats unaffable a cat the supercalifragilistic cats"
    assert old["encode"](text) == new["encode"](text) == new["encode"](text)
    assert len(new["_wordpiece_memo"]) == 6  # distinct (word, max_chars) keys, repeats served from it
    first = new["wordpiece"]("cats")
    first.append(99)  # the caller changes what it got
    assert new["wordpiece"]("cats") == old["wordpiece"]("cats")


def test_a_methods_results_are_remembered_per_object_with_keyword_only_arguments(tmp_path):
    old, new, result = memoize(tmp_path, METHOD, "CharVocab.ids")
    a, b = old["CharVocab"]("abc"), new["CharVocab"]("abc")
    for word, lower in [("Abc", True), ("Abc", False), ("cab", True), ("Abc", True)]:
        assert a.ids(word, lower=lower) == b.ids(word, lower=lower)
    assert len(b.__dict__["_ids_memo"]) == 3
    other = new["CharVocab"]("xyz")  # another object keeps its own results
    assert other.ids("abc") == (0, 0, 0)


SHADOWING = """
    import hashlib


    def stable_bucket(key, n_buckets):
        return int(hashlib.md5(key.encode("utf-8")).hexdigest()[:12], 16) % n_buckets


    class Table:
        def lookup(self, memo_key, memo_table=0, *, memo_value=1):
            return (memo_key * 2, memo_table, memo_value)
"""


@pytest.mark.parametrize("function, calls", [
    ("stable_bucket", [(("city=paris", 64), {}), (("city=oslo", 64), {}), (("city=paris", 64), {})]),
    ("Table.lookup", [((3,), {}), ((3, 5), {"memo_value": 7}), ((3,), {})]),
])
def test_parameters_named_like_the_wrappers_own_locals_reach_the_original(tmp_path, function, calls):
    """blind9 b5_churn_hashed_rows: `stable_bucket(key, n_buckets)` was called with the memo key in place of its
    `key` (the wrapper bound a local of that name), which replay caught. The wrapper's locals are named apart."""
    old, new, _ = memoize(tmp_path, SHADOWING, function)
    if "." in function:
        old_f, new_f = old["Table"]().lookup, new["Table"]().lookup
    else:
        old_f, new_f = old[function], new[function]
    for args, kwargs in calls:
        assert old_f(*args, **kwargs) == new_f(*args, **kwargs)


def test_keys_are_exact_so_equal_but_different_arguments_are_not_confused(tmp_path):
    old, new, _ = memoize(tmp_path, NUMERIC, "bucket")
    edges = (0.5, 1.5)
    for value in [0.0, -0.0, 1, 1.0, True, 2, -0.0, 0.0]:
        got, want = new["bucket"](value, edges), old["bucket"](value, edges)
        assert got == want and str(got) == str(want)  # -0.0 keeps its sign, 1 and 1.0 their results
    assert new["bucket"](0.7, [0.5, 1.5]) == old["bucket"](0.7, [0.5, 1.5])  # a list: keyed by its contents
    assert new["bucket"](0.7, [0.5, 1.5]) == old["bucket"](0.7, [0.5, 1.5])
    assert len(new["_bucket_memo"]) == 7  # 0.0, -0.0, 1, 1.0, True and 2 apart, and the list apart from the tuple


REFUSED = {
    "random": ("""
        import random

        def jitter(x):
            return x + random.random()
    """, "jitter", "random draw `random.random()`"),
    "global append": ("""
        SEEN = []

        def note(word):
            SEEN.append(word)
            return len(word)
    """, "note", "`SEEN.append()` may change `SEEN`, which it did not make"),
    "argument written": ("""
        def pad(tokens, n):
            tokens[0] = n
            return tokens
    """, "pad", "writes `tokens[0]`, which it did not make"),
    "self written": ("""
        class Counter:
            def count(self, word):
                self.calls = 1
                return len(word)
    """, "Counter.count", "writes `self.calls`, which it did not make"),
    "global statement": ("""
        N = 0

        def tick(x):
            global N
            N += 1
            return x
    """, "tick", "`global`"),
    "clock": ("""
        import time

        def stamp(x):
            return (x, time.time())
    """, "stamp", "`time.time()` is not a computation on its arguments"),
    "no arguments": ("""
        def table():
            return [i * i for i in range(10)]
    """, "table", "takes no arguments"),
    "a draw imported by name": ("""
        from random import random as draw

        def noisy(x):
            return x + draw()
    """, "noisy", "calls draw(), which is `random.random()`: not a computation on its arguments"),
    "the clock imported by name": ("""
        from time import monotonic as tick

        def stamp(x):
            return (x, tick())
    """, "stamp", "calls tick(), which is `time.monotonic()`: not a computation on its arguments"),
}


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_what_is_not_pure_by_reading_is_refused_with_the_construct(tmp_path, name):
    source, function, reason = REFUSED[name]
    with pytest.raises(NotApplicable, match="computes from its arguments alone by what perfloop can read: .*"
                                            + re.escape(reason)):
        memoize(tmp_path, source, function)


def test_a_real_pipeline_with_the_remembered_helper_gives_the_same_batches(tmp_path):
    """The rewritten file runs in a real DataLoader pipeline (a subprocess, two epochs, shuffled with a seeded
    generator, a random crop drawn after the tokenizer): the batches are the same as before."""
    pipeline = textwrap.dedent(WORDPIECE) + textwrap.dedent('''

        import torch
        from torch.utils.data import DataLoader, Dataset

        WORDS = ["the", "cats", "unaffable", "a", "cat", "dog", "supercalifragilistic"]


        class Texts(Dataset):
            def __init__(self, n):
                g = torch.Generator().manual_seed(1)
                self.rows = [" ".join(WORDS[int(k)] for k in torch.randint(0, len(WORDS), (12,), generator=g))
                             for _ in range(n)]

            def __len__(self):
                return len(self.rows)

            def __getitem__(self, i):
                ids = encode(self.rows[i])
                start = int(torch.randint(0, 4, ()))
                return torch.tensor((ids + [0] * 16)[start:start + 8])


        if __name__ == "__main__":
            torch.manual_seed(0)
            loader = DataLoader(Texts(32), batch_size=4, shuffle=True, generator=torch.Generator().manual_seed(0))
            print([b.tolist() for _ in range(2) for b in loader])
    ''')
    _, _, result = memoize(tmp_path, pipeline, "wordpiece")
    outputs = []
    for text in (textwrap.dedent(pipeline), result.files["mod.py"]):
        (tmp_path / "mod.py").write_text(text)
        done = subprocess.run([sys.executable, "mod.py"], cwd=tmp_path, capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        outputs.append(done.stdout)
    assert outputs[0] == outputs[1] and len(outputs[0]) > 100


def test_results_that_a_caller_could_change_are_handed_out_as_copies(tmp_path):
    _, new, _ = memoize(tmp_path, """
        import numpy as np
        import torch

        def parse(record):
            key, _, value = record.partition("=")
            return {"key": key, "values": [float(v) for v in value.split(",")],
                    "array": np.asarray([1.0, 2.0]), "tensor": torch.zeros(2), "tags": {key}}
    """, "parse")
    first = new["parse"]("a=1,2")
    first["values"].append(3.0)
    first["array"][0] = 9.0
    first["tensor"][0] = 9.0
    first["tags"].add("b")
    first["extra"] = 1
    again = new["parse"]("a=1,2")
    assert again["values"] == [1.0, 2.0] and again["array"][0] == 1.0 and float(again["tensor"][0]) == 0.0
    assert again["tags"] == {"a"} and "extra" not in again
    assert len(new["_parse_memo"]) == 1


def test_the_standard_librarys_immutable_values_are_shared_not_deep_copied(tmp_path):
    """blind12 a4: a parsed report's `datetime` went through `copy.deepcopy` on every hit, which made the memo of the
    parse x1.53 in replay, under its x2. A datetime, date, timedelta, Decimal or Fraction is shared; the dict that holds
    them is still a fresh one, and a subclass defined in the target is still deep-copied."""
    _, new, _ = memoize(tmp_path, """
        import datetime
        from decimal import Decimal
        from fractions import Fraction

        class Stamp(datetime.datetime):
            pass

        def parse(line):
            day, amount = line.split()
            when = datetime.datetime.strptime(day, "%Y-%m-%d")
            return {"when": when, "day": when.date(), "span": datetime.timedelta(days=when.day),
                    "amount": Decimal(amount), "ratio": Fraction(len(amount), 7)}
    """, "parse")
    first = new["parse"]("2026-12-06 12.50")
    first["amount"] = None
    again = new["parse"]("2026-12-06 12.50")
    assert again is not first and again["amount"] == new["Decimal"]("12.50")
    for key in ("when", "day", "span", "ratio"):
        assert again[key] is new["parse"]("2026-12-06 12.50")[key], key
    stamp = new["Stamp"](2026, 12, 6)
    assert new["_memo_copy"](stamp) is not stamp and new["_memo_copy"](stamp) == stamp


def test_a_decoded_recordings_lists_of_numbers_are_copied_in_one_call(tmp_path):
    """blind13 a3: `decode(blob)` returned `(fs, lsb, ts, xs, ys, zs)`, four lists of 7,500 readings; copied value
    by value on every hit the memo ran x0.31 on replay, and checking every value's type on each hit x1.39. A list
    or tuple of scalars only is marked once, when stored, and handed out in one call as a plain list or tuple; a
    list holding a list is still copied item by item; nothing the caller changes reaches the memo."""
    _, new, _ = memoize(tmp_path, """
        import struct

        def decode(blob):
            n = len(blob) // 2
            values = list(struct.unpack(f"<{n}h", blob))
            return 50, (n, "g"), values, [values[:2], values[2:4]]
    """, "decode")
    blob = bytes(range(200))
    fs, header, values, pairs = new["decode"](blob)
    values.append(0)
    pairs[0].append(0)
    again = new["decode"](blob)
    assert again == (50, (100, "g"), list(again[2]), [again[2][:2], again[2][2:4]]) and len(again[2]) == 100
    assert [type(v) for v in again] == [int, tuple, list, list] and type(again[3][0]) is list
    assert again[2] is not values and again == new["decode"](blob)
    stored = next(iter(new["_decode_memo"].values()))
    assert type(stored[2]).__name__ == "_MemoScalars" and type(stored[1]).__name__ == "_MemoShared"
    assert type(stored[3]) is list and type(stored[3][0]).__name__ == "_MemoScalars"
    assert again[1] is new["decode"](blob)[1]  # a tuple nothing can change: the one object


def test_a_parsed_record_is_shared_where_nothing_can_change_it_and_copied_in_one_call_where_it_can(tmp_path):
    """blind13 b4: `parse_record(rec)` returned `(date, Decimal, str, int, int)`, and under cProfile two thirds of
    the memoised `__getitem__` went to keying the argument and copying that tuple item by item on every hit. A
    tuple nothing can change at any depth is stored once as one shared object; a dict of such values is copied in
    one call as a plain dict; a tuple holding a list is still copied where the list is; a one-parameter function
    keys on its argument alone, and 1, 1.0 and True still stay apart."""
    _, new, _ = memoize(tmp_path, """
        import datetime
        from decimal import Decimal

        def parse_record(rec):
            day, amount, payee = rec.split("|")
            return datetime.date.fromisoformat(day), Decimal(amount), payee.strip(), (len(payee), -1.5)

        def as_dict(rec):
            day, amount, payee = rec.split("|")
            return {"day": datetime.date.fromisoformat(day), "amount": Decimal(amount), "tags": (payee, 2)}

        def with_list(rec):
            return (rec, [len(rec)], {"n": [1]})

        def kind(x):
            return repr(x)
    """, "parse_record")
    rec = "2026-12-06|12.50| CAFE "
    first = new["parse_record"](rec)
    assert first == (new["datetime"].date(2026, 12, 6), new["Decimal"]("12.50"), "CAFE", (6, -1.5))
    assert type(first) is tuple and new["parse_record"](rec) is first
    memo = new["_parse_record_memo"]
    assert list(memo) == [(str, rec)] and type(memo[(str, rec)]).__name__ == "_MemoShared"
    # The other shapes, through the file's own helpers as a memo of each would store and hand them out.
    store, hand_out = new["_memo_store"], new["_memo_copy"]
    record = store(new["as_dict"](rec))
    a, b = hand_out(record), hand_out(record)
    assert type(a) is dict and a == b and a is not b and type(record).__name__ == "_MemoFlatDict"
    a["amount"] = None
    assert hand_out(record)["amount"] == new["Decimal"]("12.50")
    mixed = store(new["with_list"](rec))
    x, y = hand_out(mixed), hand_out(mixed)
    assert x == y and x is not y and x[1] is not y[1] and x[2]["n"] is not y[2]["n"] and type(x) is tuple
    keys = {new["_memo_key"](v) for v in (1, 1.0, True, "1", (1,), (1.0,))}
    assert len(keys) == 6


PADS_IN_PLACE = """
def frame_energy(values, width):
    # Sum of squares over a sliding window, the frame padded circularly in place first.
    n = len(values)
    padded = values
    padded.extend(values[:width])
    out = []
    for i in range(n):
        total = 0.0
        for j in range(width):
            total += padded[i + j] ** 2
        out.append(total)
    return out
"""


@pytest.mark.parametrize("pipeline, function, worth", [
    ("tokenizer", "normalize", True),   # a whole text per call: its result served again is far cheaper
    ("tiny", "frame_energy", True),     # a list per call, keyed by its contents: it changes nothing it is given
    ("tiny:pads", "frame_energy", False),  # the same list padded in place: no key for it, computed as before
])
def test_replay_on_real_captured_calls_decides_whether_the_pipeline_runs(tmp_path, pipeline, function, worth):
    """The rewrite is replayed on calls captured from the real pipeline, each call timed over several rounds:
    a remembered result serves every round after the first, so a helper whose arguments key exactly replays
    far faster. A list argument keys by its contents where the function changes nothing it was given; one that
    pads its list in place keys on strings and numbers only, so with a list per call it replays no faster and
    is refused before any pipeline run."""
    from types import SimpleNamespace as NS

    from perfloop.agent.proposers import codemod as proposer
    from perfloop.tools.contract.target import load_target
    from perfloop.tools.measure.profiler import ProbeSettings
    from tests.conftest import git, make_repo

    repo = make_repo(tmp_path / "repo", pipeline.split(":")[0])
    if pipeline.endswith(":pads"):
        text = (repo / "train.py").read_text()
        start = text.index("def frame_energy(")
        end = text.index("\n\n\n", start)
        (repo / "train.py").write_text(text[:start] + PADS_IN_PLACE.strip() + text[end:])
        git(repo, "commit", "-qam", "pad in place")
    target = load_target(repo)
    text = (repo / "train.py").read_text()
    line = next(i for i, l in enumerate(text.splitlines(), 1) if l.startswith(f"def {function}("))
    result = apply_codemod("memoize_pure_helper", CodemodContext(root=repo, profile=hot(function, "train.py", line)))
    recorded = []
    ctx = NS(record=recorded.append, next_run=lambda label: tmp_path / label,
             protected=lambda tree: ProbeSettings(), workspace=NS(candidate_tree=repo),
             state=NS(profile=None, target=target))
    assert result.replay.keys_data is (pipeline != "tiny:pads")
    if worth:
        proposer._replayed(ctx, result, repo)
        assert recorded[-1].ok and recorded[-1].speedup >= proposer.MEMO_MIN_REPLAY_SPEEDUP
    else:
        assert any("changes `padded`, which may be an object it was given" in n for n in result.notes), result.notes
        with pytest.raises(NotApplicable, match=r"none of the \d+ captured calls passes arguments a memo can key "
                                                r"exactly .* so the pipeline was not run"):
            proposer._replayed(ctx, result, repo)
        assert recorded[-1].ok and recorded[-1].num_calls > 0


def _facts(hot_ref: tuple[str, str, int], *helpers: tuple[str, str, int]):
    from perfloop.contracts.code import FunctionRef
    from perfloop.tools.change.codemods import ProfileFacts

    return ProfileFacts(hot_function=FunctionRef(name=hot_ref[0], file=hot_ref[1], line=hot_ref[2]),
                        hot_helpers=[FunctionRef(name=n, file=f, line=l) for n, f, l in helpers])


PER_WORD = {
    "data.py": """
        from pieces import wordpiece


        def tokenize(text):
            words = text.lower().split()
            if len(words) > 3:
                del words[len(words) // 2]
            return [piece for word in words for piece in wordpiece(word)]
    """,
    "pieces.py": """
        VOCAB = {"un", "##aff", "##able", "run", "##ning", "the", "a"}


        def wordpiece(word):
            out, start = [], 0
            while start < len(word):
                end = len(word)
                while end > start:
                    piece = word[start:end] if start == 0 else "##" + word[start:end]
                    if piece in VOCAB:
                        out.append(piece)
                        break
                    end -= 1
                if end == start:
                    return ["[UNK]"]
                start = end
            return out
    """,
}


def test_the_helper_called_per_element_is_remembered_before_its_caller_even_in_another_file(tmp_path):
    """A whole (augmented) text never repeats; the words under it do: the per-word helper, in its own module,
    is chosen over the hot function that loops over the words, and with it skipped the caller is next."""
    for name, source in PER_WORD.items():
        (tmp_path / name).write_text(textwrap.dedent(source))
    facts = _facts(("tokenize", "data.py", 5), ("wordpiece", "pieces.py", 5))
    result = apply_codemod("memoize_pure_helper", CodemodContext(root=tmp_path, profile=facts))
    assert list(result.files) == ["pieces.py"] and result.replay.function == "wordpiece"
    namespace = {}
    exec(compile(result.files["pieces.py"], "pieces", "exec"), namespace)
    assert namespace["wordpiece"]("unaffable") == ["un", "##aff", "##able"] == namespace["wordpiece"]("unaffable")
    assert len(namespace["_wordpiece_memo"]) == 1
    again = apply_codemod("memoize_pure_helper", CodemodContext(root=tmp_path, profile=facts,
                                                                 params={"skip": ["wordpiece"]}))
    assert list(again.files) == ["data.py"] and again.replay.function == "tokenize"
    with pytest.raises(NotApplicable, match=r"wordpiece: tried before at this head, and refused \(by replay, or by "
                                            r"verification\); tokenize: "):
        apply_codemod("memoize_pure_helper", CodemodContext(root=tmp_path, profile=facts,
                                                            params={"skip": ["wordpiece", "tokenize"]}))


def test_per_element_first_reads_loops_comprehensions_and_map():
    import ast

    from perfloop.tools.change.codemods.memoize import called_per_element, per_element_first

    tree = ast.parse(textwrap.dedent("""
        def outer(rows):
            head = clean(rows[0])
            cells = [parse(cell) for cell in rows if keep(cell)]
            while cells:
                cells.pop().strip()
            return list(map(fold, cells)), {k: value(k) for k in cells}
        def clean(x): return x
        def parse(x): return x
        def fold(x): return x
    """))
    outer, clean, parse, fold = tree.body
    assert called_per_element(outer) == {"parse", "keep", "pop", "strip", "fold", "value"}
    order = per_element_first([("f", outer), ("f", clean), ("f", parse), ("f", fold)])
    assert [fn.name for _, fn in order] == ["parse", "fold", "outer", "clean"]


def test_a_function_a_per_element_caller_calls_once_is_per_element_too():
    """blind13 b1: `upper_hull(x, y)` is called once by `continuum_removed(x, y)`, which a loop calls per pixel of
    overlapping patches: its arguments repeat within an epoch as its caller's do. It was judged per record (the 8
    captured calls did not repeat) and timed from a second epoch the one-epoch run never had. A function a
    per-element function calls, at any depth, is per element too; one only the per-sample code calls is not."""
    import ast

    from perfloop.tools.change.codemods.memoize import per_element_first

    tree = ast.parse(textwrap.dedent("""
        def features(cube, x):
            return [[removed(x, px) for px in row] for row in cube]
        def removed(x, y):
            hull = upper(x, y)
            return [v / scale(h) for v, h in zip(y, hull)]
        def upper(x, y):
            return sorted(y)
        def scale(h):
            return h or 1.0
        def load(i):
            return normalise(i)
        def normalise(i):
            return i * 2
    """))
    features, removed, upper, scale, load, normalise = tree.body
    order = per_element_first([("f", upper), ("f", normalise)], [tree])
    assert [fn.name for _, fn in order] == ["upper", "normalise"]
    assert order.per_element == frozenset({id(upper)})
    assert id(scale) in per_element_first([("f", scale), ("f", load)], [tree]).per_element


def test_among_functions_called_per_element_a_caller_on_the_same_argument_comes_before_its_callee():
    """blind12 a2: the per-word `porter_stem(word)` calls `_measure(stem)` in its loops over fixed suffix tables; the
    cheap callees came first and each memo cost more than it saved (x0.85, x0.11, x0.78). A caller in the
    per-element group now comes before what it calls there, unless it calls it in a loop over parts of its own
    arguments (`encode(text)` calling `piece(word)` per word of the text: words repeat, texts do not; the same for
    `measure(s)` calling `is_vowel(ch)` per character). A cycle keeps the order; functions no one calls per element
    stay behind."""
    import ast

    from perfloop.tools.change.codemods.memoize import per_element_first

    tree = ast.parse(textwrap.dedent("""
        SUFFIXES = [("ing", ""), ("ed", "")]
        def batch(texts):
            return [encode(t) for t in texts]
        def measure(s):
            return sum(1 for ch in s if is_vowel(ch))
        def is_vowel(ch):
            return ch in "aeiou"
        def stem(word):
            for suf, rep in sorted(SUFFIXES, key=lambda p: -len(p[0])):
                if word.endswith(suf) and measure(word[:-len(suf)]) > 0:
                    return word[:-len(suf)] + rep
            return word
        def encode(text):
            words = text.lower().split()
            return [stem(w) for w in words]
        def ping(n):
            return [pong(n - 1) for _ in range(2)] if n else []
        def pong(n):
            return [ping(n - 1) for _ in range(2)] if n else []
    """))
    _, batch, measure, is_vowel, stem, encode, ping, pong = tree.body
    order = per_element_first([("f", batch), ("f", measure), ("f", is_vowel), ("f", stem), ("f", encode)])
    # stem before the measure it calls per suffix; encode behind the stem it calls per word; measure behind the
    # is_vowel it calls per character.
    assert [fn.name for _, fn in order] == ["is_vowel", "stem", "measure", "encode", "batch"]
    assert [fn.name for _, fn in per_element_first([("f", ping), ("f", pong)])] == ["ping", "pong"]


def test_a_memo_replay_refuses_gives_way_to_the_next_function_of_the_path(tmp_path):
    """Real capture and replay on the tokenizer pipeline: the per-character `_is_control` comes first (called in
    normalize's loop), replays no faster remembered than computed and is refused; the proposer asks again with it
    skipped and gets normalize, whose whole texts replay far faster, with the first refusal in its notes."""
    from types import SimpleNamespace as NS

    from perfloop.agent.proposers import codemod as proposer
    from perfloop.tools.contract.target import load_target
    from perfloop.tools.measure.profiler import ProbeSettings
    from tests.conftest import make_repo

    repo = make_repo(tmp_path / "repo", "tokenizer")
    text = (repo / "train.py").read_text()
    line = {name: next(i for i, l in enumerate(text.splitlines(), 1) if l.startswith(f"def {name}("))
            for name in ("normalize", "_is_control")}
    facts = _facts(("normalize", "train.py", line["normalize"]), ("_is_control", "train.py", line["_is_control"]))
    recorded = []
    ctx = NS(record=recorded.append, next_run=lambda label: tmp_path / f"{label}-{len(recorded)}",
             protected=lambda tree: ProbeSettings(), workspace=NS(candidate_tree=repo, reset_candidate=lambda: None),
             state=NS(profile=None, target=load_target(repo)))
    result = proposer._replayed_choice(ctx, "memoize_pure_helper", CodemodContext(root=repo, profile=facts), repo)
    assert [r.function for r in recorded] == ["_is_control", "normalize"]
    assert recorded[0].speedup < proposer.MEMO_MIN_REPLAY_SPEEDUP <= recorded[1].speedup
    assert result.replay.function == "normalize"
    assert any(note.startswith("_is_control tried first: replay of _is_control: x") for note in result.notes)
    # Each document is normalised once an epoch (the 8 captured calls pass 8 different texts): a per-record memo,
    # timed from the second epoch, where it first serves.
    assert not result.replay.per_element and result.gain_from_epoch == 2
    assert any("passed 8 different arguments (per record, not per element): timed from the second epoch" in note
               for note in result.notes), result.notes


def test_a_per_record_memo_is_judged_from_the_second_epoch_and_a_per_element_one_is_not():
    """The change's declared epoch becomes the enforced rule's where it is later than the remedy's; the per-element
    helper (its arguments repeat within an epoch, whatever the capture shows) keeps the remedy's first epoch."""
    from perfloop.agent.proposers.codemod import PER_RECORD_MIN_CALLS, _per_record
    from perfloop.agent.rule import decide_rule
    from perfloop.agent.state import Proposal
    from perfloop.knowledge_base import load_entries
    from perfloop.tools.change.codemods.base import CodemodResult, ReplayTarget
    from perfloop.tools.check.replay import ReplayResult

    def result(per_element: bool) -> CodemodResult:
        return CodemodResult(files={}, summary="s", knob="memoize", old_value=None, new_value=None, location="m.py:1",
                             replay=ReplayTarget(file="m.py", function="f", per_element=per_element))

    n = PER_RECORD_MIN_CALLS
    for per_element, keyed, distinct, expected in [(False, n, n, 2), (True, n, n, None), (False, n, n - 1, None),
                                                   (False, n - 1, n - 1, None)]:
        made = result(per_element)
        _per_record(made, ReplayResult(ok=True, verdict="identical", reason="", keyed_calls=keyed,
                                       distinct_keys=distinct))
        assert made.gain_from_epoch == expected, (per_element, keyed, distinct)

    [memo] = [r for e in load_entries() if e.id == "transform_hotspot" for r in e.remedies
              if r.id == "memoize_transform_helper"]
    assert memo.verification.gain_from_epoch == 1
    proposal = Proposal(id="p1", diagnosis="transform_hotspot", remedy=memo.id, source="codemod", change="c",
                        patch="", touched=[], expected_speedup=2.0, base_head="x")
    assert decide_rule(memo.verification, proposal).enforced.gain_from_epoch == 1
    declared = proposal.model_copy(update={"gain_from_epoch": 2})
    assert decide_rule(memo.verification, declared).enforced.gain_from_epoch == 2


HELD = """
    class Clip:
        def __init__(self, lo, hi):
            self.lo, self.hi = lo, hi

        def __call__(self, values):
            return [min(max(v, self.lo), self.hi) for v in values]


    class Records:
        def __init__(self, blobs):
            self.blobs = blobs
            self.clip = Clip(-1.0, 1.0)

        def process(self, blob):
            return self.clip([(b - 128) / 64 for b in blob])
"""


def test_a_method_calling_an_object_its_init_made_from_a_class_of_the_file_reads_that_class(tmp_path):
    """`self.clip(x)` runs Clip.__call__: read there, it is pure, so the per-record method is remembered per blob;
    the same object counting its calls is not."""
    old, new, result = memoize(tmp_path, HELD, "Records.process")
    assert "def _process_uncached(self, blob):" in result.files["mod.py"]
    blob = bytes(range(0, 256, 7))
    a, b = old["Records"]([blob]), new["Records"]([blob])
    assert a.process(blob) == b.process(blob) == b.process(blob)

    counting = HELD.replace("            return [min(max(v, self.lo), self.hi) for v in values]",
                            "            self.calls = 1\n            return [min(max(v, self.lo), self.hi) for v in values]")
    with pytest.raises(NotApplicable, match=re.escape("Records.process: line 17: calls self.clip(), whose "
                                                      "Clip.__call__ is not pure (line 7: writes `self.calls`")):
        memoize(tmp_path, counting, "Records.process")
    no_call = HELD.replace("def __call__(self, values)", "def apply(self, values)")
    with pytest.raises(NotApplicable, match=re.escape("calls self.clip(), a Clip without a __call__ perfloop can read")):
        memoize(tmp_path, no_call, "Records.process")


BERT_STYLE = """
    import unicodedata


    class Basic:
        def __init__(self, lower=True):
            self.lower = lower

        def tokenize(self, text):
            text = unicodedata.normalize("NFD", text.lower() if self.lower else text)
            return "".join(c for c in text if unicodedata.category(c) != "Mn").split()


    class Pieces:
        def __init__(self, vocab):
            self.vocab = vocab

        def tokenize(self, word):
            out, start = [], 0
            while start < len(word):
                end = len(word)
                while end > start and (word[start:end] if start == 0 else "##" + word[start:end]) not in self.vocab:
                    end -= 1
                if end == start:
                    return ["[UNK]"]
                out.append(word[start:end] if start == 0 else "##" + word[start:end])
                start = end
            return out


    class Full:
        def __init__(self, vocab):
            self.basic_tokenizer = Basic()
            self.wordpiece_tokenizer = Pieces(vocab)

        def tokenize(self, text):
            split = []
            for token in self.basic_tokenizer.tokenize(text):
                for sub in self.wordpiece_tokenizer.tokenize(token):
                    split.append(sub)
            return split
"""


def test_the_per_word_method_is_told_from_the_per_text_one_of_the_same_name(tmp_path):
    """google-research BERT's FullTokenizer: `self.basic_tokenizer.tokenize(text)` runs once per text (the iterable
    of the outer loop), `self.wordpiece_tokenizer.tokenize(token)` once per word; all three are `tokenize`. The
    attribute `__init__` binds to each class tells them apart: the per-word method is remembered first."""
    source = textwrap.dedent(BERT_STYLE)
    (tmp_path / "tok.py").write_text(source)
    defs = [i for i, l in enumerate(source.splitlines(), 1) if l.strip().startswith("def tokenize(")]
    facts = _facts(("Full.tokenize", "tok.py", defs[2]), ("Basic.tokenize", "tok.py", defs[0]),
                   ("Pieces.tokenize", "tok.py", defs[1]))
    result = apply_codemod("memoize_pure_helper", CodemodContext(root=tmp_path, profile=facts))
    assert result.replay.function == "Pieces.tokenize", result.summary
    namespace = {}
    exec(compile(result.files["tok.py"], "tok", "exec"), namespace)
    full = namespace["Full"]({"un", "##aff", "##able", "caf", "##e"})
    assert full.tokenize("Unaffable CAFÉ unaffable") == ["un", "##aff", "##able", "caf", "##e", "un", "##aff", "##able"]
    assert len(full.wordpiece_tokenizer.__dict__["_tokenize_memo"]) == 2


def test_a_private_method_is_renamed_apart_from_pythons_name_mangling(tmp_path):
    """blind10 a4: `_stats` became `__stats_uncached`, which a class body mangles to `_Enc__stats_uncached`; replay
    of the next change then looked it up by its written name and crashed. Its leading underscores are dropped."""
    old, new, result = memoize(tmp_path, """
        from collections import deque

        class Encoder:
            def __init__(self, rows):
                self.rows = rows

            def _stats(self, category):
                total, count, queue = 0.0, 0, deque(self.rows)
                while queue:
                    key, value = queue.popleft()
                    if key == category:
                        total, count = total + value, count + 1
                return total, count

            def encode(self, category):
                total, count = self._stats(category)
                return (total + 1.0) / (count + 2)
    """, "Encoder._stats")
    assert "def _stats_uncached(" in result.files["mod.py"] and "__stats_uncached" not in result.files["mod.py"]
    assert result.replay.function == "Encoder._stats"
    rows = [("a", 1.0), ("b", 0.0), ("a", 0.0)]
    before, after = old["Encoder"](rows), new["Encoder"](rows)
    assert [before.encode(c) for c in "abca"] == [after.encode(c) for c in "abca"]
    assert len(after.__dict__["_stats_memo"]) == 3 and hasattr(new["Encoder"], "_stats_uncached")


def test_functions_imported_by_name_from_modules_that_compute_are_read_as_those_modules_functions(tmp_path):
    """blind11 a2: `from bisect import bisect_right` then `bisect_right(STARTS, cp)` was "a call perfloop cannot
    read", which made the per-character test and every function calling it impure. A name bound by `from
    <module> import` is judged as `<module>.<name>`: bisect's, collections' and unicodedata's compute."""
    old, new, result = memoize(tmp_path, """
        import unicodedata
        from bisect import bisect_right as after
        from collections import Counter

        STARTS = [0x2600, 0x1F300, 0x1F600]
        ENDS = [0x26FF, 0x1F5FF, 0x1F64F]

        def symbol_share(text):
            marks = 0
            for ch in text:
                i = after(STARTS, ord(ch)) - 1
                if (i >= 0 and ord(ch) <= ENDS[i]) or unicodedata.category(ch) == "So":
                    marks += 1
            return marks / max(len(text), 1), Counter(text).most_common(1)
    """, "symbol_share")
    assert "def _symbol_share_uncached(text):" in result.files["mod.py"]
    for text in ["hi \U0001F600 there", "plain", "", "\u2600\u2601 x"]:
        assert old["symbol_share"](text) == new["symbol_share"](text) == new["symbol_share"](text)


def test_a_function_that_raises_a_builtin_exception_is_remembered_and_raises_again(tmp_path):
    """blind11 a4: `raise KeyError(name)` in a category lookup made it "a call perfloop cannot read". A built-in
    exception is made, not an effect; a call that raises is not remembered and raises again."""
    old, new, result = memoize(tmp_path, """
        TREE = {"shoes": "apparel", "socks": "apparel", "kettle": "home"}

        def top_category(path):
            leaf = path.split("/")[-1].casefold()
            if leaf not in TREE:
                raise KeyError(f"unknown category {leaf!r}")
            return TREE[leaf].upper()
    """, "top_category")
    assert "def _top_category_uncached(path):" in result.files["mod.py"]
    assert new["top_category"]("a/Shoes") == old["top_category"]("a/Shoes") == "APPAREL"
    for _ in range(2):
        with pytest.raises(KeyError, match="unknown category 'lamp'"):
            new["top_category"]("x/lamp")
    assert len(new["_top_category_memo"]) == 1


METHOD_PIPELINE = '''
import math

import torch
from torch.utils.data import DataLoader, Dataset


class Pixels(Dataset):
    def __init__(self, n, top=255.0):
        g = torch.Generator().manual_seed(3)
        self.rows = torch.randint(0, 256, (n, 64), generator=g).tolist()
        self.words = ["w%d" % (k % 7) * (20 + k % 5) for k in range(n)]
        self.top = top

    def __len__(self):
        return len(self.rows)

    def density(self, value):
        return -math.log((value + 1.0) / (self.top + 1.0))

    def spelling(self, word):
        score = 0
        for a in word:
            for b in word:
                score += (ord(a) * 31 + ord(b)) % 97
        return score

    def __getitem__(self, i):
        od = [self.density(v) for v in self.rows[i]]
        return torch.tensor(od + [float(self.spelling(self.words[i]))])


def main():
    torch.manual_seed(0)
    loader = DataLoader(Pixels(48), batch_size=4, shuffle=True)
    model = torch.nn.Linear(65, 1)
    for epoch in range(1000):
        for x in loader:
            model(x).mean().backward()


if __name__ == "__main__":
    main()
'''


@pytest.mark.parametrize("method, worth", [("Pixels.density", False), ("Pixels.spelling", True)])
def test_a_methods_memo_is_timed_on_one_object_kept_through_the_rounds(tmp_path, method, worth):
    """blind11 b1: a method memo of a per-pixel `-math.log(...)` passed replay (a method's timing was not judged:
    its object, where the memo keeps its results, was copied afresh for every timed call) and ran x0.5 in the
    pipeline. Replay now keeps one copy of the object per version through the timed rounds: the per-pixel memo
    costs more than the log and is refused before any pipeline run; a per-word quadratic spelling score keyed by
    words that repeat replays far faster."""
    from types import SimpleNamespace as NS

    from perfloop.agent.proposers import codemod as proposer
    from perfloop.tools.contract.target import load_target
    from perfloop.tools.measure.profiler import ProbeSettings
    from tests.conftest import git

    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "train.py").write_text(METHOD_PIPELINE)
    (repo / "perfloop.toml").write_text('[tool.perfloop]\ncommand = "python train.py"\neditable = ["train.py"]\n'
                                        "steps = 4\nwarmup_steps = 1\n")
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "pipeline")
    line = next(i for i, l in enumerate(METHOD_PIPELINE.splitlines(), 1)
                if l.strip().startswith(f"def {method.split('.')[1]}("))
    result = apply_codemod("memoize_pure_helper", CodemodContext(root=repo, profile=hot(method, "train.py", line)))
    assert result.replay.function == method
    recorded = []
    ctx = NS(record=recorded.append, next_run=lambda label: tmp_path / label,
             protected=lambda tree: ProbeSettings(), workspace=NS(candidate_tree=repo),
             state=NS(profile=None, target=load_target(repo)))
    if worth:
        proposer._replayed(ctx, result, repo)
        assert recorded[-1].ok and recorded[-1].speedup >= proposer.MEMO_MIN_REPLAY_SPEEDUP
    else:
        with pytest.raises(NotApplicable, match=r"x\d\.\d\d on the \d+ captured calls, called again in every timing "
                                                r"round: .* so the pipeline was not run"):
            proposer._replayed(ctx, result, repo)
        assert recorded[-1].ok and recorded[-1].speedup < proposer.MEMO_MIN_REPLAY_SPEEDUP


def test_the_original_behind_a_memo_and_the_memos_helpers_are_never_remembered_again(tmp_path):
    """blind11 b5: after `parse_time` was remembered and kept, the next memo chose `_parse_time_uncached` (the
    original, renamed) and remembered it again. Both it and the helpers the memo adds are refused by name."""
    _, _, first = memoize(tmp_path, """
        def parse_time(text):
            h, m = text.split(":")
            return int(h) * 60 + int(m)
    """, "parse_time")
    (tmp_path / "mod.py").write_text(first.files["mod.py"])
    for name in ("_parse_time_uncached", "_memo_key", "_memo_copy"):
        line = next(i for i, l in enumerate(first.files["mod.py"].splitlines(), 1) if l.startswith(f"def {name}("))
        reason = "the original behind a memo perfloop added" if name.endswith("uncached") else \
            "a helper of the memos perfloop adds"
        with pytest.raises(NotApplicable, match=re.escape(f"{name}: {reason}")):
            apply_codemod("memoize_pure_helper", CodemodContext(root=tmp_path, profile=hot(name, "mod.py", line)))


DATA_KEYED = {
    # blind13 b1's shape: a per-pixel spectrum (a list of floats) through a monotone-chain upper hull.
    "hull_of_a_list": ("""
        def continuum_removed(spectrum):
            hull = []
            for k, v in enumerate(spectrum):
                while len(hull) >= 2:
                    (i, a), (j, b) = hull[-2], hull[-1]
                    if (b - a) * (k - i) <= (v - a) * (j - i):
                        hull.pop()
                    else:
                        break
                hull.append((k, v))
            line = [0.0] * len(spectrum)
            for (i, a), (j, b) in zip(hull, hull[1:]):
                for k in range(i, j + 1):
                    line[k] = a + (b - a) * (k - i) / (j - i) if j > i else a
            line[-1] = hull[-1][1]
            return [v / w if w else 0.0 for v, w in zip(spectrum, line)]
    """, "continuum_removed", lambda rng: [list(rng.random(12) + 0.5) for _ in range(3)]),
    # A window of readings as a numpy array, with a grid of partial sums it fills itself.
    "array_window": ("""
        import numpy as np

        def band_energy(window, bands=3):
            grid = [[0.0] * len(window) for _ in range(bands)]
            for b in range(bands):
                for k in range(len(window)):
                    grid[b][k] = float(window[k]) ** (b + 1)
            out = np.zeros(bands)
            for b in range(bands):
                out[b] = sum(grid[b])
            return out
    """, "band_energy", lambda rng: [rng.standard_normal(16) for _ in range(3)]),
    # A sentence as a list of tokens, and a sorted copy it changes.
    "token_list": ("""
        def ngram_ids(tokens, n=2):
            seen = sorted(tokens)
            seen.reverse()
            ids = []
            for i in range(len(tokens) - n + 1):
                ids.append(hash(" ".join(tokens[i:i + n])) % 1000 + len(seen))
            return ids
    """, "ngram_ids", lambda rng: [[str(w) for w in rng.integers(0, 5, 7)] for _ in range(3)]),
    # blind18 g6's shape: a survival curve over a cohort's times, its names bound in pairs (`curve, g = [], 1.0`),
    # the running product changed with `*=`.
    "names_bound_in_pairs": ("""
        def censoring_curve(times):
            curve, g = [], 1.0
            for s in sorted(set(times)):
                at_risk = sum(1 for t in times if t >= s)
                g *= 1.0 - 1.0 / (at_risk + 1)
                curve.append(g)
            return curve
    """, "censoring_curve", lambda rng: [[int(t) for t in rng.integers(1, 9, 11)] for _ in range(3)]),
}


@pytest.mark.parametrize("name", sorted(DATA_KEYED))
def test_lists_and_arrays_key_by_their_contents_where_nothing_given_is_changed(tmp_path, name):
    """blind13 b1 and b3: `upper_hull(spectrum)` and `dft_phasor(window)` took a list or an array, so the memo had no
    key for them ("none of the captured calls passes arguments a memo can key exactly"). Where neither the function
    nor what it calls can change an object it was given (`kept_arguments.py`), lists and numpy arrays key by their
    contents: an equal list or array made anew is served again; a different one, -0.0 for 0.0, 1 for 1.0 or another
    dtype or shape is not; changing the argument after the call, or the result handed out, changes nothing stored."""
    import numpy as np

    source, function, inputs = DATA_KEYED[name]
    old, new, result = memoize(tmp_path, source, function)
    assert "_memo_key_data(" in result.files["mod.py"].split(f"def {function}(")[-1] and result.replay.keys_data
    memo = new[f"_{function}_memo"]
    rng = np.random.default_rng(1)
    for value in inputs(rng):
        want = old[function](value)
        first = new[function](value)
        again = new[function](value.copy() if hasattr(value, "copy") else list(value))
        assert (np.array_equal(want, first) and np.array_equal(want, again)) if hasattr(want, "dtype") \
            else want == first == again
        assert first is not again
        if hasattr(first, "dtype"):
            first[...] = -1
        else:
            first.append("changed")
        value[0] = value[0] * 2  # the caller changes its argument afterwards
        fresh = new[function](value)
        assert (np.array_equal(fresh, old[function](value)) if hasattr(fresh, "dtype")
                else fresh == old[function](value))
    size = len(memo)
    if name == "hull_of_a_list":
        new[function]([0.5, -0.0, 1.0]), new[function]([0.5, 0.0, 1.0])
        assert len(memo) == size + 2  # -0.0 and 0.0 apart
        # blind13 b1: wavelengths picked out of an array are numpy floats: keyed too, float32 apart from float64.
        wide, narrow = [np.float64(v) for v in (0.5, 0.25, 1.0)], [np.float32(v) for v in (0.5, 0.25, 1.0)]
        for spectrum in (wide, narrow, list(wide)):
            assert new[function](spectrum) == old[function](spectrum)
        assert len(memo) == size + 4
    if name == "array_window":
        base = np.arange(16.0)
        new[function](base, 2), new[function](base.astype(np.float32), 2), new[function](base.reshape(4, 4)[0], 2)
        assert len(memo) == size + 3
        big = np.arange(4096.0)  # 32 KiB: not kept as a key, computed as before
        assert np.array_equal(new[function](big, 1), old[function](big, 1)) and len(memo) == size + 3
        assert "< 16384:" in result.files["mod.py"]  # fewer results kept than for scalar keys


KEPT_TO_SCALARS = {
    "pair_of_an_argument_and_a_number": ("""
        def running_totals(xs):
            out, total = xs, 0.0
            out.append(total)
            return out
    """, "running_totals", "changes `out`"),
    "alias_then_append": ("""
        def padded_sum(xs):
            out = xs
            out.append(0.0)
            return sum(out)
    """, "padded_sum", "changes `out`"),
    "loop_row_sorted_in_place": ("""
        def row_medians(rows):
            medians = []
            for row in rows:
                row.sort()
                medians.append(row[len(row) // 2])
            return medians
    """, "row_medians", "changes `row`"),
    "helper_changes_its_parameter": ("""
        def _clip_inplace(values, hi):
            for i in range(len(values)):
                if values[i] > hi:
                    values[i] = hi
            return values


        def clipped_mean(values):
            v = _clip_inplace(values, 1.0)
            return sum(v) / len(v)
    """, "clipped_mean", "_clip_inplace line"),
    "numpy_out": ("""
        import numpy as np

        def scaled(x):
            np.multiply(x, 2.0, out=x)
            return float(x.sum())
    """, "scaled", "changes `x`"),
    "augmented_alias": ("""
        def extended(xs):
            ys = xs
            ys += [1.0]
            return len(ys)
    """, "extended", "changes `ys`"),
}


@pytest.mark.parametrize("name", sorted(KEPT_TO_SCALARS))
def test_a_function_that_may_change_what_it_was_given_keys_on_scalars_only_and_says_why(tmp_path, name):
    """The purity reading lets a function change any name it binds; through an alias (`out = xs`), a loop's row or
    a helper's parameter that is an argument it was given. A hit would skip that change, so such a function keys
    on strings, numbers and tuples of them only, as before, and the notes say which change kept it there."""
    source, function, why = KEPT_TO_SCALARS[name]
    try:
        _, _, result = memoize(tmp_path, source, function)
    except NotApplicable as refused:  # the purity reading itself refused it: no memo at all
        assert "which it did not make" in str(refused)
        return
    assert not result.replay.keys_data and "_memo_key_data(" not in result.files["mod.py"].split(f"def {function}(")[-1]
    assert any(why in note and "keyed on str, bytes, numbers and tuples of them only" in note for note in result.notes), \
        result.notes
