"""Token classification (BIO NER) with word -> WordPiece label alignment in the collator.

    python train.py --config ner.ini
"""
import argparse
import configparser
import math

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset

from corpus import TAGS, make_corpus
from evalkit import Meter
from wordpiece import WordPieceTokenizer, train_vocab

IGNORE_INDEX = -100


class SentenceDataset(Dataset):
    def __init__(self, sentences):
        self.sentences = sentences

    def __len__(self):
        return len(self.sentences)

    def __getitem__(self, i):
        return self.sentences[i]


class DataCollatorForTokenClassification:
    """Tokenises pre-split words and aligns word-level BIO tags to the first sub-token of each word."""

    def __init__(self, tokenizer, max_length, label_all_tokens=False):
        self.tokenizer = tokenizer
        self.max_length = max_length
        self.label_all_tokens = label_all_tokens
        # B-X -> I-X for continuation pieces when every sub-token is labelled
        self.inside = {i: (TAGS.index("I-" + t[2:]) if t.startswith("B-") else i) for i, t in enumerate(TAGS)}

    def encode(self, words, tags):
        input_ids = [self.tokenizer.cls_token_id]
        labels = [IGNORE_INDEX]
        word_ids = [None]
        for w_idx, (word, tag) in enumerate(zip(words, tags)):
            pieces = self.tokenizer.tokenize(word)
            if not pieces:
                continue
            ids = self.tokenizer.convert_tokens_to_ids(pieces)
            input_ids.extend(ids)
            word_ids.extend([w_idx] * len(ids))
            labels.append(tag)
            follow = self.inside[tag] if self.label_all_tokens else IGNORE_INDEX
            labels.extend([follow] * (len(ids) - 1))
        input_ids = input_ids[: self.max_length - 1] + [self.tokenizer.sep_token_id]
        labels = labels[: self.max_length - 1] + [IGNORE_INDEX]
        return input_ids, labels

    def __call__(self, features):
        encoded = [self.encode(f["tokens"], f["ner_tags"]) for f in features]
        longest = max(len(ids) for ids, _ in encoded)
        pad = self.tokenizer.pad_token_id
        batch = {"input_ids": [], "attention_mask": [], "labels": []}
        for ids, labels in encoded:
            n_pad = longest - len(ids)
            batch["input_ids"].append(ids + [pad] * n_pad)
            batch["attention_mask"].append([1] * len(ids) + [0] * n_pad)
            batch["labels"].append(labels + [IGNORE_INDEX] * n_pad)
        return {k: torch.tensor(v, dtype=torch.long) for k, v in batch.items()}


class WindowTagger(nn.Module):
    """Collobert-style window tagger: each sub-token sees the embeddings of its +-k neighbours."""

    def __init__(self, vocab_size, n_labels, embedding_dim, hidden, window):
        super().__init__()
        self.window = window
        self.embed = nn.Embedding(vocab_size, embedding_dim, padding_idx=0)
        self.mlp = nn.Sequential(nn.Linear((2 * window + 1) * embedding_dim, hidden), nn.ReLU(),
                                 nn.Linear(hidden, n_labels))

    def forward(self, input_ids, attention_mask, labels=None):
        e = self.embed(input_ids) * attention_mask[..., None]
        padded = F.pad(e, (0, 0, self.window, self.window))
        ctx = torch.cat([padded[:, i:i + e.shape[1]] for i in range(2 * self.window + 1)], dim=-1)
        logits = self.mlp(ctx)
        loss = None
        if labels is not None:
            loss = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), labels.reshape(-1), ignore_index=IGNORE_INDEX)
        return loss, logits


class TrainerCallback:
    def on_step_end(self, trainer, batch, loss, logits):
        pass

    def on_train_end(self, trainer):
        pass


