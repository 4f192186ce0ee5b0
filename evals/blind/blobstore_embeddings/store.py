"""A stand-in for a remote object store (S3/GCS-like): every GET pays a network round trip."""
import io
import time

import numpy as np


class BlobClient:
    def __init__(self, objects, latency_s):
        self._objects = objects          # key -> bytes (what the bucket holds)
        self.latency_s = latency_s

    def get(self, key):
        time.sleep(self.latency_s)       # request + first byte
        return self._objects[key]


def populate(n, dim, classes, seed):
    rng = np.random.default_rng(seed)
    protos = rng.normal(0, 1, size=(classes, dim)).astype(np.float32)
    objects, keys = {}, []
    for i in range(n):
        label = int(rng.integers(classes))
        vec = protos[label] + rng.normal(0, 1.2, size=dim).astype(np.float32)
        buf = io.BytesIO()
        np.savez(buf, embedding=vec, label=np.int64(label))
        key = f"emb/{i // 512:03d}/{i:06d}.npz"
        objects[key] = buf.getvalue()
        keys.append(key)
    return objects, keys
