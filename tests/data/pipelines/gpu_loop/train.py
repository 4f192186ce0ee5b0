"""A plain training loop written for a GPU (it falls back to the CPU): the GPU codemods' test pipeline.

Batches are copied with .to(device), the loss and accuracy are read back with .item() every
step into sums printed once per epoch, and nothing enables TF32 or autocast.
"""
import argparse
import json

import torch
from torch.utils.data import DataLoader, TensorDataset


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--config", required=True)
    cfg = json.load(open(parser.parse_args().config))
    torch.manual_seed(cfg["seed"])
    torch.set_num_threads(1)  # steady compute on a busy 2-core machine
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    features = torch.randn(1024, 128)
    labels = (features[:, :8].sum(1) > 0).long()
    loader = DataLoader(TensorDataset(features, labels), batch_size=cfg["batch_size"], shuffle=True,
                        num_workers=cfg["num_workers"])
    width = cfg["hidden"]
    model = torch.nn.Sequential(torch.nn.Linear(128, width), torch.nn.GELU(), torch.nn.Linear(width, width),
                                torch.nn.GELU(), torch.nn.Linear(width, 2)).to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    for epoch in range(cfg["epochs"]):
        running_loss = 0.0
        correct = 0
        for x, y in loader:
            x, y = x.to(device), y.to(device)
            logits = model(x)
            loss = torch.nn.functional.cross_entropy(logits, y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            running_loss += loss.item() * x.size(0)
            correct += (logits.argmax(1) == y).sum().item()
        if epoch < 3:
            print(f"epoch {epoch}: loss {running_loss / len(features):.6f} accuracy {correct / len(features):.4f}")


if __name__ == "__main__":
    main()
