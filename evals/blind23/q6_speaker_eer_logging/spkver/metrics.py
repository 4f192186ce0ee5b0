"""Speaker-verification metrics from trial scores: EER and normalised minDCF (NIST SRE style)."""
import math


def all_pairs_trials(embeddings, speakers):
    """Cosine scores and target flags of every unordered pair (i < j) of a batch."""
    sim = embeddings.tolist()
    spk = speakers.tolist()
    scores, labels = [], []
    for i in range(len(spk)):
        for j in range(i + 1, len(spk)):
            scores.append(sim[i][j])
            labels.append(spk[i] == spk[j])
    return scores, labels


def eer_and_min_dcf(scores, labels, p_target=0.01, c_miss=1.0, c_fa=1.0):
    """Sweep a decision threshold over every distinct score (accept if score >= threshold)."""
    n_tar = sum(1 for l in labels if l)
    n_non = len(labels) - n_tar
    best_gap, eer = math.inf, 0.0
    min_dcf = math.inf
    for t in sorted(set(scores)):
        miss = fa = 0
        for s, is_target in zip(scores, labels):
            if is_target:
                if s < t:
                    miss += 1
            elif s >= t:
                fa += 1
        p_miss = miss / n_tar
        p_fa = fa / n_non
        gap = abs(p_miss - p_fa)
        if gap < best_gap:
            best_gap = gap
            eer = (p_miss + p_fa) / 2
        dcf = c_miss * p_miss * p_target + c_fa * p_fa * (1 - p_target)
        if dcf < min_dcf:
            min_dcf = dcf
    c_def = min(c_miss * p_target, c_fa * (1 - p_target))
    return eer, min_dcf / c_def
