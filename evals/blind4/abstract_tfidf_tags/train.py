import argparse
import tomllib

import torch
from torch import nn
from torch.utils.data import DataLoader

import evalkit
from batching import TfidfCollate
from corpus import fit_vocabulary, make_abstracts


def micro_f1(logits, y):
    pred = (logits > 0).float()
    tp = (pred * y).sum().item()
    return 2 * tp / max(pred.sum().item() + y.sum().item(), 1.0)


def main():
    parser = argparse.ArgumentParser(description="multi-label subject tagging from TF-IDF")
    parser.add_argument("--config", default="params.toml")
    with open(parser.parse_args().config, "rb") as f:
        params = tomllib.load(f)
    torch.manual_seed(params["seed"])
    torch.set_num_threads(1)

    docs, tags = make_abstracts(params["corpus"], params["seed"])
    vocab, idf = fit_vocabulary(docs, params["features"]["max_features"], params["features"]["min_df"])
    n_tags = params["corpus"]["topics"]
    tp = params["training"]
    loader = DataLoader(list(zip(docs, tags)), batch_size=tp["batch_size"], shuffle=True,
                        drop_last=True, collate_fn=TfidfCollate(vocab, idf, n_tags),
                        num_workers=tp["loader_workers"],
                        generator=torch.Generator().manual_seed(params["seed"]))
    model = nn.Sequential(nn.Linear(len(vocab), 96), nn.ReLU(), nn.Dropout(0.2), nn.Linear(96, n_tags))
    optimizer = torch.optim.SGD(model.parameters(), lr=tp["lr"], momentum=0.9, nesterov=True)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=tp["step_size"], gamma=tp["gamma"])
    criterion = nn.BCEWithLogitsLoss()
    meter = evalkit.Meter()

    f1_trace = []
    global_step = 0
    for epoch in range(tp["epochs"]):
        model.train()
        for x, y in loader:
            meter.batch((x, y))
            logits = model(x)
            loss = criterion(logits, y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            scheduler.step()
            meter.step(loss)
            global_step += 1
            if global_step % 15 == 0:
                f1_trace.append(round(micro_f1(logits.detach(), y), 5))
            if meter.done():
                break
        print(f"epoch {epoch} last loss {loss.item():.4f} f1 {f1_trace[-1] if f1_trace else None}")
        if meter.done():
            break
    meter.report(extra={"micro_f1_every_15": f1_trace, "vocab": len(vocab)})


if __name__ == "__main__":
    main()
