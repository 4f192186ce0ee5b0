"""Next point-of-interest prediction from check-in histories (attention-pooled embeddings)."""
import argparse
import time

import torch
import torch.nn as nn
from torch.utils.data import DataLoader

from collate import N_FEATURES, CheckinCollator
from evalkit import Meter
from poi_data import CITY_LAT, CITY_LON, CheckinSequences, PlaceCatalog


def parse_args(argv=None):
    ap = argparse.ArgumentParser(fromfile_prefix_chars="@", description=__doc__)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--num-users", type=int, default=4096)
    ap.add_argument("--num-places", type=int, default=2000)
    ap.add_argument("--min-len", type=int, default=16)
    ap.add_argument("--max-len", type=int, default=128)
    ap.add_argument("--geohash-precision", type=int, default=7)
    ap.add_argument("--batch-size", type=int, default=32)
    ap.add_argument("--num-workers", type=int, default=0)
    ap.add_argument("--embed-dim", type=int, default=32)
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--epochs", type=int, default=1)
    ap.add_argument("--log-every", type=int, default=50)
    return ap.parse_args(argv)


class NextPOIModel(nn.Module):
    def __init__(self, num_places, dim):
        super().__init__()
        self.place = nn.Embedding(num_places + 1, dim, padding_idx=0)
        self.feat = nn.Linear(N_FEATURES, dim)
        self.score = nn.Linear(dim, 1)
        self.out = nn.Linear(dim, num_places + 1)

    def forward(self, place_ids, features, attention_mask):
        h = torch.tanh(self.place(place_ids) + self.feat(features))
        scores = self.score(h).squeeze(-1).masked_fill(~attention_mask, float("-inf"))
        weights = torch.softmax(scores, dim=1).unsqueeze(-1)
        return self.out((weights * h).sum(1))


def main():
    args = parse_args()
    torch.set_num_threads(1)
    torch.manual_seed(args.seed)
    catalog = PlaceCatalog(args.num_places, args.geohash_precision, args.seed)
    ds = CheckinSequences(catalog, args.num_users, args.min_len, args.max_len, args.seed)
    g = torch.Generator()
    g.manual_seed(args.seed)
    loader = DataLoader(ds, batch_size=args.batch_size, shuffle=True, generator=g,
                        num_workers=args.num_workers, collate_fn=CheckinCollator(CITY_LAT, CITY_LON),
                        drop_last=True)
    model = NextPOIModel(args.num_places, args.embed_dim)
    opt = torch.optim.Adam(model.parameters(), lr=args.lr)
    meter = Meter()
    hits, seen, step, t0 = 0, 0, 0, time.time()
    for epoch in range(args.epochs):
        for batch in loader:
            meter.batch(batch)
            logits = model(batch["place_ids"], batch["features"], batch["attention_mask"])
            loss = nn.functional.cross_entropy(logits, batch["labels"])
            opt.zero_grad()
            loss.backward()
            opt.step()
            meter.step(loss)
            step += 1
            hits += int((logits.topk(10, dim=1).indices == batch["labels"][:, None]).any(1).sum())
            seen += len(batch["labels"])
            if step % args.log_every == 0:
                print(f"epoch {epoch} step {step} loss {loss.item():.3f} "
                      f"acc@10 {hits / seen:.3f} {time.time() - t0:.1f}s", flush=True)
            if meter.done():
                break
        if meter.done():
            break
    meter.report(extra={"acc_at_10": hits / max(seen, 1), "seen": seen})


if __name__ == "__main__":
    main()
