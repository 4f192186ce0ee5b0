"""Speech-translation pre-training with word-timestamp alignment.

    python train.py --config st_align.yaml
"""
import argparse

import torch
import yaml
from torch.utils.data import DataLoader

from evalkit import Meter
from stalign.collate import AlignCollator
from stalign.corpus import SyntheticSTCorpus
from stalign.dataset import STDataset
from stalign.model import AlignedSTModel, st_loss


def parse_args():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--config", required=True)
    return p.parse_args()


def main():
    args = parse_args()
    with open(args.config) as f:
        cfg = yaml.safe_load(f)
    exp, corpus_cfg, optim_cfg = cfg["experiment"], cfg["corpus"], cfg["optimization"]
    torch.set_num_threads(exp["num_threads"])
    torch.manual_seed(exp["seed"])

    corpus = SyntheticSTCorpus(exp["seed"], **corpus_cfg)
    loader = DataLoader(
        STDataset(corpus),
        batch_size=optim_cfg["batch_size"],
        shuffle=True,
        num_workers=0,
        drop_last=True,
        collate_fn=AlignCollator(corpus_cfg["frame_rate"], corpus_cfg["n_mels"]),
        generator=torch.Generator().manual_seed(exp["seed"]),
    )
    model = AlignedSTModel(corpus_cfg["n_mels"], cfg["model"]["d_model"], corpus_cfg["source_subwords"],
                           corpus_cfg["target_vocab"], cfg["model"]["dropout"])
    optimizer = torch.optim.AdamW(model.parameters(), lr=optim_cfg["lr"])

    meter = Meter()
    global_step = 0
    ce_per_epoch = []
    for epoch in range(optim_cfg["epochs"]):
        model.train()
        ce_sum, n = 0.0, 0
        for batch in loader:
            meter.batch(batch)
            outputs = model(batch["feats"], batch["feat_mask"], batch["tok2frame"], batch["durations"])
            loss, ce = st_loss(outputs, batch, corpus_cfg["target_vocab"], optim_cfg["bow_weight"])
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), optim_cfg["clip_norm"])
            optimizer.step()
            meter.step(loss)
            global_step += 1
            ce_sum += ce.item()
            n += 1
            if global_step % cfg["logging"]["every"] == 0:
                print(f"[{cfg['experiment']['name']}] epoch {epoch} step {global_step} "
                      f"loss {loss.item():.4f} src_ce {ce.item():.4f}")
            if meter.done():
                break
        ce_per_epoch.append(round(ce_sum / max(n, 1), 5))
        if meter.done():
            break
    meter.report({"src_ce_per_epoch": ce_per_epoch, "global_step": global_step})


if __name__ == "__main__":
    main()
