import argparse
import configparser
import os

import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader

import evalkit
from criteo_dataset import CROSSES, CriteoTSV
from dlrm import TinyDLRM
from make_sample import N_CAT, N_DENSE, write_sample


def int_list(s):
    return [int(x) for x in s.split(",")]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", required=True)
    cp = configparser.ConfigParser()
    cp.read(ap.parse_args().config)
    seed = cp.getint("DEFAULT", "seed")
    torch.set_num_threads(1)
    torch.manual_seed(seed)

    path, buckets = cp.get("data", "path"), cp.getint("data", "hash_buckets")
    if not os.path.exists(path):
        write_sample(path, cp.getint("data", "num_lines"), seed)
    dataset = CriteoTSV(path, buckets)
    tr = cp["training"]
    loader = DataLoader(dataset, batch_size=tr.getint("batch_size"), shuffle=True, drop_last=True,
                        generator=torch.Generator().manual_seed(seed))
    model = TinyDLRM(N_DENSE, N_CAT + len(CROSSES), buckets, cp.getint("model", "embedding_dim"),
                     int_list(cp.get("model", "bottom_mlp")), int_list(cp.get("model", "top_mlp")))
    opt = torch.optim.Adagrad(model.parameters(), lr=tr.getfloat("learning_rate") * 10)
    meter = evalkit.Meter()
    log, it = [], 0
    ctr_sum, n = 0.0, 0
    for epoch in range(tr.getint("epochs")):
        for dense, cats, label in loader:
            meter.batch((dense, cats, label))
            logit = model(dense, cats)
            loss = F.binary_cross_entropy_with_logits(logit, label)
            opt.zero_grad()
            loss.backward()
            opt.step()
            meter.step(loss)
            it += 1
            ctr_sum += label.sum().item()
            n += len(label)
            if it % tr.getint("log_every") == 0:
                log.append({"it": it, "logloss": round(loss.item(), 6), "ctr": round(ctr_sum / n, 6)})
                print(log[-1], flush=True)
            if meter.done():
                break
        if meter.done():
            break
    meter.report(extra={"log": log})


if __name__ == "__main__":
    main()
