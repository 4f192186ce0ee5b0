"""Masked-language-model pre-training of a tiny conv encoder (HF-Trainer-like step loop)."""
import argparse

import torch
import yaml
from torch.utils.data import DataLoader, Dataset

from evalkit import Meter
from mlm.collator import DataCollatorForMLM
from mlm.corpus import make_corpus
from mlm.model import NeighbourMLM
from mlm.tokenizer import WordTokenizer


class TokenizedCorpus(Dataset):
    """Sentences tokenised once, like `datasets.map(tokenize)`; items are dicts of id lists."""

    def __init__(self, sentences, tokenizer):
        self.examples = [{"input_ids": tokenizer.encode(s)} for s in sentences]

    def __len__(self):
        return len(self.examples)

    def __getitem__(self, i):
        return self.examples[i]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default="config.yaml")
    with open(ap.parse_args().config) as fh:
        cfg = yaml.safe_load(fh)
    seed = cfg["seed"]
    torch.manual_seed(seed)
    torch.set_num_threads(1)

    cc = cfg["corpus"]
    words, sentences = make_corpus(cc["num_sentences"], cc["vocab_words"], cc["min_len"], cc["max_len"], seed)
    tokenizer = WordTokenizer(words)
    train_dataset = TokenizedCorpus(sentences, tokenizer)
    collator = DataCollatorForMLM(tokenizer, cfg["collator"]["mlm_probability"],
                                  cfg["collator"]["pad_to_multiple_of"], seed=seed + 1)
    tc = cfg["training"]
    g = torch.Generator()
    g.manual_seed(seed)
    loader = DataLoader(train_dataset, batch_size=tc["per_device_train_batch_size"], shuffle=True,
                        drop_last=True, collate_fn=collator, num_workers=tc["dataloader_num_workers"],
                        generator=g)
    model = NeighbourMLM(len(tokenizer), cfg["model"]["dim"], pad_id=tokenizer.pad_token_id)
    optimizer = torch.optim.AdamW(model.parameters(), lr=tc["learning_rate"], weight_decay=0.01)
    scheduler = torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda s: min(1.0, (s + 1) / 10) * max(0.0, 1 - s / tc["max_steps"]))
    meter = Meter()

    log_history = []
    global_step = 0
    epoch = 0
    data_iter = iter(loader)
    while global_step < tc["max_steps"]:
        try:
            inputs = next(data_iter)
        except StopIteration:
            epoch += 1
            data_iter = iter(loader)
            continue
        meter.batch(inputs)
        loss, logits, targets = model(**inputs)
        loss.backward()
        optimizer.step()
        scheduler.step()
        optimizer.zero_grad()
        meter.step(loss)
        global_step += 1
        if global_step % tc["logging_steps"] == 0:
            acc = (logits.argmax(-1) == targets).float().mean().item()
            entry = {"step": global_step, "epoch": epoch, "loss": round(loss.item(), 5),
                     "masked_acc": round(acc, 5), "lr": scheduler.get_last_lr()[0]}
            log_history.append(entry)
            print(entry)
        if meter.done():
            break
    meter.report(extra={"log_history": log_history})


if __name__ == "__main__":
    main()
