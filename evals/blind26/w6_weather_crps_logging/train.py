"""Train an ensemble post-processing model with the fair CRPS, verifying every step."""
import argparse

import torch
import yaml

from ensemble.data import CaseBatches, make_cases
from ensemble.model import EnsembleHead, fair_crps
from ensemble.verification import VerificationLogger
from evalkit import Meter


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("config")
    cfg = yaml.safe_load(open(ap.parse_args().config))
    torch.manual_seed(cfg["seed"])
    torch.set_num_threads(cfg["torch_threads"])
    d, m, t = cfg["data"], cfg["model"], cfg["training"]

    feats, obs = make_cases(d["n_cases"], d["grid"], d["channels"], d["lead_hours"], cfg["seed"])
    batches = CaseBatches(feats, obs, t["batch_size"], cfg["seed"] + 1)
    model = EnsembleHead(d["channels"], m["members"], m["width"])
    opt = torch.optim.Adam(model.parameters(), lr=t["lr"])
    verif = VerificationLogger(m["members"], cfg["logging"]["crps_decimals"])
    meter = Meter()

    for step, batch in enumerate(batches, start=1):
        meter.batch(batch)
        ens = model(batch["x"])
        loss = fair_crps(ens, batch["obs"])
        opt.zero_grad()
        loss.backward()
        opt.step()
        crps = verif.on_step(ens, batch["obs"])
        meter.step(loss)
        if step % cfg["logging"]["print_every"] == 0:
            print(f"step {step}: fair-CRPS loss {loss.item():.4f}  CRPS {crps:.4f}")
        if meter.done() or step >= t["steps"]:
            break
    meter.report(verif.summary())


if __name__ == "__main__":
    main()
