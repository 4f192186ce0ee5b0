"""Classify BibTeX entries by venue type from their fields (the @type header is not shown to the model)."""
import argparse
import configparser

import torch
from torch import nn
from torch.utils.data import DataLoader

from bibclf.corpus import ENTRY_TYPES, make_corpus
from bibclf.data import BibDataset, entry_text
from bibclf.model import BagOfPieces
from bibclf.tokenizer import BPE
from evalkit import Meter


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("config")
    args = ap.parse_args()
    cfg = configparser.ConfigParser()
    cfg.read(args.config)
    seed = cfg.getint("experiment", "seed")
    torch.manual_seed(seed)
    torch.set_num_threads(cfg.getint("experiment", "threads"))

    corpus = make_corpus(cfg.getint("corpus", "num_entries"), seed)
    tokenizer = BPE.train([entry_text(raw) for raw, _ in corpus[:800]],
                          cfg.getint("corpus", "num_merges"), cfg.getint("corpus", "max_train_words"))
    ds = BibDataset(corpus, tokenizer, cfg.getint("corpus", "max_tokens"))
    loader = DataLoader(ds, batch_size=cfg.getint("training", "batch_size"), shuffle=True,
                        num_workers=0, generator=torch.Generator().manual_seed(seed))

    model = BagOfPieces(len(tokenizer.vocab), cfg.getint("model", "embed_dim"), cfg.getint("model", "hidden_dim"),
                        len(ENTRY_TYPES))
    opt = torch.optim.Adam(model.parameters(), lr=cfg.getfloat("training", "learning_rate"))
    crit = nn.CrossEntropyLoss()
    meter = Meter()
    every = cfg.getint("training", "print_every")

    step = 0
    for epoch in range(cfg.getint("training", "epochs")):
        for batch in loader:
            meter.batch(batch)
            logits = model(batch["input_ids"], batch["length"])
            loss = crit(logits, batch["label"])
            opt.zero_grad()
            loss.backward()
            opt.step()
            meter.step(loss)
            step += 1
            if step % every == 0:
                acc = (logits.argmax(1) == batch["label"]).float().mean().item()
                print(f"[{epoch}:{step}] loss={loss.item():.4f} acc={acc:.3f}")
            if meter.done():
                break
        if meter.done():
            break
    meter.report({"vocab_size": len(tokenizer.vocab)})


if __name__ == "__main__":
    main()
