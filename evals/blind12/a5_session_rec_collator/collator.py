"""Padding collator for the session cloze task (in the spirit of transformers' data collators)."""
from bisect import bisect_right
from dataclasses import dataclass, field
from datetime import datetime, timezone

import numpy as np
import torch

PAD_ID = 0
VIEW, CART, PURCHASE = 0, 1, 2
IGNORE_INDEX = -100


@dataclass
class DataCollatorForSessionCloze:
    """Turns raw session dicts ({"items", "ts", "types"}) into padded model inputs.

    * consecutive repeated views of the same item collapse into the first view;
    * the last `max_len` events are kept;
    * per position: the time gap to the previous kept event as a log-spaced bucket
      (0 pad, 1 first event, 2 + bisect_right(boundaries, gap) otherwise), the dwell time until the
      next kept event bucketed the same way (1 for the last event), the UTC hour of day (1..24) and
      how often the item was already seen earlier in the kept session (1 + min(count, 3));
    * BERT4Rec-style cloze: each position is a target with probability `mask_prob`; a target
      input becomes MASK (80%), a random item (10%) or stays (10%). A session with no target
      gets its last position as target.
    """
    n_items: int
    max_len: int
    mask_prob: float
    gap_boundaries: list
    seed: int = 0
    rng: np.random.Generator = field(init=False, repr=False)

    def __post_init__(self):
        self.mask_id = self.n_items + 1
        self.rng = np.random.default_rng(self.seed)

    def _dedupe(self, items, ts, types):
        out_i, out_t, out_y = [], [], []
        k = 0
        while k < len(items):
            out_i.append(items[k])
            out_t.append(ts[k])
            out_y.append(types[k])
            j = k + 1
            while j < len(items) and types[k] == VIEW and types[j] == VIEW and items[j] == items[k]:
                j += 1
            k = j
        return out_i, out_t, out_y

    def __call__(self, sessions):
        width = 0
        rows = []
        for sess in sessions:
            items, ts, types = self._dedupe(sess["items"], sess["ts"], sess["types"])
            items, ts, types = items[-self.max_len:], ts[-self.max_len:], types[-self.max_len:]
            rows.append((items, ts, types))
            width = max(width, len(items))
        input_ids, labels, gap_ids, dwell_ids, hour_ids, repeat_ids, type_ids, attention = ([] for _ in range(8))
        for items, ts, types in rows:
            n = len(items)
            u = self.rng.random((n, 2))  # column 0: target draw, column 1: replacement item
            ids, lab, gaps, dwell, hours, repeats = [], [], [], [], [], []
            seen = {}
            for pos, (item, t) in enumerate(zip(items, ts)):
                gaps.append(1 if pos == 0 else 2 + bisect_right(self.gap_boundaries, t - ts[pos - 1]))
                dwell.append(1 if pos == n - 1 else 2 + bisect_right(self.gap_boundaries, ts[pos + 1] - t))
                hours.append(datetime.fromtimestamp(t, timezone.utc).hour + 1)
                repeats.append(1 + min(seen.get(item, 0), 3))
                seen[item] = seen.get(item, 0) + 1
                draw, pick = u[pos]
                if draw < self.mask_prob:
                    lab.append(item)
                    if draw < 0.8 * self.mask_prob:
                        ids.append(self.mask_id)
                    elif draw < 0.9 * self.mask_prob:
                        ids.append(1 + int(pick * self.n_items))
                    else:
                        ids.append(item)
                else:
                    lab.append(IGNORE_INDEX)
                    ids.append(item)
            if all(x == IGNORE_INDEX for x in lab):
                lab[-1] = items[-1]
                ids[-1] = self.mask_id
            pad = width - n
            input_ids.append(ids + [PAD_ID] * pad)
            labels.append(lab + [IGNORE_INDEX] * pad)
            gap_ids.append(gaps + [0] * pad)
            dwell_ids.append(dwell + [0] * pad)
            hour_ids.append(hours + [0] * pad)
            repeat_ids.append(repeats + [0] * pad)
            type_ids.append([y + 1 for y in types] + [0] * pad)
            attention.append([1] * n + [0] * pad)
        return {
            "input_ids": torch.tensor(input_ids, dtype=torch.long),
            "labels": torch.tensor(labels, dtype=torch.long),
            "gap_bucket_ids": torch.tensor(gap_ids, dtype=torch.long),
            "dwell_bucket_ids": torch.tensor(dwell_ids, dtype=torch.long),
            "hour_ids": torch.tensor(hour_ids, dtype=torch.long),
            "repeat_ids": torch.tensor(repeat_ids, dtype=torch.long),
            "event_type_ids": torch.tensor(type_ids, dtype=torch.long),
            "attention_mask": torch.tensor(attention, dtype=torch.bool),
        }
