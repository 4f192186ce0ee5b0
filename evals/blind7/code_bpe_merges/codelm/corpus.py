"""Synthetic Python-ish source files: small functions with loops, ifs and arithmetic."""
import random

WORDS = [
    "get", "set", "user", "item", "count", "index", "value", "buffer", "parse", "config",
    "total", "max", "min", "list", "dict", "node", "tree", "path", "file", "name", "data",
    "result", "token", "size", "offset", "line", "row", "col", "key", "cache", "load", "save",
    "read", "write", "update", "check", "valid", "batch", "step", "score",
]
BUILTINS = ["len", "range", "sum", "min", "max", "sorted", "enumerate", "zip", "print", "int", "str"]
OPS = ["+", "-", "*", "//", "%"]
CMP = ["<", ">", "<=", ">=", "==", "!="]
LOOP_VARS = ["i", "j", "k", "idx", "n"]


def identifier(rng, style):
    parts = [rng.choice(WORDS) for _ in range(rng.randint(1, 3))]
    if style == "snake":
        return "_".join(parts)
    return parts[0] + "".join(p.capitalize() for p in parts[1:])


def expression(rng, names, depth=0):
    r = rng.random()
    if depth > 1 or r < 0.3:
        if names and rng.random() < 0.7:
            return rng.choice(names)
        return str(rng.randint(0, 99))
    if r < 0.55:
        return f"{expression(rng, names, depth + 1)} {rng.choice(OPS)} {expression(rng, names, depth + 1)}"
    if r < 0.8:
        return f"{rng.choice(BUILTINS)}({expression(rng, names, depth + 1)})"
    return f"{rng.choice(names) if names else 'self'}[{expression(rng, names, depth + 1)}]"


def function_source(rng):
    style = "snake" if rng.random() < 0.7 else "camel"
    fname = identifier(rng, style)
    args = [identifier(rng, style) for _ in range(rng.randint(1, 3))]
    names = list(args)
    lines = [f"def {fname}({', '.join(args)}):"]
    for _ in range(rng.randint(2, 4)):
        kind = rng.random()
        if kind < 0.45:
            var = identifier(rng, style)
            lines.append(f"    {var} = {expression(rng, names)}")
            names.append(var)
        elif kind < 0.7:
            i = rng.choice(LOOP_VARS)
            lines.append(f"    for {i} in range({expression(rng, names)}):")
            lines.append(f"        {rng.choice(names)} += {expression(rng, names + [i])}")
        else:
            lines.append(f"    if {rng.choice(names)} {rng.choice(CMP)} {expression(rng, names)}:")
            lines.append(f"        return {expression(rng, names)}")
    lines.append(f"    return {rng.choice(names)}")
    return "\n".join(lines) + "\n"


def build_corpus(n_files, seed):
    rng = random.Random(seed)
    return [function_source(rng) for _ in range(n_files)]
