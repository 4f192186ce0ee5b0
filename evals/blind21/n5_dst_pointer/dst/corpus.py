"""Synthetic MultiWOZ-like dialogues: per turn a user utterance (token ids) and the slot values it sets."""
import random

from torch.utils.data import Dataset

GATE_NONE, GATE_DONTCARE, GATE_SPAN = 0, 1, 2
SPECIAL = {"<pad>": 0, "<sys>": 1, "<usr>": 2, "dontcare": 3}


def make_dialogues(n, min_turns, max_turns, min_len, max_len, vocab_size, num_slots, seed):
    rng = random.Random(seed)
    first_word = len(SPECIAL)
    # every slot has a small set of multi-token values, drawn from its own part of the vocabulary
    values = {s: [[rng.randrange(first_word, vocab_size) for _ in range(rng.randint(1, 3))] for _ in range(8)]
              for s in range(num_slots)}
    domains = [list(range(k, num_slots, 3)) for k in range(3)]
    dialogues = []
    for d in range(n):
        domain = rng.choice(domains)
        turns = []
        for _ in range(rng.randint(min_turns, max_turns)):
            length = rng.randint(min_len, max_len)
            tokens = [SPECIAL["<usr>"]] + [rng.randrange(first_word, vocab_size) for _ in range(length - 1)]
            spans, gates = {}, {}
            for slot in rng.sample(domain, rng.randint(0, min(3, len(domain)))):
                if rng.random() < 0.15:
                    gates[slot] = GATE_DONTCARE
                    tokens[rng.randrange(1, length)] = SPECIAL["dontcare"]
                    continue
                value = rng.choice(values[slot])
                start = rng.randrange(1, length - len(value) + 1)
                if any(start <= e and s <= start + len(value) - 1 for s, e in spans.values()):
                    continue  # would overlap a value already placed in this turn
                tokens[start:start + len(value)] = value
                spans[slot] = (start, start + len(value) - 1)
                gates[slot] = GATE_SPAN
            turns.append({"tokens": tokens, "spans": spans, "gates": gates})
        dialogues.append({"dialogue_id": f"SNG{d:05d}", "turns": turns})
    return dialogues


class DialogueCorpus(Dataset):
    def __init__(self, dialogues):
        self.dialogues = dialogues

    def __len__(self):
        return len(self.dialogues)

    def __getitem__(self, idx):
        return self.dialogues[idx]

    def lengths(self):
        return [len(d["turns"]) for d in self.dialogues]
