"""Synthetic web tables with lookup questions (WikiTableQuestions-like, cells are raw strings)."""
import random

DOMAINS = {
    "cities": (["city", "country", "population", "area km2", "founded", "mayor", "elevation m"],
               ["Lyon", "Porto", "Gdansk", "Tampere", "Graz", "Ghent", "Bilbao", "Turin", "Brno", "Malmo",
                "Cork", "Split", "Aarhus", "Leeds", "Basel", "Utrecht"]),
    "players": (["player", "team", "position", "goals", "assists", "minutes", "nationality"],
                ["J. Alvarez", "K. Mbappe", "S. Kerr", "P. Foden", "A. Putellas", "V. Miedema", "L. Messi",
                 "M. Salah", "E. Haaland", "C. Pulisic", "H. Kane", "B. Saka", "S. Mane", "R. Lewandowski"]),
    "albums": (["album", "artist", "release date", "label", "tracks", "length", "peak chart position"],
               ["Blue Lines", "Homogenic", "Kid A", "Discovery", "Illmatic", "Vespertine", "Dummy", "Moon Safari",
                "Mezzanine", "Endtroducing", "Maxinquaye", "Selected Ambient Works", "Music Has the Right"]),
}
WORDS = ("north south united royal city club records sound atlantic parlophone warp island virgin "
         "forward midfielder defender keeper spain france england brazil norway poland").split()


def _cell(rng, col, header):
    h = header.lower()
    if any(k in h for k in ("population", "goals", "assists", "minutes", "tracks", "area", "elevation", "position")):
        v = rng.randint(1, 2_000_000) if "population" in h else rng.randint(0, 4000)
        return f"{v:,}" if v >= 1000 and rng.random() < 0.7 else str(v)
    if "date" in h or "founded" in h:
        return f"{rng.randint(1, 28)} {rng.choice(['January', 'March', 'June', 'October'])} {rng.randint(1850, 2023)}"
    if "length" in h:
        return f"{rng.randint(30, 79)}:{rng.randint(0, 59):02d}"
    return " ".join(rng.choice(WORDS).capitalize() for _ in range(rng.randint(1, 4)))


def make_table(rng, max_rows, max_cols):
    domain = rng.choice(sorted(DOMAINS))
    headers, keys = DOMAINS[domain]
    n_cols = rng.randint(3, min(max_cols, len(headers)))
    cols = [0] + sorted(rng.sample(range(1, len(headers)), n_cols - 1))
    header = [headers[c] for c in cols]
    n_rows = rng.randint(5, max_rows)
    names = rng.sample(keys, min(n_rows, len(keys)))
    rows = [[name] + [_cell(rng, c, headers[c]) for c in cols[1:]] for name in names]
    target_row = rng.randrange(len(rows))
    target_col = rng.randrange(1, len(header))
    question = rng.choice(["what is the {h} of {k}?", "{k}: which {h}?", "how about the {h} for {k}",
                           "tell me the {h} listed for {k}"]).format(h=header[target_col], k=rows[target_row][0])
    return {"question": question, "header": header, "rows": rows, "answer_col": target_col,
            "answer_text": rows[target_row][target_col]}


def make_corpus(seed, n, max_rows, max_cols):
    rng = random.Random(seed)
    return [make_table(rng, max_rows, max_cols) for _ in range(n)]
