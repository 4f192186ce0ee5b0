"""Synthetic e-commerce click-stream export: one JSON line per user with a list of event dicts.

Events come as the tracker wrote them: ISO-8601 timestamps, out of order within a user
(late batches from mobile clients) and with some duplicated events.
"""
import datetime as dt
import json
import random

EVENT_TYPES = ("view", "click", "cart", "purchase")
DEVICES = ("web", "ios", "android")
EPOCH = dt.datetime(2024, 3, 1, tzinfo=dt.timezone.utc)


def make_export(num_users, num_items, min_events, max_events, seed):
    rng = random.Random(seed)
    # items live in categories; a session mostly browses one or two categories
    num_cats = 40
    item_cat = [rng.randrange(num_cats) for _ in range(num_items)]
    by_cat = [[] for _ in range(num_cats)]
    for item, c in enumerate(item_cat):
        by_cat[c].append(item)
    lines = []
    for u in range(num_users):
        taste = rng.sample(range(num_cats), 4)
        t = rng.uniform(0, 3 * 86400)
        events = []
        n = rng.randint(min_events, max_events)
        cat = rng.choice(taste)
        while len(events) < n:
            if rng.random() < 0.12:  # leave and come back later: a new session
                t += rng.uniform(2400, 2 * 86400)
                cat = rng.choice(taste)
            elif rng.random() < 0.2:
                cat = rng.choice(taste) if rng.random() < 0.8 else rng.randrange(num_cats)
            t += rng.expovariate(1 / 40.0)
            item = rng.choice(by_cat[cat][:12]) if rng.random() < 0.6 else rng.choice(by_cat[cat])
            etype = rng.choices(EVENT_TYPES, weights=(70, 20, 7, 3))[0]
            stamp = (EPOCH + dt.timedelta(seconds=t)).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"
            ev = {"ts": stamp, "type": etype, "item_id": f"sku-{item:05d}",
                  "device": rng.choice(DEVICES), "price": round(5 + (item % 97) * 1.37, 2)}
            events.append(ev)
            if rng.random() < 0.03:
                events.append(dict(ev))  # tracker retry
        # late-arriving batches: shuffle small blocks
        for _ in range(len(events) // 25):
            i = rng.randrange(len(events) - 5)
            block = events[i:i + 5]
            rng.shuffle(block)
            events[i:i + 5] = block
        lines.append(json.dumps({"user_id": f"u{u:06d}", "events": events}))
    return lines
