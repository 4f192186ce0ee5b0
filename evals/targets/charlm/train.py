"""Train a tiny character-level transformer on memory-mapped token batches (no DataLoader).

Usage: python train.py [config/train_char.py] [--key=value ...]
Each config file is exec'd over the defaults below, then --key=value overrides them.
"""
import json
import math
import os
import sys
from ast import literal_eval

import numpy as np
import torch
from torch import nn
from torch.nn import functional as F

import evalkit

# defaults, overridden by the config file and the command line -----------------------
out_dir = 'out-charlm'
seed = 1337
dataset = 'data'
batch_size = 32
block_size = 64
n_layer = 2
n_head = 4
n_embd = 64
dropout = 0.0
learning_rate = 1e-3
max_iters = 2000
weight_decay = 0.1
grad_clip = 1.0
device = 'cpu'
compile = False

for arg in sys.argv[1:]:
    if not arg.startswith('--'):
        with open(arg) as f:
            exec(f.read())
    else:
        key, value = arg[2:].split('=', 1)
        assert key in globals(), f"unknown config key {key}"
        try:
            globals()[key] = literal_eval(value)
        except (SyntaxError, ValueError):
            globals()[key] = value


# data -------------------------------------------------------------------------------
def prepare(data_dir):
    """Encode input.txt as uint16 character ids: train.bin (90%), val.bin, meta.json."""
    with open(os.path.join(data_dir, 'input.txt')) as f:
        text = f.read()
    chars = sorted(set(text))
    stoi = {ch: i for i, ch in enumerate(chars)}
    ids = np.array([stoi[c] for c in text], dtype=np.uint16)
    n = int(0.9 * len(ids))
    for name, part in (('train.bin', ids[:n]), ('val.bin', ids[n:])):
        tmp = os.path.join(data_dir, f'.{name}.{os.getpid()}')
        part.tofile(tmp)
        os.replace(tmp, os.path.join(data_dir, name))  # atomic: concurrent runs never see half a file
    with open(os.path.join(data_dir, 'meta.json'), 'w') as f:
        json.dump({'vocab_size': len(chars), 'chars': chars}, f)


if not os.path.exists(os.path.join(dataset, 'meta.json')):
    prepare(dataset)
with open(os.path.join(dataset, 'meta.json')) as f:
    vocab_size = json.load(f)['vocab_size']


def get_batch(split):
    # A fresh memmap per batch, as nanoGPT does, so the OS page cache does the caching.
    data = np.memmap(os.path.join(dataset, f'{split}.bin'), dtype=np.uint16, mode='r')
    ix = torch.randint(len(data) - block_size - 1, (batch_size,))
    x = torch.empty((batch_size, block_size), dtype=torch.long)
    y = torch.empty((batch_size, block_size), dtype=torch.long)
    for b, i in enumerate(ix.tolist()):
        for j in range(block_size):
            x[b, j] = int(data[i + j])
            y[b, j] = int(data[i + j + 1])
    return x, y


# model ------------------------------------------------------------------------------
class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.ln1 = nn.LayerNorm(n_embd)
        self.attn = nn.MultiheadAttention(n_embd, n_head, dropout=dropout, batch_first=True)
        self.ln2 = nn.LayerNorm(n_embd)
        self.mlp = nn.Sequential(nn.Linear(n_embd, 4 * n_embd), nn.GELU(), nn.Linear(4 * n_embd, n_embd))
        self.register_buffer('mask', torch.triu(torch.ones(block_size, block_size, dtype=torch.bool), 1))

    def forward(self, x):
        t = x.size(1)
        h = self.ln1(x)
        x = x + self.attn(h, h, h, attn_mask=self.mask[:t, :t], need_weights=False)[0]
        return x + self.mlp(self.ln2(x))


class CharLM(nn.Module):
    def __init__(self):
        super().__init__()
        self.tok = nn.Embedding(vocab_size, n_embd)
        self.pos = nn.Embedding(block_size, n_embd)
        self.blocks = nn.Sequential(*[Block() for _ in range(n_layer)])
        self.ln_f = nn.LayerNorm(n_embd)
        self.head = nn.Linear(n_embd, vocab_size, bias=False)

    def forward(self, idx, targets):
        pos = torch.arange(idx.size(1))
        x = self.blocks(self.tok(idx) + self.pos(pos))
        logits = self.head(self.ln_f(x))
        return F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1))


# training ---------------------------------------------------------------------------
torch.manual_seed(seed)
# One intra-op thread: on a shared 2-core box a second OpenMP thread stalls whenever a
# neighbour holds the other core.
torch.set_num_threads(1)
model = CharLM().to(device)
if compile:
    model = torch.compile(model)
optimizer = torch.optim.AdamW(model.parameters(), lr=learning_rate, weight_decay=weight_decay)

meter = evalkit.Meter()
for it in range(max_iters):
    x, y = get_batch('train')
    meter.batch((x, y))
    loss = model(x, y)
    optimizer.zero_grad(set_to_none=True)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), grad_clip)
    optimizer.step()
    meter.step(loss)
    if it % 200 == 0:
        print(f"iter {it}: loss {loss.item():.4f} (bits/char {loss.item() / math.log(2):.3f})")
    if meter.done():
        break
meter.report()
