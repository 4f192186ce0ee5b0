from dataclasses import dataclass

import torch

from .corpus import GATE_SPAN

IGNORE_INDEX = -100


@dataclass
class DSTCollator:
    """Pads a list of dialogues to (batch, turns, tokens) and builds (batch, turns, slots) targets."""

    num_slots: int
    pad_id: int = 0

    def __call__(self, dialogues):
        batch_size = len(dialogues)
        max_turns = max(len(d["turns"]) for d in dialogues)
        max_len = max(len(turn["tokens"]) for d in dialogues for turn in d["turns"])
        shape3 = (batch_size, max_turns, self.num_slots)

        input_ids = torch.full((batch_size, max_turns, max_len), self.pad_id, dtype=torch.long)
        token_mask = torch.zeros((batch_size, max_turns, max_len), dtype=torch.bool)
        turn_mask = torch.zeros((batch_size, max_turns), dtype=torch.bool)
        gate_labels = torch.full(shape3, IGNORE_INDEX, dtype=torch.long)
        start_positions = torch.full(shape3, IGNORE_INDEX, dtype=torch.long)
        end_positions = torch.full(shape3, IGNORE_INDEX, dtype=torch.long)

        for b, dialogue in enumerate(dialogues):
            for t, turn in enumerate(dialogue["turns"]):
                turn_mask[b, t] = True
                for i, tok in enumerate(turn["tokens"]):
                    input_ids[b, t, i] = tok
                    token_mask[b, t, i] = True
                for s in range(self.num_slots):
                    gate = turn["gates"].get(s, 0)
                    gate_labels[b, t, s] = gate
                    if gate == GATE_SPAN:
                        start, end = turn["spans"][s]
                        start_positions[b, t, s] = start
                        end_positions[b, t, s] = end

        return {
            "input_ids": input_ids,
            "token_mask": token_mask,
            "turn_mask": turn_mask,
            "gate_labels": gate_labels,
            "start_positions": start_positions,
            "end_positions": end_positions,
        }
