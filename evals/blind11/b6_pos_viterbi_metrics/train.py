"""Part-of-speech (Penn Treebank XPOS) tagger: conv emissions + learned transitions, Viterbi decoding for the metrics.

    python train.py @tagger.args
"""
import argparse
import math
import random
from collections import Counter

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset

import evalkit
from conllu import XPOS, read_conllu, synth_treebank

PAD, UNK = 0, 1


class TreebankDataset(Dataset):
    def __init__(self, sentences, vocab):
        self.examples = []
        for forms, tags in sentences:
            ids = [vocab.get(f.lower(), UNK) for f in forms]
            self.examples.append({"input_ids": ids, "labels": [XPOS.index(t) for t in tags]})

    def __len__(self):
        return len(self.examples)

    def __getitem__(self, idx):
        return self.examples[idx]


class DataCollatorForTokenClassification:
    """Pad input_ids with PAD and labels with -100 (HF-style)."""

    def __init__(self, pad_token_id=PAD, label_pad_token_id=-100):
        self.pad_token_id = pad_token_id
        self.label_pad_token_id = label_pad_token_id

    def __call__(self, features):
        longest = max(len(f["input_ids"]) for f in features)
        input_ids, labels, mask = [], [], []
        for f in features:
            n = len(f["input_ids"])
            input_ids.append(f["input_ids"] + [self.pad_token_id] * (longest - n))
            labels.append(f["labels"] + [self.label_pad_token_id] * (longest - n))
            mask.append([1] * n + [0] * (longest - n))
        return {"input_ids": torch.tensor(input_ids), "labels": torch.tensor(labels),
                "attention_mask": torch.tensor(mask)}


def viterbi_decode(emissions, mask, start, transitions):
    """Best tag path per sentence. emissions: (B, L, T) log-scores; returns a list of tag lists."""
    trans = transitions.tolist()
    start_scores = start.tolist()
    num_tags = len(start_scores)
    paths = []
    for em, m in zip(emissions.tolist(), mask.tolist()):
        length = sum(m)
        score = [start_scores[j] + em[0][j] for j in range(num_tags)]
        backpointers = []
        for t in range(1, length):
            new_score, pointers = [], []
            for cur in range(num_tags):
                best_prev, best = 0, -math.inf
                for prev in range(num_tags):
                    s = score[prev] + trans[prev][cur]
                    if s > best:
                        best_prev, best = prev, s
                new_score.append(best + em[t][cur])
                pointers.append(best_prev)
            score = new_score
            backpointers.append(pointers)
        last = max(range(num_tags), key=score.__getitem__)
        path = [last]
        for pointers in reversed(backpointers):
            path.append(pointers[path[-1]])
        paths.append(path[::-1])
    return paths


class TaggerModule(nn.Module):
    """Lightning-style module: training_step returns the loss and logs decoded-tag metrics."""

    def __init__(self, vocab_size, num_tags, embed_dim, hidden, lr):
        super().__init__()
        self.lr = lr
        self.embed = nn.Embedding(vocab_size, embed_dim, padding_idx=PAD)
        self.conv = nn.Conv1d(embed_dim, hidden, kernel_size=3, padding=1)
        self.emit = nn.Linear(hidden, num_tags)
        self.start = nn.Parameter(torch.zeros(num_tags))
        self.transitions = nn.Parameter(torch.zeros(num_tags, num_tags))
        self.logged = {}

    def forward(self, input_ids):
        h = F.relu(self.conv(self.embed(input_ids).transpose(1, 2))).transpose(1, 2)
        return F.log_softmax(self.emit(h), dim=-1)

    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters(), lr=self.lr)

    def transition_nll(self, labels):
        """Negative log-likelihood of the gold tag bigrams under softmax-normalised transitions."""
        logp = F.log_softmax(self.transitions, dim=1)
        prev, nxt = labels[:, :-1], labels[:, 1:]
        ok = (prev >= 0) & (nxt >= 0)
        first = labels[:, 0]
        return -(logp[prev[ok], nxt[ok]].mean() + F.log_softmax(self.start, 0)[first].mean())

    def training_step(self, batch):
        emissions = self(batch["input_ids"])
        labels = batch["labels"]
        loss = F.nll_loss(emissions.reshape(-1, emissions.size(-1)), labels.reshape(-1), ignore_index=-100)
        loss = loss + self.transition_nll(labels)
        with torch.no_grad():
            paths = viterbi_decode(emissions, batch["attention_mask"],
                                   F.log_softmax(self.start, 0), F.log_softmax(self.transitions, dim=1))
        self.log_tag_metrics(paths, labels)
        return loss

    def log_tag_metrics(self, paths, labels):
        tp, pred_n, gold_n = Counter(), Counter(), Counter()
        for path, gold in zip(paths, labels.tolist()):
            gold = [g for g in gold if g != -100]
            for p, g in zip(path, gold):
                pred_n[p] += 1
                gold_n[g] += 1
                if p == g:
                    tp[p] += 1
        for j, tag in enumerate(XPOS):
            self.logged[f"precision/{tag}"] = tp[j] / pred_n[j] if pred_n[j] else 0.0
            self.logged[f"recall/{tag}"] = tp[j] / gold_n[j] if gold_n[j] else 0.0
        self.logged["token_acc"] = sum(tp.values()) / max(sum(gold_n.values()), 1)


