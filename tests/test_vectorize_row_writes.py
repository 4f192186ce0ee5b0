"""A loop that copies a sequence into one row of a preallocated tensor or array, element by element, is one slice write.

The padding loop of a collate (`for t, tok in enumerate(q): ids[i, t] = tok; mask[i, t] = 1`) was refused
("the written index is not the loop counters in loop order"), and the collate stayed a Python loop per token.
Each case is written as a pipeline would write it (none is an eval target's): the rewrite must give the same
tensors (values and dtypes) on full, empty and one-long rows; the refusals name what stays.
"""
from __future__ import annotations

import textwrap

import numpy as np
import pytest
import torch

from perfloop.tools.change.codemods import NotApplicable
from tests.test_vectorize import re_escape, vectorise

CASES = {
    # an HF-style collate: token ids and an attention mask, batch-major, long tensors
    "ids_and_mask": ("""
        import torch

        def pad_batch(seqs, pad_id=0):
            width = max(len(s) for s in seqs)
            input_ids = torch.full((len(seqs), width), pad_id, dtype=torch.long)
            attention = torch.zeros(len(seqs), width, dtype=torch.long)
            for i, seq in enumerate(seqs):
                for t, tok in enumerate(seq):
                    input_ids[i, t] = tok
                    attention[i, t] = 1
            return input_ids, attention
    """, "pad_batch", lambda rng: ([rng.integers(1, 500, n).tolist() for n in (5, 0, 1, 9)],)),
    # float features into a numpy array, row by `[b][t]`, by index into the sequence
    "float_rows_numpy": ("""
        import numpy as np

        def stack_features(rows, length):
            out = np.zeros((len(rows), length), dtype=np.float32)
            for b in range(len(rows)):
                seq = rows[b]
                for t in range(len(seq)):
                    out[b][t] = seq[t]
            return out
    """, "stack_features", lambda rng: ([rng.standard_normal(n).tolist() for n in (3, 7, 0)], 7)),
    # time-major padding of truncated sentences, and a bool mask set to a constant
    "time_major_truncated": ("""
        import torch

        def time_major(sentences, max_len, pad):
            batch = torch.full((max_len, len(sentences)), pad, dtype=torch.int32)
            valid = torch.zeros(max_len, len(sentences), dtype=torch.bool)
            for b, sent in enumerate(sentences):
                for t, tok in enumerate(sent[:max_len]):
                    batch[t, b] = tok
                    valid[t, b] = True
            return batch, valid
    """, "time_major", lambda rng: ([rng.integers(0, 99, n).tolist() for n in (2, 12, 0, 6)], 6, -1)),
    # an alignment collate: residues to ids through a dict with a default, a gap mask, padding cleared, per row of
    # each sample's rows (values computed per element: the loop's header as a comprehension)
    "alignment_lookup": ("""
        import torch

        RESIDUES = {c: i + 2 for i, c in enumerate("ACDEFGHIKLMNPQRSTVWY-")}

        def collate(alignments, depth, length):
            tokens = torch.full((len(alignments), depth, length), 0, dtype=torch.long)
            gaps = torch.zeros((len(alignments), depth, length), dtype=torch.bool)
            pad = torch.ones((len(alignments), depth, length), dtype=torch.bool)
            for b, rows in enumerate(alignments):
                for d, row in enumerate(rows[:depth]):
                    for pos, ch in enumerate(row):
                        tokens[b, d, pos] = RESIDUES.get(ch, 1)
                        gaps[b, d, pos] = ch == "-"
                        pad[b, d, pos] = False
            return tokens, gaps, pad
    """, "collate", lambda rng: ([["".join(rng.choice(list("ACDKLX-"), n)) for _ in range(k)]
                                 for n, k in ((6, 3), (0, 1), (4, 2))], 2, 6)),
    # standardised readings into a float32 array by index, `range(len(seq))`
    "standardised_numpy": ("""
        import numpy as np

        def standardise(series, mean, std, width):
            out = np.zeros((len(series), width), dtype=np.float32)
            for b in range(len(series)):
                seq = series[b]
                for t in range(len(seq)):
                    out[b, t] = (seq[t] - mean) / std if std > 0 else 0.0
            return out
    """, "standardise", lambda rng: ([rng.standard_normal(n).tolist() for n in (4, 0, 7)], 0.3, 1.7, 7)),
    # characters as code points and positions from an offset, written `[b][t]`
    "characters_and_positions": ("""
        import torch

        def encode_words(words, width, offset):
            chars = torch.zeros(len(words), width, dtype=torch.int16)
            positions = torch.full((len(words), width), -1, dtype=torch.long)
            for b, word in enumerate(words):
                for t, ch in enumerate(word[:width]):
                    chars[b][t] = min(ord(ch.lower()) - 96, 40)
                    positions[b, t] = t + offset
            return chars, positions
    """, "encode_words", lambda rng: (["Alpha", "", "ZULU-9", "b"], 5, 1)),
}


