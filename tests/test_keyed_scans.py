"""A scan of a fixed table by one key, per sample, walks only the rows of that key (`keyed_scans.py`).

`[r for r in self.rows if r["customer"] == cid and ...]` scanned the whole table for every sample; `index_lookup_tables`
now writes the scan's table as `_rows_where(self.rows, "customer", cid)`, rows grouped by key once per list, the
scan's own test kept. Three differently written scans (none an eval target's): a comprehension over dict rows a
class builds in `__init__`; a loop over a module-level table of namedtuples by attribute; a generator over tuple rows
by position, counted with `sum`. Each must give what the full scan gave, on keys present, absent, mixed int/float/bool
keys and values a dict cannot take; each refusal names what may change the table or its keys.
"""
from __future__ import annotations

import importlib
import sys
import textwrap

import pytest

from perfloop.tools.change.codemods import CodemodContext, NotApplicable, apply_codemod
from tests.conftest import hot

CASES = {
    # booking history: dict rows kept by a featurizer, the key test first in an `and`
    "dict_rows_comprehension": ("""
        class History:
            def __init__(self, records):
                self.rows = list(records)

            def features(self, row):
                cid = row["customer"]
                previous = [r for r in self.rows if r["customer"] == cid and r["day"] < row["day"]]
                return len(previous), sum(r["spend"] for r in previous)
    """, "History.features", "_rows_where(self.rows, 'customer', cid)"),
    # trips per driver from a module-level tuple of namedtuples, by attribute, in a loop whose body is the `if`
    "namedtuple_table_loop": ("""
        from collections import namedtuple

        Trip = namedtuple("Trip", "driver km")
        TRIPS = tuple(Trip(d % 7 if d % 5 else float(d % 7), 1.5 * d) for d in range(60))


        def driver_km(driver):
            total = 0.0
            for t in TRIPS:
                if t.driver == driver:
                    total += t.km
            return total
    """, "driver_km", "_rows_where(TRIPS, 'driver', driver, by_attr=True)"),
    # events per user as tuples, counted by a generator, the value on the left
    "tuple_rows_generator": ("""
        class Events:
            def __init__(self, n):
                self.events = [(u % 9, u * 3) for u in range(n)]

            def count(self, user):
                return sum(1 for e in self.events if user == e[0])
    """, "Events.count", "_rows_where(self.events, 0, user)"),
}


def _apply(tmp_path, source: str, name: str, extra: str = ""):
    text = textwrap.dedent(source).lstrip() + textwrap.dedent(extra)
    (tmp_path / "mod.py").write_text(text)
    short = name.split(".")[-1]
    line = next(n for n, l in enumerate(text.splitlines(), 1) if l.strip().startswith(f"def {short}("))
    return apply_codemod("index_lookup_tables", CodemodContext(root=tmp_path, profile=hot(name, "mod.py", line)))


def _load(tmp_path, text: str, tag: str):
    path = tmp_path / f"mod_{tag}.py"
    path.write_text(text)
    sys.path.insert(0, str(tmp_path))
    try:
        sys.modules.pop(f"mod_{tag}", None)
        return importlib.import_module(f"mod_{tag}")
    finally:
        sys.path.remove(str(tmp_path))


def _calls(case: str, module):
    """The same calls on either version: keys present, absent, equal across int/float/bool, a list (unhashable)."""
    if case == "dict_rows_comprehension":
        rows = [{"customer": c % 11 if c % 4 else str(c % 11), "day": c, "spend": 0.1 * c} for c in range(80)]
        history = module.History(iter(rows))
        probes = [rows[5], rows[40], {"customer": 99, "day": 3}, {"customer": "3", "day": 70},
                  {"customer": 3.0, "day": 70}, {"customer": True, "day": 70}, {"customer": [3], "day": 70},
                  {"customer": float("nan"), "day": 70}]
        return [history.features(p) for p in probes]
    if case == "namedtuple_table_loop":
        return [module.driver_km(d) for d in (0, 1, 1.0, True, 6, 42, "1", (1,))]
    events = module.Events(50)
    return [events.count(u) for u in (0, 4, 4.0, False, 12, None)]


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_keyed_scan_walks_the_rows_of_its_key_and_keeps_every_answer(tmp_path, case):
    source, name, call = CASES[case]
    result = _apply(tmp_path, source, name)
    new = result.files["mod.py"]
    assert call in new, new
    assert "scanned by a key" in result.summary
    old = (tmp_path / "mod.py").read_text()
    assert _calls(case, _load(tmp_path, old, "old")) == _calls(case, _load(tmp_path, new, "new"))


