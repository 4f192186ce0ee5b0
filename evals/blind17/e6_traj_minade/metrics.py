"""Multi-modal forecasting metrics (Argoverse style), in the world frame.

minADE / minFDE over K modes, miss rate (minFDE > threshold), brier-minFDE, minADE at shorter horizons,
and a per-agent-type breakdown. The best mode is the one with the lowest final displacement (first on ties).
"""
import math

from scenes import AGENT_TYPES


def to_world(points, origin, heading):
    c, s = math.cos(heading), math.sin(heading)
    ox, oy = origin
    return [(c * x - s * y + ox, s * x + c * y + oy) for x, y in points]


def forecasting_metrics(pred, probs, gt, origin, heading, types, miss_threshold=2.0, horizons=(10, 20)):
    """pred [B, K, T, 2] and gt [B, T, 2] (agent frame, float32 tensors), probs [B, K]."""
    pred_l, gt_l, prob_l = pred.tolist(), gt.tolist(), probs.tolist()
    origin_l, heading_l, type_l = origin.tolist(), heading.tolist(), types.tolist()
    rows = []
    for b, modes in enumerate(pred_l):
        gw = to_world(gt_l[b], origin_l[b], heading_l[b])
        ades, fdes, hades = [], [], []
        for mode in modes:
            pw = to_world(mode, origin_l[b], heading_l[b])
            acc, partial = 0.0, {}
            for t, ((px, py), (gx, gy)) in enumerate(zip(pw, gw), start=1):
                dx, dy = px - gx, py - gy
                err = math.sqrt(dx * dx + dy * dy)
                acc += err
                if t in horizons:
                    partial[t] = acc / t
            ades.append(acc / len(gw))
            fdes.append(err)
            hades.append(partial)
        best = min(range(len(fdes)), key=fdes.__getitem__)
        min_fde = fdes[best]
        p_best = prob_l[b][best]
        rows.append({
            "type": AGENT_TYPES[type_l[b]],
            "minADE": min(ades),
            "minFDE": min_fde,
            "miss": 1.0 if min_fde > miss_threshold else 0.0,
            "brier_minFDE": min_fde + (1.0 - p_best) * (1.0 - p_best),
            "best_mode": best,
            **{f"minADE@{h}": min(p[h] for p in hades) for h in horizons},
        })
    out = {}
    keys = [k for k in rows[0] if k not in ("type", "best_mode")]
    for key in keys:
        total = 0.0
        for r in rows:
            total += r[key]
        out[key] = total / len(rows)
    by_type = {}
    for r in rows:
        by_type.setdefault(r["type"], []).append(r["minFDE"])
    for name, vals in sorted(by_type.items()):
        total = 0.0
        for v in vals:
            total += v
        out[f"minFDE/{name}"] = total / len(vals)
    counts = [0] * len(prob_l[0])
    for r in rows:
        counts[r["best_mode"]] += 1
    out["mode_usage"] = counts
    return out
