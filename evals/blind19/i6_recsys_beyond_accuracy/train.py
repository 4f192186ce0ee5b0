"""BPR matrix factorisation with per-step beyond-accuracy logging (coverage, diversity, novelty)."""
import argparse
import time

import torch
from torch.utils.data import DataLoader

import evalkit
from recsys import BeyondAccuracyTracker, BPRTripletDataset, MatrixFactorization, make_interactions


def parse_args():
    p = argparse.ArgumentParser(fromfile_prefix_chars="@")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--num-users", type=int, default=1000)
    p.add_argument("--num-items", type=int, default=2000)
    p.add_argument("--latent-dim", type=int, default=16)
    p.add_argument("--interactions-per-user", type=int, default=20)
    p.add_argument("--embed-dim", type=int, default=32)
    p.add_argument("--batch-size", type=int, default=256)
    p.add_argument("--metric-users", type=int, default=64)
    p.add_argument("--top-k", type=int, default=10)
    p.add_argument("--epochs", type=int, default=1)
    p.add_argument("--max-steps", type=int, default=-1)
    p.add_argument("--lr", type=float, default=1e-2)
    p.add_argument("--weight-decay", type=float, default=0.0)
    p.add_argument("--num-workers", type=int, default=0)
    p.add_argument("--log-every", type=int, default=20)
    return p.parse_args()


def main():
    args = parse_args()
    torch.set_num_threads(1)
    torch.manual_seed(args.seed)

    pairs = make_interactions(args.num_users, args.num_items, args.latent_dim, args.interactions_per_user, args.seed)
    dataset = BPRTripletDataset(pairs, args.num_items, seed=args.seed)
    loader = DataLoader(dataset, batch_size=args.batch_size, shuffle=True, num_workers=args.num_workers,
                        generator=torch.Generator().manual_seed(args.seed))

    model = MatrixFactorization(args.num_users, args.num_items, args.embed_dim)
    opt = torch.optim.Adam(model.parameters(), lr=args.lr, weight_decay=args.weight_decay)
    tracker = BeyondAccuracyTracker(args.num_items, dataset.popularity, args.num_users)
    meter = evalkit.Meter()

    t0 = time.time()
    step = 0
    done = False
    for epoch in range(args.epochs):
        for users, pos, neg in loader:
            meter.batch((users, pos, neg))
            loss = model.bpr_loss(users, pos, neg)
            opt.zero_grad()
            loss.backward()
            opt.step()
            meter.step(loss)
            step += 1

            top = model.recommend(users[: args.metric_users], args.top_k)
            stats = tracker.update(top, model.item_emb.weight)
            if step % args.log_every == 0:
                print(f"epoch {epoch} step {step} loss {loss.item():.4f} coverage {stats['coverage']:.3f} "
                      f"ild {stats['ild']:.4f} novelty {stats['novelty']:.3f} ({time.time() - t0:.1f}s)", flush=True)
            if meter.done() or step == args.max_steps:
                done = True
                break
        if done:
            break
    meter.report(extra=tracker.history)


if __name__ == "__main__":
    main()
