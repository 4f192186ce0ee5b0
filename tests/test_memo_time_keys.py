"""Dates, times, datetimes and timedeltas are exact memo keys: a per-timestamp helper is remembered.

Time-series pipelines call small helpers per timestamp (the local wall time across a DST change, the tariff
band of a half-hour, the holiday a date falls on), and their windows overlap from draw to draw, so the
timestamps repeat. Until now a datetime argument had no key and every such call was computed again. The key
must be exact: an aware datetime equals one of another zone at the same instant (whose `.hour` differs), two
fixed-offset zones of one offset differ in name, and the fold tells the two 01:30s of a night apart.
"""
from __future__ import annotations

import textwrap
from datetime import date, datetime, time, timedelta, timezone
from pathlib import Path

import pytest

from perfloop.tools.change.codemods import CodemodContext, apply_codemod
from perfloop.tools.change.codemods.memo_runtime import HELPER_SOURCE
from tests.conftest import hot


def _key():
    namespace = {}
    exec("import copy\nimport struct\n" + HELPER_SOURCE, namespace)
    return namespace["_memo_key"], namespace["_memo_key_data"]


@pytest.mark.parametrize("function", [0, 1], ids=["_memo_key", "_memo_key_data"])
def test_time_values_key_by_every_field_the_fold_and_the_zone(function):
    key = _key()[function]
    utc, plus_one = timezone.utc, timezone(timedelta(hours=1))
    instant = datetime(2024, 3, 31, 12, 0, tzinfo=utc)
    same_instant = instant.astimezone(plus_one)
    assert instant == same_instant and key(instant) != key(same_instant)  # equal, but .hour differs
    assert key(instant) == key(datetime(2024, 3, 31, 12, 0, tzinfo=timezone.utc))
    assert key(datetime(2024, 3, 31, 12)) != key(instant)  # naive and aware
    assert key(datetime(2024, 10, 27, 1, 30, fold=0)) != key(datetime(2024, 10, 27, 1, 30, fold=1))
    named = timezone(timedelta(hours=1), "BST")
    assert key(datetime(2024, 6, 1, tzinfo=named)) != key(datetime(2024, 6, 1, tzinfo=plus_one))
    assert key(date(2024, 6, 1)) != key(datetime(2024, 6, 1)) and key(date(2024, 6, 1)) == key(date(2024, 6, 1))
    assert key(time(1, 30)) != key(time(1, 30, tzinfo=utc)) and key(timedelta(minutes=30)) == key(timedelta(0, 1800))
    assert key((date(2024, 1, 1), 3)) == key((date(2024, 1, 1), 3))
    with pytest.raises(TypeError):
        key(utc)  # a zone itself is no argument the memo keys


HELPERS = {
    # the local wall time of a UTC instant, with a DST rule computed every call
    "to_local": ("""
        import calendar
        from datetime import date, datetime, timedelta, timezone

        HOUR = timedelta(hours=1)


        def last_sunday(year, month):
            d = date(year, month, calendar.monthrange(year, month)[1])
            return d - timedelta(days=(d.weekday() - 6) % 7)


        def to_local(utc_dt):
            start = datetime.combine(last_sunday(utc_dt.year, 3), datetime.min.time(), timezone.utc) + HOUR
            end = datetime.combine(last_sunday(utc_dt.year, 10), datetime.min.time(), timezone.utc) + HOUR
            offset = HOUR if start <= utc_dt < end else timedelta(0)
            return (utc_dt + offset).replace(tzinfo=None)
    """, lambda: [datetime(2024, 3, 31, 0, 30, tzinfo=timezone.utc) + timedelta(minutes=30 * k) for k in range(6)]),
    # a bank-holiday flag of a date, by a scan of a fixed table
    "is_holiday": ("""
        from datetime import date, timedelta

        FIXED = [(1, 1), (12, 25), (12, 26)]


        def is_holiday(day):
            if (day.month, day.day) in FIXED:
                return True
            first_may = date(day.year, 5, 1)
            early_may = first_may + timedelta(days=(7 - first_may.weekday()) % 7)
            return day == early_may
    """, lambda: [date(2024, 4, 29) + timedelta(days=k) for k in range(10)]),
    # the tariff band of a wall-clock time of day
    "band_of": ("""
        BANDS = [("offpeak", 0, 7 * 60), ("peak", 16 * 60, 19 * 60)]


        def band_of(clock):
            minute = clock.hour * 60 + clock.minute
            for name, start, end in BANDS:
                if start <= minute < end:
                    return name
            return "standard"
    """, lambda: [__import__("datetime").time(h, m) for h in (0, 6, 16, 18, 23) for m in (0, 30)]),
}


