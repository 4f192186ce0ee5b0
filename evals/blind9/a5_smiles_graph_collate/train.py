import argparse
import random
import runpy
import time

import numpy as np
import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader

from evalkit import Meter
from molgraph.featurize import NUM_ATOM_FEATURES, GraphCollator, SmilesDataset
from molgraph.model import Graphormerish
from molgraph.synth import make_dataset


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--config", default="hparams.py")
    args = parser.parse_args()
    hp = runpy.run_path(args.config)

    random.seed(hp["seed"])
    np.random.seed(hp["seed"])
    torch.manual_seed(hp["seed"])
    torch.set_num_threads(1)

    smiles, targets = make_dataset(hp["num_molecules"], hp["min_atoms"], hp["max_atoms"],
                                   hp["max_ring_closures"], hp["seed"])
    mean, std = float(np.mean(targets)), float(np.std(targets))
    dataset = SmilesDataset(smiles, [(t - mean) / std for t in targets])
    loader = DataLoader(dataset, batch_size=hp["batch_size"], shuffle=True, drop_last=True,
                        num_workers=hp["num_workers"],
                        collate_fn=GraphCollator(hp["max_distance"], hp["seed"] + 1),
                        generator=torch.Generator().manual_seed(hp["seed"]))

    model = Graphormerish(NUM_ATOM_FEATURES, hp["hidden"], hp["heads"], hp["layers"],
                          hp["max_distance"], hp["dropout"])
    optimizer = torch.optim.AdamW(model.parameters(), lr=hp["lr"])
    meter = Meter()

    step, mae_log, t0 = 0, [], time.time()
    it = iter(loader)
    while step < hp["max_steps"]:
        try:
            batch = next(it)
        except StopIteration:
            it = iter(loader)
            continue
        meter.batch(batch)
        pred = model(batch["x"], batch["dist"], batch["adj"], batch["mask"])
        loss = F.mse_loss(pred, batch["y"])
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        meter.step(loss)
        step += 1
        mae_log.append((pred.detach() - batch["y"]).abs().mean().item() * std)
        if step % hp["print_freq"] == 0:
            print(f"step {step:4d}  mse {loss.item():.4f}  mae {np.mean(mae_log[-hp['print_freq']:]):.4f}"
                  f"  atoms/batch {int(batch['mask'].sum())}  {time.time() - t0:.1f}s", flush=True)
        if meter.done():
            break
    meter.report(extra={"mae_first10": round(float(np.mean(mae_log[:10])), 6),
                        "mae_last10": round(float(np.mean(mae_log[-10:])), 6)})


if __name__ == "__main__":
    main()
