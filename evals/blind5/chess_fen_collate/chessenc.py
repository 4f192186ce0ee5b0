"""FEN parsing and board encoding: 12 piece planes + 2 attack planes, plus a small meta vector."""

PIECES = "PNBRQKpnbrqk"
PLANE = {p: i for i, p in enumerate(PIECES)}
KNIGHT_STEPS = [(-2, -1), (-2, 1), (-1, -2), (-1, 2), (1, -2), (1, 2), (2, -1), (2, 1)]
KING_STEPS = [(-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1)]
ROOK_DIRS = [(-1, 0), (1, 0), (0, -1), (0, 1)]
BISHOP_DIRS = [(-1, -1), (-1, 1), (1, -1), (1, 1)]
VALUES = {"p": 1, "n": 3, "b": 3, "r": 5, "q": 9, "k": 0}
# colour flip: white planes <-> black planes, attack planes swapped
MIRROR_ORDER = [6, 7, 8, 9, 10, 11, 0, 1, 2, 3, 4, 5, 13, 12]


def parse_fen(fen):
    """Board as 8x8 list (rank 8 first, file a first) of piece letters or None."""
    placement, side, castling, _ep, halfmove, _fullmove = fen.split()
    board = [[None] * 8 for _ in range(8)]
    for r, row in enumerate(placement.split("/")):
        f = 0
        for ch in row:
            if ch.isdigit():
                f += int(ch)
            else:
                board[r][f] = ch
                f += 1
    return board, side, castling, int(halfmove)


def attack_map(board, white):
    """1.0 on every square attacked by the given colour (sliders stop at the first piece)."""
    att = [[0.0] * 8 for _ in range(8)]
    for r in range(8):
        for f in range(8):
            piece = board[r][f]
            if piece is None or piece.isupper() != white:
                continue
            kind = piece.lower()
            if kind == "p":
                dr = -1 if white else 1
                for df in (-1, 1):
                    if 0 <= r + dr < 8 and 0 <= f + df < 8:
                        att[r + dr][f + df] = 1.0
            elif kind in "nk":
                for dr, df in (KNIGHT_STEPS if kind == "n" else KING_STEPS):
                    if 0 <= r + dr < 8 and 0 <= f + df < 8:
                        att[r + dr][f + df] = 1.0
            else:
                dirs = ROOK_DIRS if kind == "r" else BISHOP_DIRS if kind == "b" else ROOK_DIRS + BISHOP_DIRS
                for dr, df in dirs:
                    rr, ff = r + dr, f + df
                    while 0 <= rr < 8 and 0 <= ff < 8:
                        att[rr][ff] = 1.0
                        if board[rr][ff] is not None:
                            break
                        rr += dr
                        ff += df
    return att


def encode_fen(fen):
    board, side, castling, halfmove = parse_fen(fen)
    planes = [[[0.0] * 8 for _ in range(8)] for _ in range(12)]
    for r in range(8):
        for f in range(8):
            piece = board[r][f]
            if piece is not None:
                planes[PLANE[piece]][r][f] = 1.0
    planes.append(attack_map(board, True))
    planes.append(attack_map(board, False))
    meta = [1.0 if side == "w" else 0.0]
    meta += [1.0 if c in castling else 0.0 for c in "KQkq"]
    meta.append(min(halfmove, 100) / 100.0)
    return planes, meta


def mirror(planes, meta):
    """The same position seen from the other side: ranks reversed, colours swapped."""
    flipped = [[row[:] for row in planes[src][::-1]] for src in MIRROR_ORDER]
    new_meta = [1.0 - meta[0], meta[3], meta[4], meta[1], meta[2], meta[5]]
    return flipped, new_meta


def material_balance(fen):
    score = 0
    for ch in fen.split()[0]:
        if ch.isalpha():
            score += VALUES[ch.lower()] * (1 if ch.isupper() else -1)
    return score


def balance_bucket(score):
    if score <= -3:
        return 0
    if score < 0:
        return 1
    if score == 0:
        return 2
    if score < 3:
        return 3
    return 4
