"""Train a toy copy-aware translation model; batches come from a bucketed sampler and a seq2seq collator."""
import argparse
import time
import tomllib

import torch
from torch.utils.data import DataLoader

import evalkit
from nmt import BucketBatchSampler, DataCollatorForCopySeq2Seq, ParallelCorpus, Vocab, make_parallel_corpus
from nmt.model import TinyPointerGenerator


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--config", default="mt.toml")
    args = parser.parse_args()
    with open(args.config, "rb") as fh:
        cfg = tomllib.load(fh)

    torch.set_num_threads(1)
    torch.manual_seed(cfg["seed"])

    pairs = make_parallel_corpus(seed=cfg["seed"], **cfg["corpus"])
    src_vocab = Vocab.build((src for src, _ in pairs), min_freq=2)
    tgt_vocab = Vocab.build((tgt for _, tgt in pairs), min_freq=2)
    dataset = ParallelCorpus(pairs, src_vocab, tgt_vocab)
    print(f"{len(dataset)} pairs, |V_src|={len(src_vocab)} |V_tgt|={len(tgt_vocab)}")

    bcfg = cfg["batching"]
    sampler = BucketBatchSampler([len(src) for src, _ in pairs], bcfg["batch_size"], bcfg["bucket_size_multiplier"],
                                 generator=torch.Generator().manual_seed(cfg["seed"]))
    collator = DataCollatorForCopySeq2Seq(tgt_vocab.pad_id, tgt_vocab.bos_id, tgt_vocab.eos_id)
    loader = DataLoader(dataset, batch_sampler=sampler, collate_fn=collator, num_workers=bcfg["num_workers"])

    model = TinyPointerGenerator(len(src_vocab), len(tgt_vocab), cfg["model"]["d_model"], pad_id=src_vocab.pad_id)
    opt = torch.optim.Adam(model.parameters(), lr=cfg["optim"]["lr"], betas=tuple(cfg["optim"]["betas"]))
    meter = evalkit.Meter()
    copy_share = []
    t0 = time.time()
    step = 0
    for epoch in range(cfg["train"]["epochs"]):
        for batch in loader:
            meter.batch(batch)
            loss = model(**batch)
            opt.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), cfg["optim"]["clip_norm"])
            opt.step()
            meter.step(loss)
            step += 1
            # share of target tokens that have at least one copy source
            copy_share.append(float(batch["copy_mask"].amax(-1).sum() / (batch["labels"] != -100).sum()))
            if step % cfg["train"]["log_every"] == 0:
                print(f"epoch {epoch} step {step} loss {loss.item():.4f} copyable {copy_share[-1]:.3f} "
                      f"({time.time() - t0:.1f}s)", flush=True)
            if meter.done():
                break
        if meter.done():
            break
    meter.report(extra={"copy_share": copy_share})


if __name__ == "__main__":
    main()
