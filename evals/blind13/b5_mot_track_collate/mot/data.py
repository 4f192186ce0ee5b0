"""MOTChallenge-style ground truth: `frame,id,bb_left,bb_top,bb_width,bb_height,conf,class,visibility`,
one line per box, sorted by track id then frame (as MOT17 ships it)."""
import random

from torch.utils.data import Dataset


def synthesize_gt(seed, n_frames, width, height):
    rng = random.Random(seed)
    tracks = []
    tid = rng.randint(1, 50)
    for _ in range(rng.randint(70, 110)):
        tid += rng.randint(1, 4)
        start = rng.randrange(0, n_frames - 10)
        life = rng.randint(10, n_frames)
        h = rng.uniform(0.08, 0.35) * height
        w = h * rng.uniform(0.35, 0.45)
        x, y = rng.uniform(0, width - w), rng.uniform(0.3 * height, height - h)
        vx, vy = rng.gauss(0, 3.0), rng.gauss(0, 0.6)
        cls = rng.choices([1, 2, 7, 8, 12], weights=[80, 5, 8, 4, 3])[0]
        rows = []
        for f in range(start, min(n_frames, start + life)):
            x += vx + rng.gauss(0, 0.5)
            y += vy + rng.gauss(0, 0.3)
            vis = max(0.0, min(1.0, rng.gauss(0.8, 0.3)))
            conf = 0 if cls in (8, 12) and rng.random() < 0.5 else 1
            rows.append(f"{f + 1},{tid},{x:.2f},{y:.2f},{w:.2f},{h:.2f},{conf},{cls},{vis:.5f}")
        tracks.append(rows)
    return "\n".join(line for rows in tracks for line in rows) + "\n"


def parse_gt(text):
    """gt.txt -> {frame: [detection dict, ...]} in file order within each frame."""
    frames = {}
    for line in text.splitlines():
        if not line.strip():
            continue
        f, tid, x, y, w, h, conf, cls, vis = line.split(",")
        frames.setdefault(int(f), []).append({
            "id": int(tid), "bbox": (float(x), float(y), float(w), float(h)),
            "conf": int(conf), "cls": int(cls), "vis": float(vis)})
    return frames


class MOTClipDataset(Dataset):
    """Clips of `clip_length` consecutive frames; an item is the per-frame detection lists."""

    def __init__(self, sequences, clip_length, stride):
        self.sequences = []
        self.index = []
        for s, seq in enumerate(sequences):
            frames = parse_gt(seq["gt"])
            self.sequences.append({"frames": frames, "size": seq["size"], "n_frames": seq["n_frames"]})
            for start in range(1, seq["n_frames"] - clip_length + 2, stride):
                self.index.append((s, start))
        self.clip_length = clip_length

    def __len__(self):
        return len(self.index)

    def __getitem__(self, i):
        s, start = self.index[i]
        seq = self.sequences[s]
        frames = [seq["frames"].get(f, []) for f in range(start, start + self.clip_length)]
        return {"frames": frames, "image_size": seq["size"], "sequence": s, "start": start}
