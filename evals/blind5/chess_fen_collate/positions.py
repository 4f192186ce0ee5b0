"""Random (not necessarily legal) middlegame-ish positions as FEN strings."""
import random

from chessenc import balance_bucket, material_balance

STOCK = [("P", 8, 1, 6), ("N", 2, 0, 7), ("B", 2, 0, 7), ("R", 2, 0, 7), ("Q", 1, 0, 7)]


def _placement(board):
    rows = []
    for r in range(8):
        out, empty = "", 0
        for f in range(8):
            p = board[r][f]
            if p is None:
                empty += 1
            else:
                if empty:
                    out += str(empty)
                    empty = 0
                out += p
        if empty:
            out += str(empty)
        rows.append(out)
    return "/".join(rows)


def random_fen(rng):
    board = [[None] * 8 for _ in range(8)]
    free = [(r, f) for r in range(8) for f in range(8)]
    rng.shuffle(free)
    board[free[0][0]][free[0][1]] = "K"
    board[free[1][0]][free[1][1]] = "k"
    used = 2
    for white in (True, False):
        for letter, most, lo, hi in STOCK:
            for _ in range(rng.randint(0, most)):
                # find a free square in the allowed rank range (pawns never on ranks 1/8)
                while used < 64:
                    r, f = free[used]
                    used += 1
                    if lo <= r <= hi:
                        board[r][f] = letter if white else letter.lower()
                        break
    side = rng.choice("wb")
    castling = "".join(c for c in "KQkq" if rng.random() < 0.3) or "-"
    return f"{_placement(board)} {side} {castling} - {rng.randint(0, 60)} {rng.randint(1, 80)}"


def make_positions(n, seed):
    rng = random.Random(seed)
    fens = [random_fen(rng) for _ in range(n)]
    labels = [balance_bucket(material_balance(f)) for f in fens]
    return fens, labels
