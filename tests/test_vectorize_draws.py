"""One random draw per element, vectorised as one array draw (draws.py): the same numbers, the same stream after."""
from __future__ import annotations

import textwrap

import numpy as np
import pytest

from perfloop.tools.change.codemods import NotApplicable
from tests.test_vectorize import vectorise

# Three differently written augmentations: a jitter loop over a channel with a generator passed in, a
# comprehension scaling each value, and the legacy global stream indexed by range. Each is run from the same
# seed in its old and new version: the values and the generator's state after must be the same.
CASES = {
    "jitter_loop": ("""
        def jitter(channel, sigma, rng):
            noisy = []
            for v in channel:
                noisy.append(v + sigma * rng.standard_normal())
            return noisy
    """, "jitter", lambda seed: (np.random.default_rng(7).random(23).tolist(), 0.05, np.random.default_rng(seed))),
    "scale_comprehension": ("""
        def scale(row, rng):
            return [x * rng.uniform(0.9, 1.1) for x in row]
    """, "scale", lambda seed: (np.random.default_rng(8).random(17).tolist(), np.random.default_rng(seed))),
    "legacy_by_index": ("""
        def perturb(sig):
            out = []
            for i in range(len(sig)):
                eps = np.random.normal(0.0, 0.01)
                out.append(sig[i] + eps if sig[i] > 0.5 else sig[i] - eps)
            return out
    """, "perturb", lambda seed: (np.random.default_rng(9).random(31).tolist(),)),
    "inner_loop_per_channel": ("""
        def jitter_channels(x, sigma, rng):
            out = []
            for ch in x:
                noisy = []
                for v in ch:
                    noisy.append(v + sigma * rng.standard_normal())
                out.append(noisy)
            return out
    """, "jitter_channels", lambda seed: (np.random.default_rng(3).random((3, 11)).tolist(), 0.1,
                                         np.random.default_rng(seed))),
}


def _state(args):
    rng = next((a for a in args if isinstance(a, np.random.Generator)), None)
    return rng.bit_generator.state if rng is not None else np.random.get_state()[1].tolist()


@pytest.mark.parametrize("name", sorted(CASES))
def test_one_draw_per_element_becomes_one_array_draw_with_the_same_numbers_and_stream(tmp_path, name):
    source, function, make = CASES[name]
    old, new, result = vectorise(tmp_path, textwrap.dedent(source), function)
    body = result.files["mod.py"].split(f"def {function}(", 1)[1]
    assert "size=len(" in body and body.count("for ") == (1 if name == "inner_loop_per_channel" else 0), body
    for seed in (0, 1):
        np.random.seed(seed)
        old_args = make(seed)
        before = old(*old_args)
        old_state = _state(old_args)
        np.random.seed(seed)
        new_args = make(seed)
        after = new(*new_args)
        assert before == after  # bit-identical Python floats
        assert old_state == _state(new_args)  # the stream is where n scalar draws left it
    assert any("one array draw" in note for note in result.notes)


@pytest.mark.parametrize("source, reason", [
    ("""
        def two_draws(xs, rng):
            out = []
            for x in xs:
                out.append(x * rng.uniform(0.9, 1.1) + rng.normal(0.0, 0.1))
            return out
    """, "random draw"),
    ("""
        def sometimes(xs, rng, p):
            out = []
            for x in xs:
                if x > p:
                    out.append(x + rng.standard_normal())
                else:
                    out.append(x)
            return out
    """, "random draw"),
    ("""
        def with_torch(xs):
            return [x + float(torch.randn(())) for x in xs]
    """, "random draw"),
    ("""
        def python_random(xs, gen):
            return [x + gen.gauss(0.0, 1.0) for x in xs]
    """, "random draw"),
    ("""
        def sized(xs, rng):
            return [x + rng.normal(0.0, 1.0, 3)[0] for x in xs]
    """, "random draw"),
])
def test_draws_whose_order_a_vector_draw_would_change_are_refused(tmp_path, source, reason):
    """Two draws per element would interleave, a draw under an `if` skips elements, torch draws arrays another
    way, Python's random has no array draw, and a draw given its own size is not one number per element."""
    text = "import torch\n\n" + textwrap.dedent(source)
    function = text.split("def ", 1)[1].split("(", 1)[0]
    with pytest.raises(NotApplicable, match=reason):
        vectorise(tmp_path, text, function)
