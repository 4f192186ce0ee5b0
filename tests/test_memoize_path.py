"""The memo's candidates reach up the sampled per-sample path: the hot function's callers, not only its callees.

The profile's hot function is often the cheapest call of the path (a hash over a three-byte trigram, a
per-character class), whose memo costs what it saves; its caller, called per word, repeats its arguments and
saves the callee's work too. Three differently written paths: module functions in three files, methods of one
class, and a `while` loop over a field's characters. Each is read with and without the rest of the path the
profile sampled (ProfileFacts.path_functions), and one is captured and replayed on a real pipeline.
"""
from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from perfloop.tools.change.codemods import CodemodContext, NotApplicable, apply_codemod

HASHED_FILES = {
    "hashing.py": """
        def fnv(data):
            h = 2166136261
            for byte in data:
                h = ((h ^ byte) * 16777619) & 0xFFFFFFFF
            return h
    """,
    "subwords.py": """
        from hashing import fnv


        def trigram_ids(word, buckets):
            padded = "<" + word + ">"
            ids = []
            for i in range(len(padded) - 2):
                ids.append(fnv(padded[i:i + 3].encode()) % buckets)
            return ids
    """,
    "data.py": """
        import random

        from subwords import trigram_ids

        RNG = random.Random(0)


        def encode(text, buckets):
            out = []
            for word in text.split():
                if RNG.random() < 0.1:
                    continue
                out.extend(trigram_ids(word, buckets))
            return out
    """,
}

SHAPER_FILES = {
    "shapes.py": """
        import random


        class Shaper:
            def __init__(self, seed):
                self.rng = random.Random(seed)

            def _kind(self, ch):
                if ch.isdigit():
                    return "d"
                return "X" if ch.isupper() else "x"

            def shape(self, word):
                return "".join(self._kind(ch) for ch in word)

            def encode(self, text):
                words = text.split()
                self.rng.shuffle(words)
                return [self.shape(w) for w in words]
    """,
}

AMOUNT_FILES = {
    "ledger.py": """
        STATS = {"rows": 0}


        def digit_value(ch):
            return ord(ch) - 48


        def parse_amount(field):
            value, i, scale = 0, 0, 0
            while i < len(field):
                ch = field[i]
                if ch == ".":
                    scale = 1
                else:
                    value = value * 10 + digit_value(ch)
                    scale *= 10
                i += 1
            return value / scale if scale else float(value)


        def parse_row(line):
            STATS["rows"] += 1
            return [parse_amount(field) for field in line.split(";")]
    """,
}


def _write(root: Path, files: dict[str, str]) -> None:
    for name, source in files.items():
        (root / name).write_text(textwrap.dedent(source).lstrip())


def _ref(root: Path, file: str, qualname: str):
    from perfloop.contracts.code import FunctionRef

    name = qualname.rsplit(".", 1)[-1]
    line = next(i for i, text in enumerate((root / file).read_text().splitlines(), 1)
                if text.lstrip().startswith(f"def {name}("))
    return FunctionRef(name=qualname, file=file, line=line)


CASES = [
    # (files, hot function, the path above it by inclusive time (file, qualname), the caller the memo reaches,
    #  the caller it passes over and why)
    (HASHED_FILES, ("hashing.py", "fnv"), [("data.py", "encode"), ("subwords.py", "trigram_ids")],
     "trigram_ids", "encode: .*random"),
    (SHAPER_FILES, ("shapes.py", "Shaper._kind"), [("shapes.py", "Shaper.encode"), ("shapes.py", "Shaper.shape")],
     "Shaper.shape", "Shaper.encode: .*"),
    (AMOUNT_FILES, ("ledger.py", "digit_value"), [("ledger.py", "parse_row"), ("ledger.py", "parse_amount")],
     "parse_amount", "parse_row: .*STATS"),
]


