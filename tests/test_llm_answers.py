"""The answer shapes real models send (tests/data/llm_answers): each applies, or fails with the reason the model sees."""
from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from perfloop.agent.proposers.answers import BadAnswer, apply_edits, parse_candidates

ANSWERS = Path(__file__).parent / "data" / "llm_answers"
FILES = {
    "data.py": textwrap.dedent("""\
        import torch


        def frame_energy(x, frame):
            out = []
            for i in range(0, len(x) - frame, frame):
                acc = 0.0
                for k in range(frame):
                    acc += x[i + k] ** 2
                out.append(acc)
            return out


        class Frames(torch.utils.data.Dataset):
            def __getitem__(self, i):
                return torch.tensor(frame_energy(self.rows[i], 16))
    """),
    "train.py": "import torch\n\nfrom data import Frames\n",
    "helpers.py": textwrap.dedent("""\
        def scale(values, g):
            return [v * g for v in values]


        def total_a(values):
            total = 0.0
            for v in values:
                total += v
            return total


        def total_b(values):
            total = 0
            for v in values:
                total += v
            return total
    """),
}
EDITABLE = ["*.py"]
# answer file -> ("ok", {file: text the new file must hold}) or ("bad", reason the model is told)
EXPECTED = {
    "fenced_json.txt": ("ok", {"data.py": "np.cumsum(np.asarray(x[i:i + frame]"}),
    "json_in_prose.txt": ("ok", {"data.py": "    n = len(x)\n    for i in range(0, n - frame, frame):\n"}),
    "unified_diff_fenced.txt": ("ok", {"data.py": "    out = []\n    n = len(x)\n    for i in range(0, n - frame"}),
    "raw_multi_file_diff.txt": ("ok", {"data.py": "frame_energy(self.rows[i], FRAME)",
                                       "train.py": "import torch\nFRAME = 16\n\nfrom data import Frames\n"}),
    "whole_file.txt": ("ok", {"helpers.py": "def unused():\n    return None\n"}),
    "trailing_spaces.txt": ("ok", {"data.py": "    out = []\n    n = len(x)\n    for i in range(0, n - frame, frame):\n"
                                              "        acc = 0.0\n"}),
    "other_indentation.txt": ("ok", {"data.py": "        for k in range(frame):\n            v = x[i + k]\n"
                                                "            acc += v * v\n        out.append(acc)\n"}),
    "file_not_in_prompt.txt": ("ok", {"helpers.py": "    return [g * v for v in values]\n"}),
    "missing_file.txt": ("bad", "nowhere.py does not exist in the pipeline folder; send its whole text as `content`"),
    "ambiguous_indentation.txt": ("bad", "matches 2 places when trailing spaces are ignored"),
    "diff_not_matching.txt": ("bad", "the hunk at line 4 does not match the file"),
    "malformed_json.txt": ("bad", "not one JSON object"),
}


def test_every_recorded_answer_has_an_expectation():
    assert sorted(p.name for p in ANSWERS.glob("*.txt")) == sorted(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_recorded_answer_applies_or_fails_with_a_reason_the_model_can_act_on(tmp_path, name):
    for relative, text in FILES.items():
        (tmp_path / relative).write_text(text)
    outcome, expected = EXPECTED[name]
    content = (ANSWERS / name).read_text()
    if outcome == "bad":
        with pytest.raises(BadAnswer) as error:
            for answer in parse_candidates(content, 3):
                apply_edits(tmp_path, answer, EDITABLE)
        assert expected in str(error.value)
        return
    (answer,) = parse_candidates(content, 3)
    texts = apply_edits(tmp_path, answer, EDITABLE)
    assert sorted(texts) == sorted(expected)
    for relative, fragment in expected.items():
        assert fragment in texts[relative], texts[relative]
        compile(texts[relative], relative, "exec")  # every applied answer is still Python
    assert all((tmp_path / r).read_text() == t for r, t in FILES.items())  # nothing written: texts in memory


def test_an_edit_must_be_one_kind():
    with pytest.raises(BadAnswer, match="exactly one of search/replace, diff or content"):
        parse_candidates('{"summary": "x", "edits": [{"file": "a.py", "search": "a", "replace": "b", "content": ""}]}', 1)
