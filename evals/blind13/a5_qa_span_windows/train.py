"""Extractive QA on long contexts with overlapping windows.

    python train.py --settings settings.py
"""
import argparse
import random
import runpy

import numpy as np
import torch
from torch.utils.data import DataLoader

import evalkit
from squadlite import (DataCollatorForSpanQA, QADataset, SpanExtractor, WordPieceTokenizer, build_vocab,
                       make_articles)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--settings", default="settings.py")
    args = ap.parse_args()
    S = runpy.run_path(args.settings)
    random.seed(S["SEED"])
    np.random.seed(S["SEED"])
    torch.manual_seed(S["SEED"])
    torch.set_num_threads(1)

    records = make_articles(S["NUM_ARTICLES"], S["MIN_SENTENCES"], S["MAX_SENTENCES"], S["SEED"])
    vocab = build_vocab(records, 4000)
    tokenizer = WordPieceTokenizer(vocab)
    collator = DataCollatorForSpanQA(tokenizer, S["MAX_LENGTH"], S["MAX_QUERY_LENGTH"], S["DOC_STRIDE"],
                                     S["P_ANSWER_WINDOW"], S["SEED"])
    loader = DataLoader(QADataset(records), batch_size=S["BATCH_SIZE"], shuffle=True, collate_fn=collator,
                        num_workers=S["NUM_WORKERS"], generator=torch.Generator().manual_seed(S["SEED"]))
    model = SpanExtractor(len(vocab))
    opt = torch.optim.AdamW(model.parameters(), lr=S["LR"])
    meter = evalkit.Meter()
    global_step, exact = 0, []
    for epoch in range(S["EPOCHS"]):
        for step, batch in enumerate(loader):
            meter.batch(batch)
            start_logits, end_logits = model(batch["input_ids"], batch["token_type_ids"], batch["attention_mask"])
            loss = model.loss(start_logits, end_logits, batch["start_positions"], batch["end_positions"])
            opt.zero_grad()
            loss.backward()
            opt.step()
            meter.step(loss)
            global_step += 1
            hit = (start_logits.argmax(1) == batch["start_positions"]) & (end_logits.argmax(1) == batch["end_positions"])
            exact.append(hit.float().mean().item())
            if global_step % S["LOG_EVERY"] == 0:
                print(f"epoch {epoch} step {step} loss {loss.item():.4f} em {sum(exact[-20:]) / len(exact[-20:]):.3f}")
            if meter.done():
                break
        if meter.done():
            break
    meter.report(extra={"steps": global_step, "exact_match_last20": sum(exact[-20:]) / max(len(exact[-20:]), 1)})


if __name__ == "__main__":
    main()
