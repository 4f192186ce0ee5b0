"""`.index(v)` on a list a dataset is handed by its callers (`self.vocab = vocab`): answered from a dict where every
construction in the target's files passes a new list the caller only reads afterwards (`handed_in.py`).

Four differently written hand-overs (none an eval target's): a script's `main` builds the vocabulary with a
function of its own and passes it by position; a loader factory in another file passes a sorted label list by
keyword; module-level code passes a comprehension; a corpus object's `__init__` hands on (and keeps) the list its own
caller made. Each refusal names the mention that may share or change the list.
"""
from __future__ import annotations

import textwrap

import pytest

from perfloop.tools.change.codemods import CodemodContext, NotApplicable, apply_codemod
from tests.conftest import hot

DATASET = """
    class Tagged:
        def __init__(self, rows, vocab, width=16):
            self.rows = rows
            self.vocab = vocab
            self.width = width

        def __len__(self):
            return len(self.rows)

        def __getitem__(self, i):
            ids = []
            for tok in self.rows[i].split():
                try:
                    ids.append(self.vocab.index(tok) + 1)
                except ValueError:
                    ids.append(0)
            return (ids + [0] * self.width)[:self.width]
"""

CALLERS = {
    "main_builds_and_passes_by_position": ("""
        from data import Tagged


        def build_vocab(rows, top):
            counts = {}
            for row in rows:
                for tok in row.split():
                    counts[tok] = counts.get(tok, 0) + 1
            vocab = []
            vocab.extend(sorted(counts, key=lambda t: (-counts[t], t))[:top])
            return vocab


        def main(rows):
            vocab = build_vocab(rows, 40)
            ds = Tagged(rows, vocab)
            print(len(vocab), len(set(vocab)))
            return [ds[i] for i in range(len(ds))]
    """, None),
    "factory_passes_a_sorted_list_by_keyword": ("""
        from data import Tagged


        def make_dataset(rows):
            labels = sorted({tok for row in rows for tok in row.split()})
            for lab in labels[:3]:
                print(lab)
            return Tagged(rows=rows, vocab=labels, width=8)
    """, None),
    "module_level_comprehension": ("""
        from data import Tagged

        ROWS = ["a b c", "c d e", "e f a"] * 4
        WORDS = [w for w in "a b c d e f g h i j".split()]
        DS = Tagged(ROWS, WORDS)
    """, None),
    "caller_appends_after": ("""
        from data import Tagged


        def main(rows):
            vocab = sorted(set(" ".join(rows).split()))
            ds = Tagged(rows, vocab)
            vocab.append("<unk>")
            return ds
    """, "may change or share `vocab`"),
    # a corpus object hands the vocabulary its own callers made on to the dataset, and keeps it (only read)
    "an_init_hands_it_on": ("""
        from data import Tagged


        class Corpus:
            def __init__(self, rows, vocab):
                self.vocab = vocab
                self.tagged = Tagged(rows, vocab)

            def size(self):
                return len(self.vocab)


        def main(rows):
            vocab = sorted(set(" ".join(rows).split()))
            return Corpus(rows, vocab)
    """, None),
    "an_init_changes_what_it_hands_on": ("""
        from data import Tagged


        class Corpus:
            def __init__(self, rows, vocab):
                vocab.append("<pad>")
                self.tagged = Tagged(rows, vocab)


        def main(rows):
            vocab = sorted(set(" ".join(rows).split()))
            return Corpus(rows, vocab)
    """, "may change or share `vocab`"),
    "an_init_hands_on_a_list_its_caller_shares": ("""
        from data import Tagged

        SHARED = []


        class Corpus:
            def __init__(self, rows, vocab):
                self.tagged = Tagged(rows, vocab)


        def main(rows):
            vocab = sorted(set(" ".join(rows).split()))
            SHARED.append(vocab)
            return Corpus(rows, vocab)
    """, "may change or share `vocab`"),
    "caller_passes_its_parameter": ("""
        from data import Tagged


        def make(rows, vocab):
            return Tagged(rows, vocab)
    """, "is a parameter of make"),
    "passed_through_kwargs": ("""
        from data import Tagged


        def make(rows, options):
            return Tagged(rows, **options)
    """, "built without a `vocab` this reading can follow"),
    "builder_keeps_its_own_copy": ("""
        from data import Tagged

        CACHE = []


        def build_vocab(rows):
            vocab = sorted(set(" ".join(rows).split()))
            CACHE.append(vocab)
            return vocab


        def main(rows):
            vocab = build_vocab(rows)
            return Tagged(rows, vocab)
    """, "not a list made there"),
    "an_attribute_passed": ("""
        from data import Tagged


        class Loader:
            def __init__(self, rows, vocab):
                self.vocab = list(vocab)
                self.ds = Tagged(rows, self.vocab)
    """, "not a name bound to a new list"),
}


def _apply(tmp_path, caller: str):
    (tmp_path / "data.py").write_text(textwrap.dedent(DATASET).lstrip())
    (tmp_path / "train.py").write_text(textwrap.dedent(caller).lstrip())
    line = next(n for n, l in enumerate((tmp_path / "data.py").read_text().splitlines(), 1) if "def __getitem__(" in l)
    return apply_codemod("index_lookup_tables", CodemodContext(root=tmp_path, profile=hot("Tagged.__getitem__",
                                                                                           "data.py", line)))


@pytest.mark.parametrize("name", sorted(CALLERS))
def test_a_handed_in_list_is_looked_up_only_where_every_caller_made_it_and_only_reads_it(tmp_path, name):
    caller, refused = CALLERS[name]
    if refused is None:
        result = _apply(tmp_path, caller)
        assert "_index_of(self.vocab, tok)" in result.files["data.py"]
    else:
        with pytest.raises(NotApplicable, match=refused.replace("(", r"\(").replace(")", r"\)")):
            _apply(tmp_path, caller)


def test_the_looked_up_dataset_gives_what_the_scan_gave(tmp_path):
    import sys

    caller, _ = CALLERS["main_builds_and_passes_by_position"]
    result = _apply(tmp_path, caller)
    rows = ["the cat sat", "a dog sat on the mat", "the the cat", "unseen words here"] * 3
    outputs = []
    for source in ((tmp_path / "data.py").read_text(), result.files["data.py"]):
        (tmp_path / "data.py").write_text(source)
        sys.path.insert(0, str(tmp_path))
        try:
            for mod in ("data", "train"):
                sys.modules.pop(mod, None)
            import train
            outputs.append(train.main(rows))
        finally:
            sys.path.remove(str(tmp_path))
            for mod in ("data", "train"):
                sys.modules.pop(mod, None)
    assert outputs[0] == outputs[1] and any(v > 0 for row in outputs[0] for v in row)