@pytest.mark.parametrize("files, hot, path, caller, passed_over", CASES, ids=["module-functions", "methods", "while"])
def test_with_the_hot_callee_refused_the_memo_reaches_its_caller_on_the_sampled_path(
        tmp_path, files, hot, path, caller, passed_over):
    from perfloop.tools.change.codemods import ProfileFacts

    _write(tmp_path, files)
    facts = ProfileFacts(hot_function=_ref(tmp_path, *hot), path_functions=[_ref(tmp_path, *p) for p in path])
    first = apply_codemod("memoize_pure_helper", CodemodContext(root=tmp_path, profile=facts))
    assert first.replay.function == hot[1]  # the hot function is still tried first
    again = apply_codemod("memoize_pure_helper", CodemodContext(root=tmp_path, profile=facts,
                                                                params={"skip": [hot[1]]}))
    assert again.replay.function == caller
    assert again.replay.per_element  # called in a loop or comprehension of the path: its arguments repeat
    with pytest.raises(NotApplicable, match=passed_over):
        apply_codemod("memoize_pure_helper", CodemodContext(root=tmp_path, profile=facts,
                                                            params={"skip": [hot[1], caller]}))
    # Without the rest of the path (what the memo read before), nothing is left once the hot function is refused.
    alone = facts.model_copy(update={"path_functions": []})
    with pytest.raises(NotApplicable, match="tried before at this head"):
        apply_codemod("memoize_pure_helper", CodemodContext(root=tmp_path, profile=alone,
                                                            params={"skip": [hot[1]]}))


def test_the_remembered_caller_gives_what_the_original_gave(tmp_path):
    """The caller's memo, run: the same ids for the same word, handed out as a copy the caller may change."""
    from perfloop.tools.change.codemods import ProfileFacts

    _write(tmp_path, HASHED_FILES)
    facts = ProfileFacts(hot_function=_ref(tmp_path, "hashing.py", "fnv"),
                         path_functions=[_ref(tmp_path, "subwords.py", "trigram_ids")])
    result = apply_codemod("memoize_pure_helper", CodemodContext(root=tmp_path, profile=facts,
                                                                 params={"skip": ["fnv"]}))
    hashing = {}
    exec(compile((tmp_path / "hashing.py").read_text(), "hashing", "exec"), hashing)

    def module(source: str) -> dict:
        namespace = {"fnv": hashing["fnv"]}
        exec(compile(source.replace("from hashing import fnv", ""), "subwords", "exec"), namespace)
        return namespace

    old, new = module((tmp_path / "subwords.py").read_text()), module(result.files["subwords.py"])
    for word in ["naïve", "good", "good", "x", ""]:
        got = new["trigram_ids"](word, 97)
        assert got == old["trigram_ids"](word, 97)
        got.append(-1)  # the caller changes its copy; the memo's is untouched
    assert new["trigram_ids"]("good", 97) == old["trigram_ids"]("good", 97)
    assert len(new["_trigram_ids_memo"]) == 4


TRIGRAM_PIPELINE = '''
"""Review-style trigram hashing: a per-byte hash under a per-word subword function, words drawn from a small vocabulary."""
import argparse
import random

import torch
from torch.utils.data import DataLoader, Dataset

WORDS = ["great", "awful", "battery", "screen", "shipping", "refund", "works", "broke", "again", "never"]


def fnv(data):
    h = 2166136261
    for byte in data:
        h = ((h ^ byte) * 16777619) & 0xFFFFFFFF
    return h


def trigram_ids(word, buckets):
    padded = "<" + word + ">"
    return [fnv(padded[i:i + 3].encode()) % buckets + 1 for i in range(len(padded) - 2)]


class Reviews(Dataset):
    def __init__(self, n, length, seed):
        rng = random.Random(seed)
        self.texts = [" ".join(rng.choice(WORDS) for _ in range(length)) for _ in range(n)]
        self.rng = random.Random(seed + 1)

    def __len__(self):
        return len(self.texts)

    def __getitem__(self, index):
        ids = []
        for word in self.texts[index].split():
            if self.rng.random() < 0.1:
                continue
            ids.extend(trigram_ids(word, 512))
        ids = (ids + [0] * 2048)[:2048]
        return torch.tensor(ids, dtype=torch.long)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--docs", type=int, default=96)
    parser.add_argument("--length", type=int, default=6000)
    parser.add_argument("--batch-size", type=int, default=8)
    parser.add_argument("--num-workers", type=int, default=0)
    args = parser.parse_args()
    torch.manual_seed(0)
    torch.set_num_threads(1)
    loader = DataLoader(Reviews(args.docs, 300, seed=0), batch_size=args.batch_size, shuffle=True,
                        num_workers=args.num_workers)
    model = torch.nn.Sequential(torch.nn.Embedding(513, 8), torch.nn.Flatten(), torch.nn.Linear(8 * 2048, 2))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    for epoch in range(1000):
        for ids in loader:
            loss = model(ids).logsumexp(dim=1).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()


if __name__ == "__main__":
    main()
'''


