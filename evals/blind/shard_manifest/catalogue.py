"""The catalogue manifest: one JSON file describing every item (like a dataset index.json)."""
import json
import os
import random


def write_manifest(path, size, seed):
    tag = f"v1-{size}-{seed}"
    if os.path.exists(path):
        with open(path) as fh:
            head = fh.read(64)
        if tag in head:
            return
    os.makedirs(os.path.dirname(path), exist_ok=True)
    rng = random.Random(seed)
    items = [{"key": f"item-{i:07d}", "shard": i % 97, "offset": rng.randrange(1 << 30),
              "cls": rng.randrange(6), "q": round(rng.random(), 4)} for i in range(size)]
    with open(path, "w") as fh:
        json.dump({"version": tag, "items": items}, fh)
