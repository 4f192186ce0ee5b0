"""Gate-level netlists of five circuit families, as graphs (node types + wire list)."""
import random

import torch

GATE_TYPES = ["IN", "OUT", "AND", "OR", "XOR", "NOT", "MUX", "DFF"]


class Netlist:
    def __init__(self):
        self.types = []
        self.edges = []  # (driver, sink), no duplicates in either direction
        self._wires = set()

    def add(self, kind, *inputs):
        g = len(self.types)
        self.types.append(kind)
        for i in inputs:
            self.connect(i, g)
        return g

    def connect(self, a, b):
        if a == b or (a, b) in self._wires or (b, a) in self._wires:
            return
        self._wires.add((a, b))
        self.edges.append((a, b))

    def maybe_not(self, net, rng, p):
        return self.add("NOT", net) if rng.random() < p else net


def ripple_adder(rng):
    nl = Netlist()
    carry = nl.add("IN")
    for _ in range(rng.randint(5, 11)):
        a, b = nl.add("IN"), nl.add("IN")
        x1 = nl.add("XOR", a, b)
        nl.add("OUT", nl.add("XOR", x1, carry))
        carry = nl.add("OR", nl.add("AND", a, b), nl.add("AND", x1, carry))
    nl.add("OUT", carry)
    return nl


def mux_tree(rng):
    nl = Netlist()
    levels = rng.randint(4, 5)
    sel = [nl.add("IN") for _ in range(levels)]
    layer = [nl.maybe_not(nl.add("IN"), rng, 0.3) for _ in range(2 ** levels)]
    depth = 0
    while len(layer) > 1:
        layer = [nl.add("MUX", layer[i], layer[i + 1], sel[depth]) for i in range(0, len(layer), 2)]
        depth += 1
    nl.add("OUT", layer[0])
    return nl


def parity_tree(rng):
    nl = Netlist()
    layer = [nl.maybe_not(nl.add("IN"), rng, 0.2) for _ in range(rng.randint(14, 32))]
    if rng.random() < 0.5:
        acc = layer[0]
        for x in layer[1:]:
            acc = nl.add("XOR", acc, x)
    else:
        while len(layer) > 1:
            nxt = [nl.add("XOR", layer[i], layer[i + 1]) for i in range(0, len(layer) - 1, 2)]
            if len(layer) % 2:
                nxt.append(layer[-1])
            layer = nxt
        acc = layer[0]
    nl.add("OUT", acc)
    return nl


def decoder(rng):
    nl = Netlist()
    k = rng.randint(4, 5)
    ins = [nl.add("IN") for _ in range(k)]
    inv = [nl.add("NOT", i) for i in ins]
    for code in range(2 ** k):
        terms = [ins[b] if code >> b & 1 else inv[b] for b in range(k)]
        nl.add("OUT", nl.add("AND", *terms))
    return nl


def counter(rng):
    nl = Netlist()
    enable, reset = nl.add("IN"), nl.add("IN")
    nreset = nl.add("NOT", reset)
    toggle = enable
    qs = []
    for _ in range(rng.randint(6, 13)):
        q = nl.add("DFF")
        d = nl.add("AND", nl.add("XOR", q, toggle), nreset)
        nl.connect(d, q)  # next-state wire: a cycle through the flip-flop
        nl.add("OUT", q)
        toggle = nl.add("AND", toggle, q)
        qs.append(q)
    return nl


FAMILIES = {"ripple_adder": ripple_adder, "mux_tree": mux_tree, "parity_tree": parity_tree,
            "decoder": decoder, "counter": counter}


def node_features(nl):
    n = len(nl.types)
    fanin = [0] * n
    fanout = [0] * n
    for a, b in nl.edges:
        fanout[a] += 1
        fanin[b] += 1
    rows = []
    for i, kind in enumerate(nl.types):
        onehot = [0.0] * len(GATE_TYPES)
        onehot[GATE_TYPES.index(kind)] = 1.0
        rows.append(onehot + [fanin[i] / 4.0, fanout[i] / 4.0])
    return torch.tensor(rows, dtype=torch.float32)


def make_dataset(num_graphs, families, seed):
    rng = random.Random(seed)
    graphs = []
    for i in range(num_graphs):
        label = i % len(families)
        nl = FAMILIES[families[label]](rng)
        graphs.append({"x": node_features(nl), "edges": list(nl.edges), "y": label})
    rng.shuffle(graphs)
    return graphs