REFUSED = {
    "a key written elsewhere": ("dict_rows_comprehension", """
        def clean(rows):
            for r in rows:
                r["customer"] = str(r["customer"]).strip()
    """, "may write the key of a row"),
    "a key popped": ("dict_rows_comprehension", """
        def drop(row):
            return row.pop("customer", None)
    """, "may write the key of a row"),
    "an attribute set": ("namedtuple_table_loop", """
        def relabel(trip):
            setattr(trip, "driver", 0)
    """, "may write the key of a row"),
    "a table that grows": ("tuple_rows_generator", """
        def more(events):
            events.events.append((1, 2))
    """, "may change or share .events"),
}


@pytest.mark.parametrize("case", sorted(REFUSED))
def test_a_scan_whose_table_or_keys_may_change_keeps_its_scan(tmp_path, case):
    base, extra, why = REFUSED[case]
    source, name, _ = CASES[base]
    with pytest.raises(NotApplicable, match=why.replace(".", r"\.")):
        _apply(tmp_path, source, name, extra)


def test_a_value_the_scan_computes_per_row_is_not_taken(tmp_path):
    """The value read through a call, or a name the loop body sets, is not a value fixed for the scan; a loop whose
    `if` has an `else` does work for the other rows too."""
    source = textwrap.dedent("""
        class History:
            def __init__(self, records):
                self.rows = list(records)

            def features(self, row):
                hits = [r for r in self.rows if r["customer"] == str(row["customer"])]
                n, cid = 0, row["customer"]
                for r in self.rows:
                    if r["customer"] == cid:
                        cid = r["next"]
                        n += 1
                others = 0
                for r in self.rows:
                    if r["customer"] == row["customer"]:
                        n += 1
                    else:
                        others += 1
                return hits, n, others
    """)
    with pytest.raises(NotApplicable, match="no scan of a fixed table by a key"):
        _apply(tmp_path, source, "History.features")


def test_a_generator_kept_for_later_is_not_taken(tmp_path):
    """A generator reads its test's value when it runs: `cid` rebound before `list(gen)` is the one compared."""
    source = textwrap.dedent("""
        class History:
            def __init__(self, records):
                self.rows = list(records)

            def features(self, row):
                cid = row["customer"]
                later = (r for r in self.rows if r["customer"] == cid)
                cid = row["other"]
                return list(later)
    """)
    with pytest.raises(NotApplicable, match="no scan of a fixed table by a key"):
        _apply(tmp_path, source, "History.features")


def test_a_scan_written_before_is_neither_taken_again_nor_refused(tmp_path):
    """The change applied, the codemod run again on its output: the rewritten scan is not a scan of `_rows_where(...)`
    to refuse (blind21 n4's second pass named it "not a list on self")."""
    source, name, _ = CASES["dict_rows_comprehension"]
    first = _apply(tmp_path, source, name).files["mod.py"]
    (tmp_path / "mod.py").write_text(first)
    line = next(n for n, l in enumerate(first.splitlines(), 1) if l.strip().startswith("def features("))
    with pytest.raises(NotApplicable) as refused:
        apply_codemod("index_lookup_tables", CodemodContext(root=tmp_path, profile=hot(name, "mod.py", line)))
    assert "_rows_where(self.rows" not in str(refused.value), refused.value
