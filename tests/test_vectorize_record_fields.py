"""Fields of records read by key in an inner loop over a list the loop never changes: `ev["ts"]`, `r["geo"]["lat"]`.

Each field is one column, made once from the list (`np.asarray([item["ts"] for item in events])`), along the inner
axis; a string field compares for (in)equality with a string literal element by element. A record without the key
raises KeyError when the column is made, where the loop raised it only for the records it read: replay sees the two
differ before any pipeline run.
"""
from __future__ import annotations

import textwrap

import numpy as np
import pytest

from tests.test_vectorize import vectorise
from tests.test_vectorize_searches import assert_same_outcome

RECORDS = {
    # heartbeats per time slot from a sensor's event stream
    "slots": ("""
        def heartbeats_per_slot(events, starts, slot):
            out = []
            for a in starts:
                b = a + slot
                out.append(sum(1 for ev in events if ev["type"] == "heartbeat" and a <= ev["ts"] < b))
            return out
    """, "heartbeats_per_slot", lambda rng, n: (
        [{"type": str(rng.choice(["heartbeat", "arrive", "depart"])), "ts": int(t)}
         for t in np.sort(rng.integers(0, 3600, n))], list(range(0, 3600, 300)), 300)),
    # the summed detection scores of the other classes near each anchor
    "detections": ("""
        def near_scores(anchors, dets, cls):
            totals = []
            for ax, ay in anchors:
                total = 0.0
                for d in dets:
                    if d["label"] != cls and abs(d["x"] - ax) < 5.0 and abs(d["y"] - ay) < 5.0:
                        total += d["score"]
                totals.append(total)
            return totals
    """, "near_scores", lambda rng, n: (
        [tuple(p) for p in rng.uniform(0, 40, (25, 2)).tolist()],
        [{"label": str(rng.choice(["car", "bike"])), "score": float(s), "x": float(x), "y": float(y)}
         for s, x, y in zip(rng.random(n), rng.uniform(0, 40, n), rng.uniform(0, 40, n))], "bike")),
    # nested fields: stations within a radius of each query point
    "nested": ("""
        def stations_near(points, stations, radius):
            counts = []
            for px, py in points:
                counts.append(sum(1 for s in stations
                                  if (s["geo"]["lat"] - px) ** 2 + (s["geo"]["lon"] - py) ** 2 <= radius * radius))
            return counts
    """, "stations_near", lambda rng, n: (
        [tuple(p) for p in rng.uniform(0, 10, (30, 2)).tolist()],
        [{"id": k, "geo": {"lat": float(a), "lon": float(b)}} for k, (a, b) in enumerate(rng.uniform(0, 10, (n, 2)))],
        1.5)),
}


@pytest.mark.parametrize("case", sorted(RECORDS))
def test_record_fields_read_by_key_are_columns_of_the_list(tmp_path, case):
    source, name, make = RECORDS[case]
    old, new, result = vectorise(tmp_path, textwrap.dedent(source), name)
    body = result.files["mod.py"].split(f"def {name}(")[1]
    assert " for " not in body.replace("for item in", ""), result.files["mod.py"]
    rng = np.random.default_rng(15)
    for n in (1, 6, 120):
        assert_same_outcome(old, new, *make(rng, n))


def test_a_record_without_a_key_the_loop_never_read_raises_in_the_rewrite(tmp_path):
    source, name, _ = RECORDS["slots"]
    old, new, _ = vectorise(tmp_path, textwrap.dedent(source), name)
    events = [{"type": "heartbeat", "ts": 10}, {"type": "battery"}]  # the loop never reads the battery's `ts`
    assert old(events, [0], 300) == [1]
    with pytest.raises(KeyError):
        new(events, [0], 300)
