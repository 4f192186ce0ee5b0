"""Affinity regression on pocket + ligand radius graphs."""
import argparse

import torch
from torch.utils.data import DataLoader

from evalkit import Meter
from pocketgraph import ELEMENTS, PocketGNN, PocketGraphCollator, SyntheticComplexes


def get_args():
    p = argparse.ArgumentParser(fromfile_prefix_chars="@")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--num-complexes", type=int, default=1000)
    p.add_argument("--protein-atoms", type=int, default=700)
    p.add_argument("--protein-radius", type=float, default=14.0)
    p.add_argument("--ligand-atoms-min", type=int, default=18)
    p.add_argument("--ligand-atoms-max", type=int, default=30)
    p.add_argument("--pocket-radius", type=float, default=6.0)
    p.add_argument("--edge-cutoff", type=float, default=4.0)
    p.add_argument("--batch-size", type=int, default=8)
    p.add_argument("--num-workers", type=int, default=0)
    p.add_argument("--epochs", type=int, default=1)
    p.add_argument("--max-steps-per-epoch", type=int, default=None)
    p.add_argument("--hidden", type=int, default=16)
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--no-augment", action="store_true")
    return p.parse_args()


def main():
    args = get_args()
    torch.manual_seed(args.seed)
    torch.set_num_threads(1)
    ds = SyntheticComplexes(args.num_complexes, args.protein_atoms, args.protein_radius,
                            args.ligand_atoms_min, args.ligand_atoms_max, args.seed, augment=not args.no_augment)
    collate = PocketGraphCollator(args.pocket_radius, args.edge_cutoff)
    g = torch.Generator().manual_seed(args.seed)
    loader = DataLoader(ds, batch_size=args.batch_size, shuffle=True, collate_fn=collate,
                        num_workers=args.num_workers, generator=g)
    model = PocketGNN(len(ELEMENTS), args.hidden, args.edge_cutoff)
    opt = torch.optim.Adam(model.parameters(), lr=args.lr)
    meter = Meter()
    sq_err, count = 0.0, 0
    for epoch in range(args.epochs):
        ds.epoch = epoch
        for step, batch in enumerate(loader):
            meter.batch(batch)
            pred = model(batch["z"], batch["is_ligand"], batch["edge_index"], batch["edge_dist"],
                         batch["batch"], len(batch["affinity"]))
            loss = torch.nn.functional.mse_loss(pred, batch["affinity"])
            opt.zero_grad()
            loss.backward()
            opt.step()
            meter.step(loss)
            sq_err += loss.item() * len(batch["affinity"])
            count += len(batch["affinity"])
            if step % 25 == 0:
                print(f"epoch {epoch} step {step} mse {loss.item():.3f} edges {batch['edge_index'].shape[1]}", flush=True)
            if meter.done() or (args.max_steps_per_epoch and step + 1 >= args.max_steps_per_epoch):
                break
        if meter.done():
            break
    meter.report(extra={"train_rmse": (sq_err / max(count, 1)) ** 0.5})


if __name__ == "__main__":
    main()
