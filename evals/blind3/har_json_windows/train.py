import argparse
import importlib.util
import os

import torch
from torch import nn
from torch.utils.data import DataLoader

import evalkit
from har_data import CHANNELS, HARWindows, write_dataset
from model import ConvNet1d


def load_config(path):
    spec = importlib.util.spec_from_file_location("har_config", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--config", required=True)
    cfg = load_config(parser.parse_args().config)
    torch.set_num_threads(1)
    torch.manual_seed(cfg.seed)

    path = os.path.join(cfg.data_dir, f"har_{cfg.num_windows}x{cfg.window_len}_seed{cfg.seed}.json")
    if not os.path.exists(path):
        write_dataset(path, cfg.num_windows, cfg.window_len, cfg.activities, cfg.seed)
    dataset = HARWindows(path, cfg.activities)
    loader = DataLoader(dataset, batch_size=cfg.batch_size, shuffle=True, drop_last=True,
                        generator=torch.Generator().manual_seed(cfg.seed))

    model = ConvNet1d(len(CHANNELS), cfg.hidden, len(cfg.activities))
    optimizer = torch.optim.Adam(model.parameters(), lr=cfg.lr)
    criterion = nn.CrossEntropyLoss()
    meter = evalkit.Meter()
    per_epoch = []
    for epoch in range(cfg.epochs):
        total, correct, n = 0.0, 0, 0
        for step, batch in enumerate(loader):
            meter.batch(batch)
            logits = model(batch["signals"])
            loss = criterion(logits, batch["label"])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            meter.step(loss)
            total += loss.item() * len(batch["label"])
            correct += int((logits.argmax(-1) == batch["label"]).sum())
            n += len(batch["label"])
            if step % cfg.print_every == 0:
                print(f"epoch {epoch} step {step} loss {loss.item():.4f}", flush=True)
            if meter.done():
                break
        per_epoch.append({"loss": round(total / n, 6), "acc": round(correct / n, 6)})
        if meter.done():
            break
    meter.report(extra={"epochs": per_epoch})


if __name__ == "__main__":
    main()
