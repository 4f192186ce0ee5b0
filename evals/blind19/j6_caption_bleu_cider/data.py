"""Toy image-captioning data: scene features and five template captions per image."""
import numpy as np
import torch
from torch.utils.data import Dataset

OBJECTS = ["dog", "cat", "man", "woman", "child", "bird", "horse", "car", "bus", "train", "boat",
           "bicycle", "ball", "kite", "pizza", "cake", "table", "bench", "tree", "umbrella"]
ADJ = ["small", "large", "black", "white", "brown", "red", "young", "old", "wooden", "colorful"]
VERBS = ["sitting", "standing", "running", "walking", "lying", "riding", "eating", "holding", "playing", "parked"]
PREPS = ["on", "near", "in front of", "next to", "under", "beside", "behind", "with"]
PLACES = ["the grass", "a street", "the beach", "a field", "a table", "the snow", "a park", "the water",
          "a road", "a kitchen"]
SYN = {"large": ["big", "large"], "small": ["little", "small"], "man": ["man", "guy", "person"],
       "woman": ["woman", "lady", "person"], "child": ["child", "kid", "boy", "girl"]}
TEMPLATES = [
    "a {adj} {obj} {verb} {prep} {place}",
    "there is a {obj} {verb} {prep} {place}",
    "a {obj} that is {verb} {prep} {place}",
    "the {adj} {obj} is {verb} {prep} {place}",
    "an image of a {adj} {obj} {verb} {prep} {place}",
    "{obj} {verb} {prep} {place}",
]
SPECIALS = ["<pad>", "<bos>", "<eos>", "<unk>"]


def make_caption(rng, scene):
    adj, obj, verb, prep, place = scene
    pick = lambda w: SYN[w][rng.integers(len(SYN[w]))] if w in SYN else w  # noqa: E731
    text = TEMPLATES[rng.integers(len(TEMPLATES))].format(adj=pick(adj), obj=pick(obj), verb=verb,
                                                           prep=prep, place=place)
    words = text.split()
    if len(words) > 5 and rng.random() < 0.2:
        words.pop(int(rng.integers(1, len(words) - 1)))
    return words


class CaptionDataset(Dataset):
    def __init__(self, num_images, refs_per_image, feature_dim, max_len, seed):
        rng = np.random.default_rng(seed)
        self.seed = seed
        self.max_len = max_len
        self.epoch = 0
        proj = rng.normal(0, 1.0 / np.sqrt(5), size=(len(ADJ) + len(OBJECTS) + len(VERBS) + len(PREPS) + len(PLACES),
                                                     feature_dim))
        self.features, self.refs = [], []
        for _ in range(num_images):
            parts = [rng.integers(len(ADJ)), rng.integers(len(OBJECTS)), rng.integers(len(VERBS)),
                     rng.integers(len(PREPS)), rng.integers(len(PLACES))]
            scene = (ADJ[parts[0]], OBJECTS[parts[1]], VERBS[parts[2]], PREPS[parts[3]], PLACES[parts[4]])
            onehot = np.zeros(proj.shape[0])
            base = 0
            for p, group in zip(parts, (ADJ, OBJECTS, VERBS, PREPS, PLACES)):
                onehot[base + p] = 1.0
                base += len(group)
            self.features.append((onehot @ proj + rng.normal(0, 0.1, feature_dim)).astype(np.float32))
            self.refs.append([make_caption(rng, scene) for _ in range(refs_per_image)])
        words = sorted({w for refs in self.refs for r in refs for w in r})
        self.itos = SPECIALS + words
        self.stoi = {w: i for i, w in enumerate(self.itos)}

    def __len__(self):
        return len(self.features)

    def encode(self, words):
        ids = [1] + [self.stoi.get(w, 3) for w in words][: self.max_len - 2] + [2]
        return ids + [0] * (self.max_len - len(ids))

    def decode(self, ids):
        out = []
        for i in ids:
            if i == 2 or i == 0:
                break
            out.append(self.itos[i])
        return out

    def __getitem__(self, idx):
        rng = np.random.default_rng([self.seed, self.epoch, idx])
        ref = self.refs[idx][int(rng.integers(len(self.refs[idx])))]
        return {"feats": torch.from_numpy(self.features[idx]),
                "input_ids": torch.tensor(self.encode(ref), dtype=torch.long),
                "image_idx": idx}