class MeterCallback:
    def __init__(self, meter):
        self.meter = meter

    def on_train_batch_start(self, module, batch):
        self.meter.batch(batch)

    def on_train_batch_end(self, module, loss):
        self.meter.step(loss)


class HistoryLogger:
    """Keeps every step's logged metrics (like a CSV logger, in memory) and prints a summary."""

    def __init__(self, every):
        self.every = every
        self.history = []

    def on_train_batch_start(self, module, batch):
        pass

    def on_train_batch_end(self, module, loss):
        self.history.append(dict(module.logged, loss=loss.item()))
        if len(self.history) % self.every == 0:
            m = module.logged
            macro_p = sum(v for k, v in m.items() if k.startswith("precision/")) / len(XPOS)
            macro_r = sum(v for k, v in m.items() if k.startswith("recall/")) / len(XPOS)
            print(f"step {len(self.history)} loss {loss.item():.4f} viterbi acc {m['token_acc']:.3f} "
                  f"macro P {macro_p:.3f} R {macro_r:.3f}")


def fit(module, loader, max_epochs, callbacks, meter):
    optimizer = module.configure_optimizers()
    module.train()
    for _ in range(max_epochs):
        for batch in loader:
            for cb in callbacks:
                cb.on_train_batch_start(module, batch)
            loss = module.training_step(batch)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            for cb in callbacks:
                cb.on_train_batch_end(module, loss)
            if meter.done():
                return


def main():
    parser = argparse.ArgumentParser(fromfile_prefix_chars="@", description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--num-sentences", type=int, default=2000)
    parser.add_argument("--min-len", type=int, default=8)
    parser.add_argument("--max-len", type=int, default=40)
    parser.add_argument("--min-count", type=int, default=2)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--num-workers", type=int, default=0)
    parser.add_argument("--embed-dim", type=int, default=48)
    parser.add_argument("--hidden", type=int, default=64)
    parser.add_argument("--lr", type=float, default=1e-3)
    parser.add_argument("--max-epochs", type=int, default=3)
    parser.add_argument("--log-every", type=int, default=20)
    args = parser.parse_args()

    random.seed(args.seed)
    np.random.seed(args.seed)
    torch.manual_seed(args.seed)
    torch.set_num_threads(1)

    sentences = list(read_conllu(synth_treebank(args.seed, args.num_sentences, args.min_len, args.max_len)))
    counts = Counter(f.lower() for forms, _ in sentences for f in forms)
    vocab = {w: i + 2 for i, w in enumerate(sorted(w for w, c in counts.items() if c >= args.min_count))}
    dataset = TreebankDataset(sentences, vocab)
    loader = DataLoader(dataset, batch_size=args.batch_size, shuffle=True, num_workers=args.num_workers,
                        collate_fn=DataCollatorForTokenClassification(),
                        generator=torch.Generator().manual_seed(args.seed + 1))

    module = TaggerModule(len(vocab) + 2, len(XPOS), args.embed_dim, args.hidden, args.lr)
    meter = evalkit.Meter()
    logger = HistoryLogger(args.log_every)
    fit(module, loader, args.max_epochs, [MeterCallback(meter), logger], meter)
    last = logger.history[-1]
    meter.report({"token_acc": last["token_acc"],
                  "recall_NN": last["recall/NN"], "precision_VBD": last["precision/VBD"],
                  "mean_token_acc": sum(h["token_acc"] for h in logger.history) / len(logger.history)})


if __name__ == "__main__":
    main()
