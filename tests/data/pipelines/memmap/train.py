"""A hand-written training loop with no DataLoader: random windows of a memory-mapped token file.

Shaped like the character-level language-model scripts the field uses: ``get_batch`` draws
windows with its own generator, two micro-batches are accumulated per optimizer step.
"""
import argparse
import os

import numpy as np
import torch

BLOCK = 32
VOCAB = 64


def tokens_file(folder):
    """Write the token file once (a fixed pseudo-random stream) and return its path."""
    path = os.path.join(folder, "tokens.bin")
    if not os.path.exists(path):
        rng = np.random.default_rng(0)
        rng.integers(0, VOCAB, size=200_000, dtype=np.uint16).tofile(path + ".tmp")
        os.replace(path + ".tmp", path)
    return path


def get_batch(data, batch_size, generator):
    starts = torch.randint(len(data) - BLOCK - 1, (batch_size,), generator=generator)
    x = torch.stack([torch.from_numpy(data[i:i + BLOCK].astype(np.int64)) for i in starts.tolist()])
    y = torch.stack([torch.from_numpy(data[i + 1:i + 1 + BLOCK].astype(np.int64)) for i in starts.tolist()])
    return x, y


class CharModel(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = torch.nn.Embedding(VOCAB, 32)
        self.head = torch.nn.Linear(32, VOCAB)

    def forward(self, x):
        return self.head(torch.tanh(self.embed(x)))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--data-dir", required=True, help="folder for the token file (written on first use)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--batch-size", type=int, default=8)
    parser.add_argument("--accumulate", type=int, default=2)
    args = parser.parse_args()
    torch.manual_seed(0)
    torch.set_num_threads(1)
    data = np.memmap(tokens_file(args.data_dir), dtype=np.uint16, mode="r")
    generator = torch.Generator().manual_seed(args.seed)
    model = CharModel()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    loss_fn = torch.nn.CrossEntropyLoss()  # a second outermost module: its inputs are not the batch
    for iteration in range(100_000):
        for micro_step in range(args.accumulate):
            x, y = get_batch(data, args.batch_size, generator)
            logits = model(x)
            loss = loss_fn(logits.view(-1, VOCAB), y.view(-1)) / args.accumulate
            loss.backward()
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)


if __name__ == "__main__":
    main()
