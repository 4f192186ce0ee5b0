"""KITTI-style flow metrics: end-point error and Fl-all (outlier %) per image."""
import math


def flow_metrics_per_image(pred, gt, valid, px_thresh=3.0, rel_thresh=0.05):
    """pred/gt: (B, 2, H, W) tensors, valid: (B, H, W) bool. Returns per-image metric lists:
    EPE, Fl-all (%) and the 1px / 3px / 5px accuracies (fraction of valid pixels with EPE below).

    A pixel is an outlier when its EPE exceeds px_thresh px *and* rel_thresh of the true flow magnitude.
    """
    out = {"epe": [], "fl_all": [], "1px": [], "3px": [], "5px": []}
    for b in range(pred.shape[0]):
        flow_pr = pred[b].cpu().numpy()
        flow_gt = gt[b].cpu().numpy()
        mask = valid[b].cpu().numpy()
        height, width = mask.shape
        epe_sum, n_valid, n_out = 0.0, 0, 0
        n_1px = n_3px = n_5px = 0
        for y in range(height):
            for x in range(width):
                if not mask[y, x]:
                    continue
                du = flow_pr[0, y, x] - flow_gt[0, y, x]
                dv = flow_pr[1, y, x] - flow_gt[1, y, x]
                epe = math.sqrt(du * du + dv * dv)
                mag = math.sqrt(flow_gt[0, y, x] ** 2 + flow_gt[1, y, x] ** 2)
                epe_sum += epe
                n_valid += 1
                if epe > px_thresh and epe > rel_thresh * mag:
                    n_out += 1
                if epe < 1.0:
                    n_1px += 1
                if epe < 3.0:
                    n_3px += 1
                if epe < 5.0:
                    n_5px += 1
        n = max(n_valid, 1)
        out["epe"].append(epe_sum / n)
        out["fl_all"].append(100.0 * n_out / n)
        out["1px"].append(n_1px / n)
        out["3px"].append(n_3px / n)
        out["5px"].append(n_5px / n)
    return out
