"""Semi-hard triplet mining (FaceNet, as in tfa.losses.TripletSemiHardLoss).

For every anchor-positive pair, the negative is the closest one that is still farther
than the positive; if there is none, the farthest negative.
"""
import torch


def pairwise_distances(emb):
    dot = emb @ emb.t()
    sq = dot.diagonal()
    d2 = sq.unsqueeze(0) - 2.0 * dot + sq.unsqueeze(1)
    return d2.clamp_min(1e-12).sqrt()


def mine_semihard(dist, labels):
    d = dist.detach().tolist()
    y = labels.tolist()
    n = len(y)
    anchors, positives, negatives = [], [], []
    for a in range(n):
        for p in range(n):
            if p == a or y[p] != y[a]:
                continue
            d_ap = d[a][p]
            best_semi, semi_idx = float("inf"), -1
            worst, worst_idx = -1.0, -1
            for j in range(n):
                if y[j] == y[a]:
                    continue
                d_an = d[a][j]
                if d_an > d_ap and d_an < best_semi:
                    best_semi, semi_idx = d_an, j
                if d_an > worst:
                    worst, worst_idx = d_an, j
            anchors.append(a)
            positives.append(p)
            negatives.append(semi_idx if semi_idx >= 0 else worst_idx)
    return torch.tensor(anchors), torch.tensor(positives), torch.tensor(negatives)
