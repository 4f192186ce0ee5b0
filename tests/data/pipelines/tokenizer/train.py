"""A character-tokenizer pipeline: normalize() loops over every character and calls a small helper per character.

The helper takes about a third of the batch-build samples as self time, the loop that
calls it most of them inclusively: perfloop must name the loop's owner, not the helper.
"""
import argparse
import random
import unicodedata

import torch
from torch.utils.data import DataLoader, Dataset

ALPHABET = "abcdefghijklmnopqrstuvwxyz ABCDEFGHIJKLMNOPQRSTUVWXYZ.,;\t\n\x07"


def _is_control(ch):
    """Tell whether ``ch`` is a control character (tabs and newlines count as text)."""
    if ch in "\t\n\r":
        return False
    return unicodedata.category(ch).startswith("C")


def normalize(text):
    """Drop control characters, fold case and collapse runs of spaces, one character at a time."""
    out = []
    previous_space = False
    for ch in text:
        if _is_control(ch):
            continue
        if ch.isspace():
            if previous_space:
                continue
            previous_space = True
            out.append(" ")
        else:
            previous_space = False
            out.append(ch.lower())
    return "".join(out)


class Documents(Dataset):
    def __init__(self, num_docs, length, seed):
        rng = random.Random(seed)
        self.docs = ["".join(rng.choice(ALPHABET) for _ in range(length)) for _ in range(num_docs)]
        self.length = length

    def __len__(self):
        return len(self.docs)

    def __getitem__(self, index):
        text = normalize(self.docs[index])
        ids = torch.tensor(list(text.encode()[: self.length // 2]), dtype=torch.long)
        return torch.nn.functional.pad(ids, (0, self.length // 2 - len(ids)))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--docs", type=int, default=96)
    parser.add_argument("--length", type=int, default=6000)
    parser.add_argument("--batch-size", type=int, default=8)
    parser.add_argument("--num-workers", type=int, default=0)
    args = parser.parse_args()
    torch.manual_seed(0)
    torch.set_num_threads(1)
    loader = DataLoader(Documents(args.docs, args.length, seed=0), batch_size=args.batch_size,
                        shuffle=True, num_workers=args.num_workers)
    model = torch.nn.Sequential(torch.nn.Embedding(256, 16), torch.nn.Flatten(),
                                torch.nn.Linear(16 * args.length // 2, 2))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    for epoch in range(1000):
        for ids in loader:
            loss = model(ids).logsumexp(dim=1).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()


if __name__ == "__main__":
    main()
