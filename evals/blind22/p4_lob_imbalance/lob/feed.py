"""Synthetic level-2 feed, serialised the way a capture tool dumps it: one text line per book update.

    <ts> B <px>:<sz> <px>:<sz> ... A <px>:<sz> ...
"""
import numpy as np


def generate_feed(num_events, levels, tick, start_price, seed):
    rng = np.random.default_rng(seed)
    mid_ticks = int(round(start_price / tick)) * 2  # half-tick grid
    lines = []
    ts = 1_700_000_000.0
    for _ in range(num_events):
        ts += float(rng.exponential(0.02))
        mid_ticks += int(rng.choice([-1, 0, 0, 0, 1]))
        half_spread = int(rng.integers(1, 4))
        best_bid = (mid_ticks - half_spread) // 2
        best_ask = best_bid + max(1, half_spread)
        bid_sz = rng.integers(1, 40, size=levels) * 100
        ask_sz = rng.integers(1, 40, size=levels) * 100
        bids = " ".join(f"{(best_bid - k) * tick:.2f}:{int(s)}" for k, s in enumerate(bid_sz))
        asks = " ".join(f"{(best_ask + k) * tick:.2f}:{int(s)}" for k, s in enumerate(ask_sz))
        lines.append(f"{ts:.6f} B {bids} A {asks}")
    return lines