def test_on_a_real_pipeline_the_hash_is_refused_by_replay_and_its_caller_passes(tmp_path):
    """Real capture and replay: the per-trigram hash replays no faster remembered (three bytes hash as fast as
    they look up) and is refused; the proposer asks again with it skipped and gets `trigram_ids`, a caller
    the profile sampled on the path, whose words repeat and whose memo saves every hash of the word."""
    from types import SimpleNamespace as NS

    from perfloop.agent.proposers import codemod as proposer
    from perfloop.tools.change.codemods import ProfileFacts
    from perfloop.tools.contract.target import load_target
    from perfloop.tools.measure.profiler import ProbeSettings
    from tests.conftest import git, make_repo

    repo = make_repo(tmp_path / "repo", "tokenizer")
    (repo / "train.py").write_text(TRIGRAM_PIPELINE.lstrip())
    git(repo, "commit", "-qam", "trigram hashing")
    facts = ProfileFacts(hot_function=_ref(repo, "train.py", "fnv"),
                         path_functions=[_ref(repo, "train.py", "Reviews.__getitem__"),
                                         _ref(repo, "train.py", "trigram_ids")])
    recorded = []
    ctx = NS(record=recorded.append, next_run=lambda label: tmp_path / f"{label}-{len(recorded)}",
             protected=lambda tree: ProbeSettings(), workspace=NS(candidate_tree=repo, reset_candidate=lambda: None),
             state=NS(profile=None, target=load_target(repo)))
    result = proposer._replayed_choice(ctx, "memoize_pure_helper", CodemodContext(root=repo, profile=facts), repo)
    assert [r.function for r in recorded] == ["fnv", "trigram_ids"]
    assert recorded[0].speedup < proposer.MEMO_MIN_REPLAY_SPEEDUP <= recorded[1].speedup
    assert result.replay.function == "trigram_ids" and result.replay.per_element
    assert any(note.startswith("fnv tried first: replay of fnv: x") for note in result.notes), result.notes


@pytest.mark.parametrize("files, hot, path, caller, passed_over", CASES, ids=["module-functions", "methods", "while"])
def test_a_function_the_profile_saw_in_little_of_its_phase_is_tried_last(tmp_path, files, hot, path, caller,
                                                                          passed_over):
    """A memo saves at most the time under the function remembered: the hot function the profile saw on the stack
    in 2% of batch building goes after the caller it saw in 80% (blind19 i4: `is_excluded`, 1%, was tried before
    the `load_policy` under which the JSON parse and the deep copy ran); with no share known, the order stays."""
    from perfloop.tools.change.codemods import ProfileFacts

    _write(tmp_path, files)
    refs = [_ref(tmp_path, *p) for p in path]
    shares = {f"{hot[0]}:{hot[1]}": 0.02, **{f"{file}:{name}": 0.8 for file, name in path}}
    facts = ProfileFacts(hot_function=_ref(tmp_path, *hot), path_functions=refs, inclusive_shares=shares)
    first = apply_codemod("memoize_pure_helper", CodemodContext(root=tmp_path, profile=facts))
    assert first.replay.function == caller
    # Only what the profile measured moves: without a share for the hot function, it is tried first again.
    unknown = facts.model_copy(update={"inclusive_shares": {k: v for k, v in shares.items() if v > 0.5}})
    assert apply_codemod("memoize_pure_helper", CodemodContext(root=tmp_path, profile=unknown)
                         ).replay.function == hot[1]


def test_small_shares_last_keeps_each_group_in_its_order():
    from perfloop.tools.change.codemods.hot_function import small_shares_last

    class Ordered(list):
        per_element = frozenset({1})

    names = ["a", "b", "c", "d", "e"]
    shares = {"f.py:a": 0.05, "f.py:b": 0.5, "f.py:c": 0.09, "f.py:e": 0.1}
    ordered = small_shares_last(Ordered(("f.py", n) for n in names), shares, lambda file, name: name)
    assert [n for _, n in ordered] == ["b", "d", "e", "a", "c"] and isinstance(ordered, Ordered)
    assert ordered.per_element == frozenset({1})