def _same(a, b):
    if isinstance(a, tuple):
        assert len(a) == len(b)
        for x, y in zip(a, b):
            _same(x, y)
        return
    assert type(a) is type(b) and a.dtype == b.dtype and a.shape == b.shape
    assert (a == b).all()


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_row_copied_element_by_element_is_one_slice_write(tmp_path, case):
    source, name, make = CASES[case]
    old, new, result = vectorise(tmp_path, textwrap.dedent(source), name)
    text = result.files["mod.py"]
    assert "row writes" in result.summary and ":len(" in text, text
    for seed in range(3):
        args = make(np.random.default_rng(seed))
        _same(old(*args), new(*args))


def test_a_longer_sequence_than_the_row_raises_in_both_forms(tmp_path):
    source, name, _ = CASES["float_rows_numpy"]
    old, new, _ = vectorise(tmp_path, textwrap.dedent(source), name)
    for fn in (old, new):
        with pytest.raises((IndexError, ValueError)):
            fn([[1.0, 2.0, 3.0]], 2)


REFUSED = {
    "a shifted index": ("ids[i, t + 1] = tok", "is not the loop's counter at one place"),
    "the counter twice": ("ids[t, t] = tok", "is not the loop's counter at one place"),
    "a call of an invariant": ("ids[i, t] = len(seqs)", "calls a function"),
    "another statement": ("ids[i, t] = tok\n        seen.append(tok)", "holds only `T[..., t, ...] = value`"),
    # values computed per element may only compute: a function of the target's, a method that may change its object
    "a function of its own": ("ids[i, t] = lookup(tok)", "calls lookup(), which may do more than compute"),
    "a method that changes": ("ids[i, t] = seen.pop(tok)", "calls seen.pop(), which may do more than compute"),
    "an assignment expression": ("ids[i, t] = (last := tok)", "holds `NamedExpr`"),
}


@pytest.mark.parametrize("case", sorted(REFUSED))
def test_row_writes_that_are_not_copies_are_refused(tmp_path, case):
    body, why = REFUSED[case]
    source = textwrap.dedent("""
        import torch

        def fill(seqs, vocab, seen):
            ids = torch.zeros(len(seqs), 16, dtype=torch.long)
            for i, seq in enumerate(seqs):
                for t, tok in enumerate(seq):
                    BODY
            return ids
    """).replace("BODY", body.replace("\n", "\n    "))
    with pytest.raises(NotApplicable, match=re_escape(why)):
        vectorise(tmp_path, source, "fill")


def test_the_counter_read_after_the_loop_is_refused(tmp_path):
    source = textwrap.dedent("""
        import torch

        def fill_lengths(seqs):
            ids = torch.zeros(len(seqs), 16, dtype=torch.long)
            lengths = []
            for i, seq in enumerate(seqs):
                t = -1
                for t, tok in enumerate(seq):
                    ids[i, t] = tok
                lengths.append(t + 1)
            return ids, lengths
    """)
    with pytest.raises(NotApplicable, match=re_escape("`t` is read after the loop")):
        vectorise(tmp_path, source, "fill_lengths")


def test_values_computed_per_element_are_the_loops_on_any_input(tmp_path):
    """A looked-up value, int() of a float, a conditional: the comprehension computes the same Python values, and the
    row's conversion is the one each write made (int16 from ints; a missing key raises in both)."""
    source = textwrap.dedent("""
        import torch

        def fill(seqs, vocab):
            ids = torch.zeros(len(seqs), 6, dtype=torch.long)
            scaled = torch.zeros(len(seqs), 6, dtype=torch.int16)
            for i, seq in enumerate(seqs):
                for t, tok in enumerate(seq):
                    ids[i, t] = vocab[tok]
                    scaled[i, t] = int(tok * 2.5) if tok > 0 else -1
            return ids, scaled
    """)
    old, new, result = vectorise(tmp_path, source, "fill")
    assert "row writes" in result.summary and "for t, tok in enumerate(seq)]" in result.files["mod.py"]
    vocab = {k: 3 * k + 1 for k in range(-3, 9)}
    for seqs in ([[1, 2, 3], [], [-3, 8, 0, 4, 5, 6]], [[7, -2]], [[]]):
        _same(old(seqs, vocab), new(seqs, vocab))
    for fn in (old, new):
        with pytest.raises(KeyError):
            fn([[1, 99]], vocab)


def test_a_tensor_row_of_floats_into_a_long_tensor_truncates_as_each_write_did(tmp_path):
    source, name, _ = CASES["ids_and_mask"]
    old, new, _ = vectorise(tmp_path, textwrap.dedent(source), name)
    seqs = [[2.7, -2.7, 0.5], [True, False]]
    _same(old(seqs), new(seqs))
    assert torch.equal(new(seqs)[0][0], torch.tensor([2, -2, 0]))
