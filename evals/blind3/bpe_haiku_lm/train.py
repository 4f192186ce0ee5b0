import argparse
import random

import numpy as np
import torch
import torch.nn.functional as F
import yaml
from torch.utils.data import DataLoader

import evalkit
from bpe import BPETokenizer, learn_bpe
from data import HaikuLines, make_lines
from model import ConvLM


def seed_everything(seed):
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--config", default="configs/lm.yaml")
    args = parser.parse_args()
    with open(args.config) as fh:
        cfg = yaml.safe_load(fh)
    torch.set_num_threads(1)
    seed_everything(cfg["seed"])

    dcfg, tcfg, mcfg = cfg["data"], cfg["train"], cfg["model"]
    lines = make_lines(dcfg["num_lines"], dcfg["min_words"], dcfg["max_words"], cfg["seed"])
    tokenizer = BPETokenizer(learn_bpe(lines[:400], dcfg["num_merges"]))
    dataset = HaikuLines(lines, tokenizer, dcfg["max_len"])
    g = torch.Generator()
    g.manual_seed(cfg["seed"])
    loader = DataLoader(dataset, batch_size=tcfg["batch_size"], shuffle=True, drop_last=True,
                        num_workers=0, generator=g)

    model = ConvLM(len(tokenizer), mcfg["d_model"], mcfg["kernel"], mcfg["layers"], dcfg["max_len"])
    opt = torch.optim.AdamW(model.parameters(), lr=tcfg["lr"], weight_decay=tcfg["weight_decay"])

    meter = evalkit.Meter()
    history = []
    step = 0
    for epoch in range(tcfg["epochs"]):
        model.train()
        for inputs, targets in loader:
            meter.batch((inputs, targets))
            logits = model(inputs)
            loss = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), targets.reshape(-1),
                                   ignore_index=tokenizer.pad_id)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            meter.step(loss)
            step += 1
            if step % tcfg["log_every"] == 0:
                history.append({"step": step, "loss": round(loss.item(), 5),
                                "ppl": round(float(torch.exp(loss.detach())), 4)})
                print(f"epoch {epoch} step {step} loss {loss.item():.4f}", flush=True)
            if meter.done():
                break
        if meter.done():
            break
    meter.report(extra={"vocab": len(tokenizer), "history": history})


if __name__ == "__main__":
    main()
