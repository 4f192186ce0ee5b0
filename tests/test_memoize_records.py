"""A pure parser that returns a record type of its own module is remembered, and a memo of a path whose first
functions take arguments no memo can key goes on to the ones it can.

- `record_types.record_constructors`: `Snapshot = namedtuple(...)`, `class Fill(NamedTuple)` and a plain
  `@dataclass` only store what they are given, so calling one is a computation (blind22 p4's feed-line parser was refused
  with "calls Snapshot(), which perfloop cannot read"); one with constructor code of its own is not.
- `memo_runtime`: a remembered namedtuple is handed out field by field as a new one of its type, its lists copied,
  where `copy.deepcopy` of the whole was slower than parsing a short line again.
- `proposers.codemod`: replay's refusal for arguments a memo cannot key (`Unkeyed`) does not use up the three tries
  of a memo remedy (p4's three per-snapshot helpers took a snapshot of lists each, and the parser came fourth).
"""
from __future__ import annotations

import ast
import textwrap

import pytest

from perfloop.tools.change.codemods import CodemodContext, CodemodResult, NotApplicable
from perfloop.tools.change.codemods.base import ReplayTarget
from perfloop.tools.change.codemods.record_types import record_constructors
from tests.test_memoize import memoize

RECORDS = """
    import collections
    import dataclasses
    from collections import namedtuple as nt
    from dataclasses import dataclass, field
    from typing import NamedTuple

    Snapshot = nt("Snapshot", ["ts", "bids", "asks"])
    Level = collections.namedtuple("Level", "price size")
    Quote = NamedTuple("Quote", [("bid", float), ("ask", float)])

    class Fill(NamedTuple):
        day: int
        supply: int

        def end(self):
            return self.day + self.supply

    @dataclass(frozen=True)
    class Visit:
        code: str
        tags: list = field(default_factory=list)

    @dataclasses.dataclass
    class Window:
        start: int
        stop: int

    @dataclass
    class Stamped:
        at: float = field(default_factory=time.time)

    @dataclass
    class Checked:
        lo: float

        def __post_init__(self):
            assert self.lo >= 0

    class Counted(NamedTuple):
        n: int

        def __new__(cls, n):
            return super().__new__(cls, n + 1)

    Twice = nt("Twice", "a")
    Twice = dict
"""


def test_record_types_whose_call_only_stores_its_arguments():
    found = record_constructors(ast.parse(textwrap.dedent(RECORDS)))
    assert found == {"Snapshot", "Level", "Quote", "Fill", "Visit", "Window"}


PARSER = """
    from collections import namedtuple

    Fix = namedtuple("Fix", ["t", "pos", "sats"])


    def read_fix(text):
        head, _, rest = text.partition("|")
        t, lat, lon = (float(v) for v in head.split(","))
        sats = []
        for item in rest.split():
            prn, snr = item.split("=")
            sats.append((int(prn), float(snr)))
        return Fix(t, [lat, lon], sats)
"""


def test_a_parser_returning_a_namedtuple_is_remembered_and_hands_out_fresh_records(tmp_path):
    old, new, result = memoize(tmp_path, PARSER, "read_fix")
    assert result.replay.function == "read_fix"
    line = "12.5,51.2,-0.1|4=38.5 9=41.0 17=22.25"
    first = new["read_fix"](line)
    assert first == old["read_fix"](line) and type(first).__name__ == "Fix"
    first.sats.append((0, 0.0))
    first.pos.clear()
    again = new["read_fix"](line)
    assert again == old["read_fix"](line) and again is not first and again.sats is not first.sats
    assert type(again) is type(first) and again._fields == ("t", "pos", "sats")
    assert len(new["_read_fix_memo"]) == 1


def test_a_record_with_constructor_code_of_its_own_is_still_unreadable(tmp_path):
    source = """
        from typing import NamedTuple

        class Counted(NamedTuple):
            n: int

            def __new__(cls, n):
                print("made")
                return super().__new__(cls, n)


        def count(text):
            return Counted(len(text.split()))
    """
    with pytest.raises(NotApplicable, match="Counted"):
        memoize(tmp_path, source, "count")


@pytest.mark.parametrize("unkeyed, expected", [(0, ["f0", "f1", "f2"]), (3, ["f0", "f1", "f2", "f3", "f4", "f5"]),
                                                (1, ["f0", "f1", "f2", "f3"])])
def test_refusals_for_arguments_no_memo_can_key_do_not_use_up_the_tries(monkeypatch, tmp_path, unkeyed, expected):
    """Functions f0 ... f7 in order; replay refuses the first `unkeyed` for their arguments (`Unkeyed`) and every
    other one on speed: three refusals on speed end the remedy, and no more than six functions are tried."""
    from types import SimpleNamespace as NS

    from perfloop.agent.proposers import codemod as proposer

    names = [f"f{k}" for k in range(8)]
    asked: list[str] = []

    def codemod(name, cctx):
        left = [n for n in names if n not in cctx.params.get("skip", ())]
        asked.append(left[0])
        return CodemodResult(files={}, summary="", knob="memoize", old_value=None, new_value=None, location="",
                             replay=ReplayTarget(file="mod.py", function=left[0]))

    def replayed(ctx, result, root):
        if names.index(result.replay.function) < unkeyed:
            raise proposer.Unkeyed(f"{result.replay.function}: no exact key")
        raise NotApplicable(f"{result.replay.function}: x1.1")

    monkeypatch.setattr(proposer, "apply_codemod", codemod)
    monkeypatch.setattr(proposer, "_replayed", replayed)
    ctx = NS(workspace=NS(reset_candidate=lambda: None))
    with pytest.raises(NotApplicable) as refused:
        proposer._replayed_choice(ctx, "memoize_pure_helper", CodemodContext(root=tmp_path, params={}), tmp_path)
    assert asked == expected
    assert all(f"{n} tried first" in str(refused.value) for n in expected[:-1])
