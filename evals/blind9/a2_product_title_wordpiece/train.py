"""Product-title categorisation with a small Transformer encoder over WordPiece tokens."""
import argparse
import json
import math
import random

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset

from evalkit import Meter
from titles import CATEGORY_NAMES, make_descriptions, make_products
from wordpiece import FullTokenizer, build_vocab


class TitleDataset(Dataset):
    """Augments the raw title and description (word dropout, adjacent swap) and tokenizes
    them as a pair on every access: [CLS] title [SEP] description [SEP], description truncated."""

    def __init__(self, titles, descriptions, labels, tokenizer, max_length, max_title_tokens,
                 word_dropout, swap_prob, seed):
        self.titles = titles
        self.descriptions = descriptions
        self.labels = labels
        self.max_title_tokens = max_title_tokens
        self.tokenizer = tokenizer
        self.max_length = max_length
        self.word_dropout = word_dropout
        self.swap_prob = swap_prob
        self.rng = random.Random(seed)
        self.cls_id = tokenizer.vocab["[CLS]"]
        self.sep_id = tokenizer.vocab["[SEP]"]

    def __len__(self):
        return len(self.titles)

    def augment(self, title):
        words = title.split()
        kept = [w for i, w in enumerate(words) if i == 0 or self.rng.random() >= self.word_dropout]
        if len(kept) > 2 and self.rng.random() < self.swap_prob:
            j = self.rng.randrange(1, len(kept) - 1)
            kept[j], kept[j + 1] = kept[j + 1], kept[j]
        return " ".join(kept)

    def __getitem__(self, idx):
        title = self.augment(self.titles[idx])
        description = self.augment(self.descriptions[idx])
        title_tokens = self.tokenizer.tokenize(title)[: self.max_title_tokens]
        desc_tokens = self.tokenizer.tokenize(description)
        room = self.max_length - 3 - len(title_tokens)
        ids = ([self.cls_id] + self.tokenizer.convert_tokens_to_ids(title_tokens) + [self.sep_id]
               + self.tokenizer.convert_tokens_to_ids(desc_tokens[:room]) + [self.sep_id])
        return {"input_ids": ids, "label": self.labels[idx]}


class DataCollatorWithPadding:
    def __init__(self, pad_id):
        self.pad_id = pad_id

    def __call__(self, features):
        longest = max(len(f["input_ids"]) for f in features)
        input_ids = torch.full((len(features), longest), self.pad_id, dtype=torch.long)
        attention_mask = torch.zeros((len(features), longest), dtype=torch.long)
        for i, f in enumerate(features):
            n = len(f["input_ids"])
            input_ids[i, :n] = torch.tensor(f["input_ids"], dtype=torch.long)
            attention_mask[i, :n] = 1
        labels = torch.tensor([f["label"] for f in features], dtype=torch.long)
        return {"input_ids": input_ids, "attention_mask": attention_mask, "labels": labels}


class TitleClassifier(nn.Module):
    """Kim-style CNN: token embeddings, one convolution, masked max-over-time pooling."""

    def __init__(self, vocab_size, num_labels, embed_dim, channels, kernel_size, dropout):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, embed_dim, padding_idx=0)
        self.conv = nn.Conv1d(embed_dim, channels, kernel_size, padding=kernel_size // 2)
        self.dropout = nn.Dropout(dropout)
        self.classifier = nn.Linear(channels, num_labels)

    def forward(self, input_ids, attention_mask):
        h = self.embed(input_ids).transpose(1, 2)
        h = F.relu(self.conv(h))
        h = h.masked_fill(attention_mask.unsqueeze(1) == 0, -1e4)
        return self.classifier(self.dropout(h.amax(-1)))


def linear_warmup_decay(step, warmup, total):
    if step < warmup:
        return (step + 1) / warmup
    return max(0.0, (total - step) / max(1, total - warmup))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default="config.json")
    args = ap.parse_args()
    with open(args.config) as fh:
        cfg = json.load(fh)
    seed = cfg["seed"]
    random.seed(seed)
    torch.manual_seed(seed)
    torch.set_num_threads(1)

    dc, tc, mc = cfg["data"], cfg["training"], cfg["model"]
    titles, labels = make_products(dc["num_products"], seed)
    descriptions = make_descriptions(titles, labels, seed + 2)
    # the vocab is learnt on a fixed sample of the corpus, as a pre-trained vocab would be
    corpus = titles[: dc["vocab_corpus_size"]] + descriptions[: dc["vocab_corpus_size"]]
    vocab = build_vocab(corpus, dc["vocab_size"], dc["do_lower_case"], dc["strip_accents"])
    tokenizer = FullTokenizer(vocab, dc["do_lower_case"], dc["strip_accents"])
    train_set = TitleDataset(titles, descriptions, labels, tokenizer, dc["max_length"],
                             dc["max_title_tokens"], dc["word_dropout"], dc["swap_prob"], seed + 1)
    g = torch.Generator()
    g.manual_seed(seed)
    loader = DataLoader(train_set, batch_size=tc["per_device_train_batch_size"], shuffle=True,
                        collate_fn=DataCollatorWithPadding(vocab["[PAD]"]),
                        num_workers=tc["dataloader_num_workers"], generator=g, drop_last=True)

    model = TitleClassifier(len(vocab), len(CATEGORY_NAMES), mc["embed_dim"], mc["channels"],
                            mc["kernel_size"], mc["dropout"])
    optimizer = torch.optim.AdamW(model.parameters(), lr=tc["learning_rate"], weight_decay=tc["weight_decay"])
    scheduler = torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda s: linear_warmup_decay(s, tc["warmup_steps"], tc["max_steps"]))

    meter = Meter()
    log_history = []
    unk_id = vocab["[UNK]"]
    global_step = 0
    epoch = 0
    tokens_seen = unk_seen = 0
    model.train()
    while global_step < tc["max_steps"]:
        for batch in loader:
            meter.batch(batch)
            logits = model(batch["input_ids"], batch["attention_mask"])
            loss = F.cross_entropy(logits, batch["labels"])
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            scheduler.step()
            optimizer.zero_grad()
            global_step += 1
            meter.step(loss)

            tokens_seen += int(batch["attention_mask"].sum())
            unk_seen += int((batch["input_ids"] == unk_id).sum())
            if global_step % tc["logging_steps"] == 0:
                acc = (logits.argmax(-1) == batch["labels"]).float().mean().item()
                entry = {"step": global_step, "epoch": epoch, "loss": round(loss.item(), 5),
                         "acc": round(acc, 5), "lr": scheduler.get_last_lr()[0]}
                log_history.append(entry)
                print(entry, flush=True)
            if global_step >= tc["max_steps"] or meter.done():
                break
        if meter.done():
            break
        epoch += 1

    meter.report(extra={"log_history": log_history, "tokens_seen": tokens_seen, "unk_seen": unk_seen,
                        "vocab_size": len(vocab), "loss_ppl": math.exp(min(20.0, meter.losses[-1]))})


if __name__ == "__main__":
    main()
