"""Synthetic wiki-style tables (CSV text) with lookup questions, and a batched map-style dataset."""
import csv
import io
import random

import torch
from torch.utils.data import Dataset

CITIES = ["Lisbon", "Osaka", "Nairobi", "Quito", "Tallinn", "Hobart", "Da Nang", "Reykjavik", "Porto Alegre",
          "Winnipeg", "Marrakesh", "Kraków", "Cebu City", "San Sebastián", "Thessaloniki", "Ulaanbaatar"]
PEOPLE = ["Ada Lovelace", "Grace Hopper", "Alan Turing", "Katherine Johnson", "Edsger Dijkstra",
          "Barbara Liskov", "Donald Knuth", "Margaret Hamilton", "Tim Berners-Lee", "Radia Perlman",
          "John McCarthy", "Frances Allen", "Ken Thompson", "Shafi Goldwasser", "Leslie Lamport"]
SCHEMAS = [
    ("city", ["City", "Country code", "Population", "Area (km2)", "Founded", "Mayor"]),
    ("person", ["Name", "Born", "Field", "Awards", "Notable work", "Nationality"]),
    ("club", ["Club", "Founded", "Stadium", "Capacity", "League titles", "Manager"]),
]
FIELDS = ["compilers", "distributed systems", "cryptography", "programming languages", "networking",
          "numerical analysis", "operating systems", "formal verification"]
WORKS = ["The Art of Computer Programming", "TLA+", "Paxos", "THE multiprogramming system", "Unix",
         "Apollo guidance software", "CLU", "World Wide Web", "Spanning Tree Protocol", "LISP", "COBOL"]


def _cell(rng, kind, column):
    if column in ("Population", "Capacity"):
        return f"{rng.randint(1_000, 9_999_999):,}"
    if column in ("Area (km2)",):
        return f"{rng.uniform(10, 3000):.1f}"
    if column in ("Founded", "Born"):
        return f"{rng.randint(1, 28)} {rng.choice(['January', 'March', 'June', 'October'])} {rng.randint(1100, 2001)}"
    if column in ("League titles", "Awards"):
        return str(rng.randint(0, 40))
    if column == "Country code":
        return rng.choice(["PT", "JP", "KE", "EC", "EE", "AU", "VN", "IS", "BR", "CA", "MA", "PL"])
    if column == "Field":
        return rng.choice(FIELDS)
    if column == "Notable work":
        return rng.choice(WORKS)
    if column == "Stadium":
        return f"Estadio {rng.choice(PEOPLE).split()[-1]}"
    if column in ("Mayor", "Manager", "Nationality"):
        return rng.choice(PEOPLE) if column != "Nationality" else rng.choice(["British", "American", "Dutch"])
    if column == "Club":
        return f"{rng.choice(CITIES)} {rng.choice(['United', 'FC', 'Athletic', 'Rovers'])}"
    if column == "Name":
        return rng.choice(PEOPLE)
    return rng.choice(CITIES)


def generate_tables(n, per_table, seed):
    rng = random.Random(seed)
    examples = []
    for t in range(n):
        kind, header = rng.choice(SCHEMAS)
        header = header[:rng.randint(4, len(header))]
        rows = [[_cell(rng, kind, col) for col in header] for _ in range(rng.randint(6, 18))]
        buf = io.StringIO()
        csv.writer(buf).writerows([header] + rows)
        text = buf.getvalue()
        for _ in range(per_table):
            r, c = rng.randrange(len(rows)), rng.randrange(1, len(header))
            q = f"What is the {header[c].lower()} of {rows[r][0]}?"
            examples.append({"table_id": t, "csv": text, "question": q, "answer": (r, c)})
    return examples


class TableQADataset(Dataset):
    """Rows are shuffled per draw (tables have no inherent row order); supports batched fetching."""

    def __init__(self, examples, seed):
        self.examples = examples
        self.generator = torch.Generator().manual_seed(seed)
        self._parsed = {}

    def __len__(self):
        return len(self.examples)

    def _table(self, ex):
        table = self._parsed.get(ex["table_id"])
        if table is None:
            table = self._parsed[ex["table_id"]] = list(csv.reader(io.StringIO(ex["csv"])))
        return table

    def __getitems__(self, indices):
        batch = []
        for i in indices:
            ex = self.examples[i]
            header, *rows = self._table(ex)
            perm = torch.randperm(len(rows), generator=self.generator).tolist()
            r, c = ex["answer"]
            batch.append({"question": ex["question"], "header": header, "rows": [rows[p] for p in perm],
                          "answer": (perm.index(r), c)})
        return batch

    def __getitem__(self, i):
        return self.__getitems__([i])[0]
