"""Greedy frame decoding and jiwer-style error counts (substitutions, deletions, insertions)."""


def greedy_decode(logits, lengths, silence=0):
    """logits: [B, T, C] frame scores. Best class per frame, collapse repeats, drop silence."""
    best = logits.argmax(-1).tolist()
    hyps = []
    for seq, n in zip(best, lengths.tolist()):
        out, prev = [], silence
        for s in seq[:n]:
            if s != prev and s != silence:
                out.append(s)
            prev = s
        hyps.append(out)
    return hyps


def edit_ops(ref, hyp):
    """Levenshtein alignment of hyp against ref; returns (substitutions, deletions, insertions).

    Ties prefer the diagonal (match/substitution), then a deletion, then an insertion."""
    n, m = len(ref), len(hyp)
    d = [[0] * (m + 1) for _ in range(n + 1)]
    back = [[None] * (m + 1) for _ in range(n + 1)]
    for i in range(1, n + 1):
        d[i][0], back[i][0] = i, "del"
    for j in range(1, m + 1):
        d[0][j], back[0][j] = j, "ins"
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            diag = d[i - 1][j - 1] + (0 if ref[i - 1] == hyp[j - 1] else 1)
            up = d[i - 1][j] + 1
            left = d[i][j - 1] + 1
            best = min(diag, up, left)
            d[i][j] = best
            back[i][j] = "diag" if best == diag else ("del" if best == up else "ins")
    i, j, sub, dele, ins = n, m, 0, 0, 0
    while i > 0 or j > 0:
        move = back[i][j]
        if move == "diag":
            sub += ref[i - 1] != hyp[j - 1]
            i -= 1
            j -= 1
        elif move == "del":
            dele += 1
            i -= 1
        else:
            ins += 1
            j -= 1
    return sub, dele, ins


def split_words(seq, space):
    words, cur = [], []
    for s in seq:
        if s == space:
            if cur:
                words.append(tuple(cur))
            cur = []
        else:
            cur.append(s)
    if cur:
        words.append(tuple(cur))
    return words


def error_counts(hyps, refs, space):
    """Totals over the batch: char S/D/I, reference chars, letter edits ignoring spaces,
    reference letters, word edits, reference words."""
    tot = {"c_sub": 0, "c_del": 0, "c_ins": 0, "chars": 0, "l_err": 0, "letters": 0, "w_err": 0, "words": 0}
    for hyp, ref in zip(hyps, refs):
        s, d, i = edit_ops(ref, hyp)
        tot["c_sub"] += s
        tot["c_del"] += d
        tot["c_ins"] += i
        tot["chars"] += len(ref)
        rl, hl = [c for c in ref if c != space], [c for c in hyp if c != space]
        tot["l_err"] += sum(edit_ops(rl, hl))
        tot["letters"] += len(rl)
        rw, hw = split_words(ref, space), split_words(hyp, space)
        tot["w_err"] += sum(edit_ops(rw, hw))
        tot["words"] += len(rw)
    return tot
