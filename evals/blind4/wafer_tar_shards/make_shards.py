"""Write WM-811K-like wafer maps as WebDataset-style tar shards: <key>.npy + <key>.cls per sample."""
import io
import os
import tarfile

import numpy as np

PATTERNS = ["none", "center", "edge_ring", "scratch", "donut", "local"]


def wafer_map(rng, size, pattern):
    yy, xx = np.mgrid[0:size, 0:size]
    c = (size - 1) / 2
    r = np.hypot(yy - c, xx - c) / (size / 2)
    on_wafer = r <= 1.0
    fail = rng.random((size, size)) < 0.04
    if pattern == "center":
        fail |= (r < 0.35) & (rng.random((size, size)) < 0.7)
    elif pattern == "edge_ring":
        fail |= (r > 0.8) & (rng.random((size, size)) < 0.6)
    elif pattern == "scratch":
        a = rng.uniform(0, np.pi)
        d = np.abs((xx - c) * np.sin(a) - (yy - c) * np.cos(a))
        fail |= (d < 1.0) & (rng.random((size, size)) < 0.9) & (r < rng.uniform(0.5, 0.95))
    elif pattern == "donut":
        fail |= (r > 0.4) & (r < 0.65) & (rng.random((size, size)) < 0.6)
    elif pattern == "local":
        cy, cx = rng.integers(6, size - 6, size=2)
        fail |= (np.hypot(yy - cy, xx - cx) < 4) & (rng.random((size, size)) < 0.8)
    out = np.where(on_wafer, 1 + fail.astype(np.uint8), 0).astype(np.uint8)  # 0 off, 1 pass, 2 fail
    return out


def write_shards(shard_dir, num_shards, per_shard, size, seed):
    rng = np.random.default_rng(seed)
    os.makedirs(shard_dir, exist_ok=True)
    for s in range(num_shards):
        path = os.path.join(shard_dir, f"wafer-{s:05d}.tar")
        with tarfile.open(path + ".tmp", "w") as tf:
            for j in range(per_shard):
                key = f"{s:05d}_{j:04d}"
                label = int(rng.integers(0, len(PATTERNS)))
                buf = io.BytesIO()
                np.save(buf, wafer_map(rng, size, PATTERNS[label]))
                for name, payload in ((f"{key}.npy", buf.getvalue()), (f"{key}.cls", str(label).encode())):
                    info = tarfile.TarInfo(name)
                    info.size = len(payload)
                    tf.addfile(info, io.BytesIO(payload))
        os.replace(path + ".tmp", path)
