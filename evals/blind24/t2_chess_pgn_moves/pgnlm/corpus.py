"""A deterministic synthetic PGN corpus.

The games are not legal chess, only PGN-shaped: seven-tag roster plus Elo and ECO
tags, numbered SAN moves, brace comments, numeric annotation glyphs ($n), move
suffix annotations (!, ?, !?) and nested recursive annotation variations.
"""
import random

FILES = "abcdefgh"
RANKS = "12345678"
PIECES = "NBRQK"
RESULTS = ("1-0", "0-1", "1/2-1/2")
NAMES = ("Carlsen", "Nakamura", "Caruana", "Ding", "Firouzja", "Giri", "So", "Aronian",
         "Rapport", "Duda", "Wei", "Nepomniachtchi", "Anand", "Mamedyarov", "Vachier-Lagrave")
EVENTS = ("Club Championship", "Open A", "Rapid Cup", "Online Blitz Arena", "County League")
COMMENT_WORDS = ("the", "knight", "is", "strong", "here", "better", "was", "weakens", "the",
                 "king", "side", "a", "typical", "plan", "with", "pressure", "on", "file",
                 "threatening", "mate", "only", "move", "inaccuracy", "novelty", "engine", "prefers")


def random_san(rng, check_bias):
    r = rng.random()
    if r < 0.03:
        san = rng.choice(("O-O", "O-O-O"))
    elif r < 0.45:
        f = rng.choice(FILES)
        if rng.random() < 0.3:
            san = f + "x" + rng.choice(FILES) + rng.choice(RANKS)
        else:
            san = f + rng.choice(RANKS)
        if san[-1] in "18" and rng.random() < 0.5:
            san += "=" + rng.choice("QRBN")
    else:
        p = rng.choice(PIECES)
        dis = rng.choice(FILES) if rng.random() < 0.05 else ""
        cap = "x" if rng.random() < 0.3 else ""
        san = p + dis + cap + rng.choice(FILES) + rng.choice(RANKS)
    r = rng.random()
    if r < check_bias:
        san += "+"
    elif r < check_bias + 0.005:
        san += "#"
    return san


def _comment(rng):
    return "{" + " ".join(rng.choice(COMMENT_WORDS) for _ in range(rng.randint(3, 12))) + "}"


def _moves(rng, start_no, black_first, n, cfg, depth, bias):
    out = []
    ply = 0
    no = start_no
    white = not black_first
    if black_first:
        out.append(f"{no}...")
    while ply < n:
        if white:
            out.append(f"{no}.")
        san = random_san(rng, bias[0] if white else bias[1])
        if rng.random() < 0.04:
            san += rng.choice(("!", "?", "!?", "?!", "!!", "??"))
        out.append(san)
        if rng.random() < cfg["nag_rate"]:
            out.append("$" + str(rng.choice((1, 2, 3, 4, 5, 6, 10, 13, 14, 15, 16, 17, 18, 19))))
        if rng.random() < cfg["comment_rate"]:
            out.append(_comment(rng))
        if depth < 2 and ply > 2 and rng.random() < cfg["variation_rate"]:
            var = _moves(rng, no, white is False, rng.randint(1, 6), cfg, depth + 1, bias)
            out.append("(" + " ".join(var) + ")")
        if not white:
            no += 1
        white = not white
        ply += 1
    return out


def make_game(rng, cfg):
    result = rng.choice(RESULTS)
    w_elo = rng.randint(1400, 2800)
    b_elo = w_elo + rng.randint(-300, 300)
    if result == "1-0":
        w_elo += 80
    elif result == "0-1":
        b_elo += 80
    bias = {"1-0": (0.12, 0.03), "0-1": (0.03, 0.12), "1/2-1/2": (0.05, 0.05)}[result]
    plies = rng.randint(cfg["min_plies"], cfg["max_plies"])
    if result == "1/2-1/2":
        plies = max(cfg["min_plies"], plies - 20)
    moves = _moves(rng, 1, False, plies, cfg, 0, bias)
    tags = [
        ("Event", rng.choice(EVENTS)),
        ("Site", "?"),
        ("Date", f"20{rng.randint(10, 24):02d}.{rng.randint(1, 12):02d}.{rng.randint(1, 28):02d}"),
        ("Round", str(rng.randint(1, 11))),
        ("White", rng.choice(NAMES)),
        ("Black", rng.choice(NAMES)),
        ("Result", result),
        ("WhiteElo", str(w_elo)),
        ("BlackElo", str(b_elo)),
        ("ECO", rng.choice("ABCDE") + f"{rng.randint(0, 99):02d}"),
    ]
    head = "\n".join(f'[{k} "{v}"]' for k, v in tags)
    # wrap the move text at ~80 columns, as PGN exporters do
    lines, cur = [], ""
    for tok in moves + [result]:
        if cur and len(cur) + 1 + len(tok) > 79:
            lines.append(cur)
            cur = tok
        else:
            cur = f"{cur} {tok}" if cur else tok
    lines.append(cur)
    return head + "\n\n" + "\n".join(lines) + "\n"


def make_corpus(cfg, seed):
    rng = random.Random(seed)
    return [make_game(rng, cfg) for _ in range(cfg["num_games"])]
