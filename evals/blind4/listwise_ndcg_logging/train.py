import argparse
import configparser

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader

import evalkit
from letor import SyntheticLETOR
from rank_metrics import batch_metrics


def listnet_loss(scores, rel):
    target = F.softmax(rel.float(), dim=1)
    return -(target * F.log_softmax(scores, dim=1)).sum(1).mean()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default="ranker.cfg")
    cp = configparser.ConfigParser()
    cp.read(ap.parse_args().config)
    d, t = cp["data"], cp["train"]
    seed = d.getint("seed")
    torch.manual_seed(seed)
    torch.set_num_threads(1)

    ds = SyntheticLETOR(d.getint("queries"), d.getint("docs_per_query"), d.getint("features"), seed)
    loader = DataLoader(ds, batch_size=t.getint("batch_queries"), shuffle=True,
                        generator=torch.Generator().manual_seed(seed))
    model = nn.Sequential(nn.Linear(d.getint("features"), t.getint("hidden")), nn.ELU(),
                          nn.Linear(t.getint("hidden"), 1))
    opt = torch.optim.Adam(model.parameters(), lr=t.getfloat("lr"))
    meter = evalkit.Meter()
    history = []
    for epoch in range(t.getint("epochs")):
        for it, batch in enumerate(loader):
            meter.batch(batch)
            scores = model(batch["features"]).squeeze(-1)
            loss = listnet_loss(scores, batch["relevance"])
            opt.zero_grad()
            loss.backward()
            opt.step()
            meter.step(loss)
            if it % t.getint("log_every") == 0:
                m = batch_metrics(scores.detach().tolist(), batch["relevance"].tolist())
                m["step"] = it
                history.append(m)
            if meter.done():
                break
        if meter.done():
            break
    last = history[-1] if history else {}
    print({k: round(v, 4) for k, v in last.items()})
    mean = {k: sum(h[k] for h in history) / len(history) for k in last if k != "step"}
    meter.report(extra={"mean_train_metrics": mean, "last": last})


if __name__ == "__main__":
    main()
