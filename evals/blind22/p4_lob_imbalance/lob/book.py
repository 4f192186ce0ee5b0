"""Parsing of feed lines into book snapshots, and the per-snapshot microstructure features."""
from collections import namedtuple

Snapshot = namedtuple("Snapshot", ["ts", "bids", "asks"])  # bids/asks: [(price, size), ...] best first


def parse_line(line):
    fields = line.split()
    ts = float(fields[0])
    side, bids, asks = None, [], []
    for field in fields[1:]:
        if field == "B" or field == "A":
            side = bids if field == "B" else asks
            continue
        px, sz = field.split(":")
        side.append((float(px), float(sz)))
    return Snapshot(ts, bids, asks)


def mid_price(snap):
    return (snap.bids[0][0] + snap.asks[0][0]) / 2.0


def spread(snap):
    return snap.asks[0][0] - snap.bids[0][0]


def depth_imbalance(snap, levels):
    """(bid depth - ask depth) / total depth, level l weighted by 1 / (l + 1)."""
    num = 0.0
    den = 0.0
    for lvl in range(levels):
        w = 1.0 / (lvl + 1)
        b, a = snap.bids[lvl][1], snap.asks[lvl][1]
        num += w * (b - a)
        den += w * (b + a)
    return num / den if den else 0.0


def total_depth(snap, levels):
    depth = 0.0
    for lvl in range(levels):
        depth += snap.bids[lvl][1] + snap.asks[lvl][1]
    return depth