class TokenAccuracyCallback(TrainerCallback):
    """Logs the running loss and the accuracy on labelled (first) sub-tokens every `logging_steps`."""

    def __init__(self, logging_steps):
        self.logging_steps = logging_steps
        self.loss_sum = 0.0
        self.correct = 0
        self.total = 0
        self.records = []

    def on_step_end(self, trainer, batch, loss, logits):
        self.loss_sum += loss.item()
        mask = batch["labels"] != IGNORE_INDEX
        self.correct += (logits.argmax(-1)[mask] == batch["labels"][mask]).sum().item()
        self.total += mask.sum().item()
        if trainer.global_step % self.logging_steps == 0:
            rec = {"step": trainer.global_step, "loss": round(self.loss_sum / self.logging_steps, 5),
                   "token_acc": round(self.correct / max(self.total, 1), 4), "lr": trainer.scheduler.get_last_lr()[0]}
            self.records.append(rec)
            print(rec, flush=True)
            self.loss_sum, self.correct, self.total = 0.0, 0, 0


class MeterCallback(TrainerCallback):
    def __init__(self, meter):
        self.meter = meter

    def on_step_end(self, trainer, batch, loss, logits):
        self.meter.step(loss)
        if self.meter.done():
            trainer.should_stop = True


class Trainer:
    def __init__(self, model, train_dataset, data_collator, args, callbacks=(), meter=None):
        self.model = model
        self.args = args
        self.callbacks = list(callbacks)
        self.meter = meter
        self.loader = DataLoader(train_dataset, batch_size=args.getint("batch_size"), shuffle=True,
                                 num_workers=args.getint("num_workers"), collate_fn=data_collator,
                                 generator=torch.Generator().manual_seed(0))
        self.optimizer = torch.optim.AdamW(model.parameters(), lr=args.getfloat("learning_rate"))
        warmup, total = args.getint("warmup_steps"), args.getint("max_steps")

        def lr_lambda(step):
            if step < warmup:
                return (step + 1) / warmup
            return 0.5 * (1.0 + math.cos(math.pi * (step - warmup) / max(1, total - warmup)))

        self.scheduler = torch.optim.lr_scheduler.LambdaLR(self.optimizer, lr_lambda)
        self.global_step = 0
        self.should_stop = False

    def train(self):
        self.model.train()
        max_steps = self.args.getint("max_steps")
        while self.global_step < max_steps and not self.should_stop:
            for batch in self.loader:
                if self.meter is not None:
                    self.meter.batch(batch)
                loss, logits = self.model(**batch)
                loss.backward()
                torch.nn.utils.clip_grad_norm_(self.model.parameters(), 1.0)
                self.optimizer.step()
                self.scheduler.step()
                self.optimizer.zero_grad()
                self.global_step += 1
                for cb in self.callbacks:
                    cb.on_step_end(self, batch, loss.detach(), logits.detach())
                if self.global_step >= max_steps or self.should_stop:
                    break
        for cb in self.callbacks:
            cb.on_train_end(self)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default="ner.ini")
    cfg = configparser.ConfigParser()
    cfg.read(ap.parse_args().config)
    corpus_cfg, tok_cfg, train_cfg, model_cfg = cfg["corpus"], cfg["tokenizer"], cfg["training"], cfg["model"]

    seed = corpus_cfg.getint("seed")
    torch.manual_seed(seed)
    torch.set_num_threads(1)

    sentences, words = make_corpus(corpus_cfg.getint("n_sentences"), corpus_cfg.getint("min_words"),
                                   corpus_cfg.getint("max_words"), seed)
    vocab = train_vocab(words, size=cfg.getint("tokenizer", "vocab_size"), lowercase=tok_cfg.getboolean("lowercase"))
    tokenizer = WordPieceTokenizer(vocab, lowercase=tok_cfg.getboolean("lowercase"),
                                   strip_accents=tok_cfg.getboolean("strip_accents"),
                                   max_input_chars_per_word=tok_cfg.getint("max_input_chars_per_word"))
    collator = DataCollatorForTokenClassification(tokenizer, train_cfg.getint("max_length"),
                                                  tok_cfg.getboolean("label_all_tokens"))
    model = WindowTagger(len(vocab), len(TAGS), model_cfg.getint("embedding_dim"), model_cfg.getint("hidden"),
                         model_cfg.getint("window"))
    meter = Meter()
    acc_cb = TokenAccuracyCallback(train_cfg.getint("logging_steps"))
    trainer = Trainer(model, SentenceDataset(sentences), collator, train_cfg,
                      callbacks=[MeterCallback(meter), acc_cb], meter=meter)
    trainer.train()
    meter.report(extra={"log": acc_cb.records, "vocab_size": len(vocab)})


if __name__ == "__main__":
    main()