@pytest.mark.parametrize("name", sorted(HELPERS))
def test_a_per_timestamp_helper_is_remembered_and_gives_what_it_gave(tmp_path: Path, name):
    source, make_args = HELPERS[name]
    text = textwrap.dedent(source).lstrip()
    (tmp_path / "clock.py").write_text(text)
    line = next(i for i, l in enumerate(text.splitlines(), 1) if l.startswith(f"def {name}("))
    result = apply_codemod("memoize_pure_helper", CodemodContext(root=tmp_path, profile=hot(name, "clock.py", line)))
    assert result.replay.function == name
    old, new = {}, {}
    exec(compile(text, "old", "exec"), old)
    exec(compile(result.files["clock.py"], "new", "exec"), new)
    values = make_args()
    for _ in range(2):  # the second pass is served from the memo
        for value in values:
            assert new[name](value) == old[name](value)
            assert type(new[name](value)) is type(old[name](value))
    assert len(new[f"_{name}_memo"]) == len(set(values))


TIME_PIPELINE = '''
"""Half-hourly meter readings: each window asks the local wall time of every slot, the windows overlap."""
import argparse
import calendar
import random
from datetime import date, datetime, timedelta, timezone

import torch
from torch.utils.data import DataLoader, Dataset

HOUR = timedelta(hours=1)
START = datetime(2024, 3, 20, tzinfo=timezone.utc)


def last_sunday(year, month):
    d = date(year, month, calendar.monthrange(year, month)[1])
    return d - timedelta(days=(d.weekday() - 6) % 7)


def to_local(utc_dt):
    start = datetime.combine(last_sunday(utc_dt.year, 3), datetime.min.time(), timezone.utc) + HOUR
    end = datetime.combine(last_sunday(utc_dt.year, 10), datetime.min.time(), timezone.utc) + HOUR
    return (utc_dt + (HOUR if start <= utc_dt < end else timedelta(0))).replace(tzinfo=None)


class Windows(Dataset):
    def __init__(self, n):
        self.n = n
        self.rng = random.Random(0)

    def __len__(self):
        return self.n

    def __getitem__(self, index):
        first = START + timedelta(minutes=30 * self.rng.randrange(200))
        hours = [to_local(first + timedelta(minutes=30 * k)).hour for k in range(96)]
        return torch.tensor(hours, dtype=torch.float32)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--num-workers", type=int, default=0)
    args = parser.parse_args()
    torch.manual_seed(0)
    torch.set_num_threads(1)
    loader = DataLoader(Windows(64), batch_size=8, shuffle=True, num_workers=args.num_workers)
    model = torch.nn.Linear(96, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.001)
    for epoch in range(1000):
        for x in loader:
            loss = model(x).pow(2).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()


if __name__ == "__main__":
    main()
'''


def test_on_a_real_pipeline_calls_with_datetimes_are_keyed(tmp_path):
    """Real capture and replay: every captured call of `to_local(utc_dt)` counts as keyed, judged by the memo's
    own key function (before, none did, and the memo was refused before any pipeline run for want of a key), and
    the remembered version gives the same local times. Whether it is fast enough is the replay's and the
    pipeline's to say, not a timed assertion here."""
    from perfloop.tools.check.replay import check_rewrite
    from perfloop.tools.contract.target import load_target
    from perfloop.tools.measure.profiler import ProbeSettings
    from tests.conftest import git, make_repo

    repo = make_repo(tmp_path / "repo", "tokenizer")
    (repo / "train.py").write_text(TIME_PIPELINE.lstrip())
    git(repo, "commit", "-qam", "meter windows")
    line = next(i for i, l in enumerate(TIME_PIPELINE.lstrip().splitlines(), 1) if l.startswith("def to_local("))
    result = apply_codemod("memoize_pure_helper", CodemodContext(root=repo, profile=hot("to_local", "train.py", line)))
    outcome = check_rewrite(result, repo, load_target(repo).rendered_command(), tmp_path / "replay",
                            ProbeSettings(steps=2, warmup_steps=0))
    assert outcome.ok, outcome.reason
    assert outcome.num_calls > 0 and outcome.keyed_calls == outcome.num_calls, outcome


@pytest.mark.parametrize("body, pure", [
    ("return stamp.time()", True),  # a datetime's time of day
    ("return datetime.combine(stamp.date(), datetime.min.time())", True),
    ("return time.time() - stamp.timestamp()", False),  # the clock
    ("return clock.time() - stamp.timestamp()", False),  # the clock, under another name
    ("return stamp.timestamp() - now()", False),
], ids=["time-of-day", "midnight", "time.time", "aliased-module", "from-import"])
def test_a_datetimes_time_of_day_is_a_computation_and_the_clock_is_not(tmp_path: Path, body, pure):
    text = ("import time\nimport time as clock\nfrom datetime import datetime\nfrom time import time as now\n\n\n"
            f"def stamp_part(stamp):\n    {body}\n")
    (tmp_path / "clock.py").write_text(text)
    ctx = CodemodContext(root=tmp_path, profile=hot("stamp_part", "clock.py", 7))
    if pure:
        assert apply_codemod("memoize_pure_helper", ctx).replay.function == "stamp_part"
    else:
        from perfloop.tools.change.codemods import NotApplicable

        with pytest.raises(NotApplicable, match="not a computation on its arguments"):
            apply_codemod("memoize_pure_helper", ctx)
