"""Hierarchical multi-label document classification (labels expanded to all ancestors).

    python train.py @args.txt
"""
import argparse

import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader

from evalkit import Meter
from hierdoc import HierarchicalMultiLabelCollator, LengthGroupedSampler, SyntheticDocuments, Taxonomy
from hierdoc.model import HierarchicalBagClassifier


def get_parser():
    p = argparse.ArgumentParser(fromfile_prefix_chars="@")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--num-docs", type=int, default=1024)
    p.add_argument("--vocab-size", type=int, default=5000)
    p.add_argument("--taxonomy-branching", type=lambda s: [int(x) for x in s.split(",")], default=[8, 5, 4, 3])
    p.add_argument("--max-labels-per-doc", type=int, default=3)
    p.add_argument("--max-sentences", type=int, default=16)
    p.add_argument("--max-tokens", type=int, default=32)
    p.add_argument("--batch-size", type=int, default=32)
    p.add_argument("--num-workers", type=int, default=0)
    p.add_argument("--epochs", type=int, default=1)
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--embed-dim", type=int, default=32)
    p.add_argument("--log-every", type=int, default=10)
    return p


def main():
    args = get_parser().parse_args()
    torch.set_num_threads(1)
    torch.manual_seed(args.seed)

    taxonomy = Taxonomy.build(args.taxonomy_branching)
    dataset = SyntheticDocuments(args.num_docs, args.vocab_size, taxonomy, args.max_labels_per_doc, args.seed)
    collator = HierarchicalMultiLabelCollator(taxonomy, args.max_sentences, args.max_tokens)
    sampler = LengthGroupedSampler(dataset.num_sentences, args.batch_size,
                                   generator=torch.Generator().manual_seed(args.seed))
    loader = DataLoader(dataset, batch_size=args.batch_size, sampler=sampler, collate_fn=collator,
                        num_workers=args.num_workers)

    model = HierarchicalBagClassifier(args.vocab_size, args.embed_dim, collator.num_labels)
    opt = torch.optim.Adam(model.parameters(), lr=args.lr)
    meter = Meter()

    positives = 0
    global_step = 0
    for epoch in range(args.epochs):
        for batch in loader:
            meter.batch(batch)
            logits = model(batch["input_ids"], batch["token_mask"], batch["sentence_mask"])
            loss = F.binary_cross_entropy_with_logits(logits, batch["labels"])
            opt.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
            meter.step(loss)
            global_step += 1
            positives += int(batch["labels"].sum())
            if global_step % args.log_every == 0:
                print(f"epoch {epoch} step {global_step} loss {loss.item():.4f}")
            if meter.done():
                break
        if meter.done():
            break
    meter.report(extra={"positive_labels": positives, "num_labels": collator.num_labels})


if __name__ == "__main__":
    main()
