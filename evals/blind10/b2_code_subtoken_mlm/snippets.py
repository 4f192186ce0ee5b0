"""Synthetic Python source files, shaped like functions scraped from public repositories."""
import random

WORDS = ("get set load save read write parse build make init update reset check validate compute "
         "apply fetch send open close start stop run process handle create delete find filter map "
         "sort merge split join format render encode decode convert normalize scale resize crop "
         "user item order price total count index value key name path file line text token word "
         "batch size shape data config model layer weight bias grad loss score label image frame "
         "buffer cache queue stack node tree graph edge list dict table row column field record "
         "request response client server session context handler manager factory builder parser "
         "max min sum avg mean std num len idx pos offset start end first last next prev tmp").split()
RARE = ("zorp quix blarg fizzle wump snark grom trundle vex plonk kibble yonder mirth gloam "
        "thrum quell brisk").split()
BUILTINS = ["range", "enumerate", "sorted", "reversed", "list", "zip", "iter", "set"]
ACRONYMS = ["HTTP", "URL", "JSON", "XML", "ID", "IO", "API", "SQL", "CSV", "GPU"]


def identifier(rng, style=None):
    parts = [rng.choice(WORDS) for _ in range(rng.randint(1, 3))]
    if rng.random() < 0.15:
        parts[rng.randrange(len(parts))] = rng.choice(RARE)
    if rng.random() < 0.1:
        parts.append(rng.choice(ACRONYMS))
    style = style or rng.choice(["snake", "snake", "camel", "pascal"])
    if style == "snake":
        return "_".join(p.lower() for p in parts)
    if style == "camel":
        return parts[0].lower() + "".join(p if p.isupper() else p.capitalize() for p in parts[1:])
    return "".join(p if p.isupper() else p.capitalize() for p in parts)


def literal(rng):
    r = rng.random()
    if r < 0.4:
        return str(rng.randint(0, 4096))
    if r < 0.6:
        return f"{rng.uniform(0, 10):.{rng.randint(1, 4)}f}"
    if r < 0.9:
        return repr(" ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 4))))
    return rng.choice(["None", "True", "False"])


def statement(rng, names, depth):
    kind = rng.random()
    ind = "    " * depth
    target = rng.choice(names) if rng.random() < 0.6 else identifier(rng, "snake")
    if kind < 0.35 or depth >= 3:
        op = rng.choice(["=", "+=", "-=", "*="])
        rhs = rng.choice([
            f"{rng.choice(names)} {rng.choice('+-*/%')} {literal(rng)}",
            f"{rng.choice(names)}.{identifier(rng, 'snake')}({literal(rng)})",
            f"{identifier(rng, 'snake')}({rng.choice(names)}, {literal(rng)})",
            f"[{rng.choice(names)} for {target} in {rng.choice(names)} if {target}]",
            f"{{{literal(rng)}: {rng.choice(names)}}}",
        ])
        return [f"{ind}{target} {op} {rhs}"]
    if kind < 0.5:
        return [f"{ind}# {' '.join(rng.choice(WORDS) for _ in range(rng.randint(2, 7)))}"]
    if kind < 0.7:
        body = [line for _ in range(rng.randint(1, 3)) for line in statement(rng, names + [target], depth + 1)]
        return [f"{ind}for {target} in {rng.choice(BUILTINS)}({rng.choice(names)}):"] + body
    if kind < 0.9:
        body = [line for _ in range(rng.randint(1, 3)) for line in statement(rng, names, depth + 1)]
        other = [line for _ in range(rng.randint(1, 2)) for line in statement(rng, names, depth + 1)]
        return [f"{ind}if {target} {rng.choice(['==', '<', '>=', 'is not'])} {literal(rng)}:"] + body + \
            [f"{ind}else:"] + other
    return [f"{ind}{identifier(rng, 'snake')}.{identifier(rng, 'camel')}({target}, {literal(rng)})"]


def function_source(rng):
    name = identifier(rng)
    args = list(dict.fromkeys(identifier(rng, "snake") for _ in range(rng.randint(1, 4))))
    lines = [f"def {name}({', '.join(args)}):",
             f'    """{" ".join(rng.choice(WORDS) for _ in range(rng.randint(3, 10))).capitalize()}."""']
    names = list(args)
    for _ in range(rng.randint(12, 26)):
        lines += statement(rng, names, 1)
        if rng.random() < 0.3:
            names.append(identifier(rng, "snake"))
            lines.append(f"    {names[-1]} = {literal(rng)}")
    lines.append(f"    return {rng.choice(names)}")
    return "\n".join(lines) + "\n"


def make_corpus(n, seed):
    rng = random.Random(seed)
    return [function_source(rng) for _ in range(n)]
