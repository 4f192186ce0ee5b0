"""Intent classification on support e-mails.

    python train.py support.json
"""
import json
import random
import sys

import numpy as np
import torch
import torch.nn as nn

import evalkit
from supportnlp import (DataCollatorWithPadding, SupportEmailDataset, UnigramTokenizer, clean_email,
                        generate_mailbox)


class MeanPoolClassifier(nn.Module):
    def __init__(self, vocab_size, dim, num_labels):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, dim, padding_idx=0)
        self.proj = nn.Linear(dim, dim)
        self.out = nn.Linear(dim, num_labels)

    def forward(self, input_ids, attention_mask):
        h = self.embed(input_ids)
        m = attention_mask.unsqueeze(-1).float()
        pooled = (h * m).sum(1) / m.sum(1).clamp(min=1.0)
        return self.out(torch.tanh(self.proj(pooled)))


def main(path):
    with open(path) as fh:
        cfg = json.load(fh)
    torch.set_num_threads(1)
    seed = cfg["seed"]
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)

    d = cfg["data"]
    mails = generate_mailbox(d["num_emails"], seed)
    tok = UnigramTokenizer(d["vocab_size"], d["max_piece_len"]).fit(clean_email(m["raw"]) for m in mails[:400])
    ds = SupportEmailDataset(mails, tok, d["max_length"], d["mask_prob"], torch.Generator().manual_seed(seed + 1))
    lc = cfg["loader"]
    loader = torch.utils.data.DataLoader(ds, batch_size=lc["batch_size"], shuffle=lc["shuffle"],
                                         num_workers=lc["num_workers"], collate_fn=DataCollatorWithPadding(0),
                                         generator=torch.Generator().manual_seed(seed + 2))
    model = MeanPoolClassifier(len(tok), cfg["model"]["embed_dim"], cfg["model"]["num_labels"])
    oc = cfg["optim"]
    opt = torch.optim.Adam(model.parameters(), lr=oc["lr"])
    loss_fn = nn.CrossEntropyLoss()
    meter = evalkit.Meter()

    step, epoch, tokens = 0, 0, 0
    it = iter(loader)
    while step < oc["max_steps"] and not meter.done():
        try:
            batch = next(it)
        except StopIteration:
            epoch += 1
            it = iter(loader)
            continue
        meter.batch(batch)
        logits = model(batch["input_ids"], batch["attention_mask"])
        loss = loss_fn(logits, batch["labels"])
        opt.zero_grad()
        loss.backward()
        opt.step()
        meter.step(loss)
        tokens += int(batch["attention_mask"].sum())
        step += 1
        if step % oc["log_every"] == 0:
            print(f"step {step} epoch {epoch} loss {loss.item():.4f}")
    meter.report({"tokens": tokens, "vocab": len(tok), "epochs": epoch})


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "support.json")
