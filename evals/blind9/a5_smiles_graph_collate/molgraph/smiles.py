"""A small SMILES subset: organic-subset atoms (C N O S F Cl), branches, ring closures, = and # bonds."""

ELEMENTS = ("C", "N", "O", "S", "F", "Cl")
VALENCE = {"C": 4, "N": 3, "O": 2, "S": 2, "F": 1, "Cl": 1}
BOND_CHARS = {"-": 1, "=": 2, "#": 3}
BOND_SYMBOL = {1: "", 2: "=", 3: "#"}


class SmilesError(ValueError):
    pass


def parse_smiles(smiles):
    """Recursive-descent parser -> (atoms, bonds) with bonds as (i, j, order)."""
    atoms, bonds = [], []
    rings = {}
    pos = 0

    def chain(prev):
        nonlocal pos
        order = 1
        while pos < len(smiles):
            ch = smiles[pos]
            if ch == "(":
                if prev is None:
                    raise SmilesError(f"branch without an atom at {pos}")
                pos += 1
                chain(prev)
                if pos >= len(smiles) or smiles[pos] != ")":
                    raise SmilesError(f"unclosed branch in {smiles!r}")
                pos += 1
            elif ch == ")":
                return
            elif ch in BOND_CHARS:
                order = BOND_CHARS[ch]
                pos += 1
            elif ch.isdigit():
                digit = int(ch)
                if digit in rings:
                    other, ring_order = rings.pop(digit)
                    bonds.append((other, prev, max(order, ring_order)))
                else:
                    rings[digit] = (prev, order)
                order = 1
                pos += 1
            else:
                symbol = smiles[pos:pos + 2] if smiles[pos:pos + 2] == "Cl" else ch
                if symbol not in VALENCE:
                    raise SmilesError(f"unknown atom {symbol!r} at {pos}")
                atoms.append(symbol)
                idx = len(atoms) - 1
                if prev is not None:
                    bonds.append((prev, idx, order))
                order = 1
                prev = idx
                pos += len(symbol)

    chain(None)
    if rings:
        raise SmilesError(f"unclosed rings {sorted(rings)} in {smiles!r}")
    return atoms, bonds


def write_smiles(atoms, bonds):
    """DFS writer (recursive): spanning-tree bonds as chain/branches, the rest as ring closures."""
    nbrs = [[] for _ in atoms]
    for i, j, o in bonds:
        nbrs[i].append((j, o))
        nbrs[j].append((i, o))
    visited = [False] * len(atoms)
    tree = set()

    def span(u):
        visited[u] = True
        for v, _ in nbrs[u]:
            if not visited[v]:
                tree.add((min(u, v), max(u, v)))
                span(v)

    span(0)
    closures = {}
    next_digit = 1
    for i, j, o in bonds:
        if (min(i, j), max(i, j)) not in tree:
            closures.setdefault(i, []).append((next_digit, o))
            closures.setdefault(j, []).append((next_digit, 0))
            next_digit += 1
    done = [False] * len(atoms)

    def emit(u):
        done[u] = True
        out = atoms[u] + "".join(BOND_SYMBOL.get(o, "") + str(d) for d, o in closures.get(u, []))
        kids = [(v, o) for v, o in nbrs[u] if not done[v] and (min(u, v), max(u, v)) in tree]
        for k, (v, o) in enumerate(kids):
            if done[v]:
                continue
            part = BOND_SYMBOL[o] + emit(v)
            out += part if k == len(kids) - 1 else "(" + part + ")"
        return out

    return emit(0)
