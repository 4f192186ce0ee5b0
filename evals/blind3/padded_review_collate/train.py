import argparse
import tomllib

import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader

import evalkit
from reviews.collate import PadCollator
from reviews.corpus import build_vocab, generate_reviews, tokenize
from reviews.model import MeanPoolClassifier


class ReviewDataset(torch.utils.data.Dataset):
    def __init__(self, texts, labels, stoi):
        self.examples = [{"input_ids": tokenize(t, stoi), "label": y} for t, y in zip(texts, labels)]

    def __len__(self):
        return len(self.examples)

    def __getitem__(self, i):
        return self.examples[i]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", required=True)
    with open(ap.parse_args().config, "rb") as fh:
        cfg = tomllib.load(fh)
    torch.set_num_threads(1)
    seed = cfg["experiment"]["seed"]
    torch.manual_seed(seed)

    d = cfg["data"]
    itos, stoi = build_vocab(d["vocab_size"])
    texts, labels = generate_reviews(d["num_reviews"], itos, d["min_len"], d["max_len"], seed)
    ds = ReviewDataset(texts, labels, stoi)
    t = cfg["trainer"]
    loader = DataLoader(ds, batch_size=t["batch_size"], shuffle=True, collate_fn=PadCollator(pad_id=0),
                        generator=torch.Generator().manual_seed(seed), drop_last=True)

    m = cfg["model"]
    model = MeanPoolClassifier(len(itos), m["embed_dim"], m["hidden_dim"])
    optim = torch.optim.Adam(model.parameters(), lr=cfg["optimizer"]["lr"])
    meter = evalkit.Meter()
    logged = []
    global_step = 0
    for epoch in range(t["epochs"]):
        for batch in loader:
            meter.batch(batch)
            logits = model(batch["input_ids"], batch["attention_mask"])
            loss = F.cross_entropy(logits, batch["labels"])
            optim.zero_grad()
            loss.backward()
            optim.step()
            meter.step(loss)
            global_step += 1
            if global_step % t["log_every_n_steps"] == 0:
                acc = (logits.argmax(-1) == batch["labels"]).float().mean().item()
                logged.append({"step": global_step, "loss": round(loss.item(), 6), "acc": round(acc, 6),
                               "tokens": int(batch["lengths"].sum())})
                print(logged[-1], flush=True)
            if meter.done():
                break
        if meter.done():
            break
    meter.report(extra={"log": logged})


if __name__ == "__main__":
    main()
