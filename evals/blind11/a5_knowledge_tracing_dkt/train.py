#!/usr/bin/env python
"""Deep knowledge tracing on raw answer logs.

    python train.py @kt.args

Each student's answer log is cut into a window of at most --max-len interactions; the model reads
interaction t (skill, correct) and predicts whether the answer at t + 1 is correct, reading out the
skills of question t + 1 through a multi-hot mask.
"""
import argparse
import random
from bisect import bisect_left
from collections import defaultdict
from dataclasses import dataclass
from datetime import datetime, timedelta

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset, Sampler

import evalkit


# ---------------------------------------------------------------- raw logs
def synth_answer_log(num_students, num_questions, num_skills, seed):
    """CSV export of an online tutor: user_id,timestamp,question_id,skill_ids,correct,elapsed_ms."""
    rng = random.Random(seed)
    q_skills = []
    for _ in range(num_questions):
        tags = rng.sample(range(num_skills), rng.choice([1, 1, 1, 2, 2, 3]))
        if rng.random() < 0.05:  # the authoring tool sometimes duplicates a tag
            tags.append(tags[0])
        q_skills.append(tags)
    difficulty = [rng.gauss(0, 1) for _ in range(num_questions)]
    lines = ["user_id,timestamp,question_id,skill_ids,correct,elapsed_ms"]
    t0 = datetime(2023, 9, 1, 8, 0, 0)
    for u in range(num_students):
        ability = rng.gauss(0, 1)
        mastery = defaultdict(float)
        clock = t0 + timedelta(days=rng.randint(0, 30))
        for _ in range(rng.randint(40, 600)):
            q = rng.randrange(num_questions)
            skill_term = sum(mastery[s] for s in q_skills[q]) / len(q_skills[q])
            p = 1.0 / (1.0 + pow(2.718281828, -(ability + skill_term - difficulty[q])))
            correct = 1 if rng.random() < p else 0
            for s in q_skills[q]:
                mastery[s] += 0.15 if correct else 0.05
            clock += timedelta(seconds=rng.choice([0, 0, 5, 30, 60, 600, 86400]))  # ties happen
            lines.append(f"u{u:05d},{clock:%Y-%m-%d %H:%M:%S},q{q},{';'.join(map(str, q_skills[q]))},"
                         f"{correct},{rng.randint(800, 120000)}")
    body = lines[1:]
    rng.shuffle(body)  # exports are not ordered
    return [lines[0]] + body


def parse_answer_log(lines):
    header = lines[0].split(",")
    col = {name: i for i, name in enumerate(header)}
    per_user = defaultdict(list)
    for row_no, line in enumerate(lines[1:]):
        f = line.split(",")
        ts = datetime.fromisoformat(f[col["timestamp"]])
        skills = [int(s) for s in f[col["skill_ids"]].split(";") if s]
        per_user[f[col["user_id"]]].append((ts, row_no, int(f[col["question_id"]][1:]), skills,
                                             int(f[col["correct"]])))
    students = []
    for user in sorted(per_user):
        events = sorted(per_user[user], key=lambda e: (e[0], e[1]))  # timestamp, then export order
        students.append({
            "user": user,
            "questions": [e[2] for e in events],
            "skills": [e[3] for e in events],
            "correct": [e[4] for e in events],
        })
    return students


# ---------------------------------------------------------------- dataset, sampler, collate
class AnswerLogDataset(Dataset):
    def __init__(self, students, max_len, seed):
        self.students = students
        self.max_len = max_len
        self.rng = random.Random(seed)

    def __len__(self):
        return len(self.students)

    def length(self, idx):
        return min(len(self.students[idx]["questions"]), self.max_len)

    def __getitem__(self, idx):
        s = self.students[idx]
        n = len(s["questions"])
        start = self.rng.randrange(n - self.max_len + 1) if n > self.max_len else 0
        end = start + self.max_len
        return {"user": s["user"], "questions": s["questions"][start:end],
                "skills": s["skills"][start:end], "correct": s["correct"][start:end]}


class BucketBatchSampler(Sampler):
    """Batches of students with similar window lengths; buckets and batches shuffled per epoch."""

    def __init__(self, dataset, bounds, batch_size, seed):
        self.batch_size = batch_size
        self.seed = seed
        self.epoch = 0
        self.buckets = defaultdict(list)
        for idx in range(len(dataset)):
            self.buckets[bisect_left(bounds, dataset.length(idx))].append(idx)

    def set_epoch(self, epoch):
        self.epoch = epoch

    def __iter__(self):
        rng = random.Random(self.seed + 7919 * self.epoch)
        batches = []
        for key in sorted(self.buckets):
            members = self.buckets[key][:]
            rng.shuffle(members)
            batches += [members[i:i + self.batch_size] for i in range(0, len(members), self.batch_size)]
        rng.shuffle(batches)
        return iter(batches)

    def __len__(self):
        return sum((len(m) + self.batch_size - 1) // self.batch_size for m in self.buckets.values())


@dataclass
class KTBatch:
    interactions: torch.Tensor  # (B, T-1) long, 0 = padding, else 1 + skill + num_skills * correct
    next_skills: torch.Tensor   # (B, T-1, num_skills) bool multi-hot skills of question t + 1
    targets: torch.Tensor       # (B, T-1) float, correctness at t + 1
    valid: torch.Tensor         # (B, T-1) bool
    lengths: torch.Tensor       # (B,) long, window lengths

    def fields(self):
        return (self.interactions, self.next_skills, self.targets, self.valid, self.lengths)


class KTCollator:
    def __init__(self, num_skills):
        self.num_skills = num_skills

    def __call__(self, samples):
        width = max(len(s["questions"]) for s in samples) - 1
        empty = [False] * self.num_skills
        inter, masks, targets, valid = [], [], [], []
        for s in samples:
            steps = len(s["questions"]) - 1
            row_x, row_m, row_y, row_v = [], [], [], []
            for t, (skills, correct) in enumerate(zip(s["skills"], s["correct"])):
                if t == steps:
                    break
                row_x.append(1 + skills[0] + self.num_skills * correct)
                hot = empty[:]
                for k in s["skills"][t + 1]:
                    hot[k] = True
                row_m.append(hot)
                row_y.append(float(s["correct"][t + 1]))
                row_v.append(True)
            pad = width - steps
            inter.append(row_x + [0] * pad)
            masks.append(row_m + [empty[:] for _ in range(pad)])
            targets.append(row_y + [0.0] * pad)
            valid.append(row_v + [False] * pad)
        return KTBatch(
            interactions=torch.tensor(inter, dtype=torch.long),
            next_skills=torch.tensor(masks, dtype=torch.bool),
            targets=torch.tensor(targets, dtype=torch.float32),
            valid=torch.tensor(valid, dtype=torch.bool),
            lengths=torch.tensor([len(s["questions"]) for s in samples], dtype=torch.long),
        )


# ---------------------------------------------------------------- model
class CausalConvDKT(nn.Module):
    """Interaction embeddings, a causal conv, and a dot-product readout per skill of question t + 1.

    The prediction at t is the mean over the next question's skills s of <h_t, w_s> + b_s.
    """

    def __init__(self, num_skills, dim, kernel=3):
        super().__init__()
        self.embed = nn.Embedding(1 + 2 * num_skills, dim, padding_idx=0)
        self.kernel = kernel
        self.conv = nn.Conv1d(dim, dim, kernel)
        self.skill_w = nn.Parameter(torch.randn(num_skills, dim) * dim ** -0.5)
        self.skill_b = nn.Parameter(torch.zeros(num_skills))

    def forward(self, interactions, next_skills):
        batch, width = interactions.shape
        h = self.embed(interactions).transpose(1, 2)
        h = torch.relu(self.conv(nn.functional.pad(h, (self.kernel - 1, 0)))).transpose(1, 2)  # causal
        b, t, s = next_skills.nonzero(as_tuple=True)
        scores = (h[b, t] * self.skill_w[s]).sum(-1) + self.skill_b[s]
        flat = b * width + t
        total = torch.zeros(batch * width).index_add(0, flat, scores)
        count = torch.zeros(batch * width).index_add(0, flat, torch.ones_like(scores))
        return (total / count.clamp(min=1.0)).view(batch, width)


def main():
    ap = argparse.ArgumentParser(fromfile_prefix_chars="@", description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--num-students", type=int, default=300)
    ap.add_argument("--num-questions", type=int, default=1000)
    ap.add_argument("--num-skills", type=int, default=100)
    ap.add_argument("--max-len", type=int, default=200)
    ap.add_argument("--batch-size", type=int, default=32)
    ap.add_argument("--num-workers", type=int, default=0)
    ap.add_argument("--bucket-bounds", type=lambda s: [int(x) for x in s.split(",")], default=[50, 100, 200])
    ap.add_argument("--epochs", type=int, default=10)
    ap.add_argument("--embed-dim", type=int, default=32)
    ap.add_argument("--lr", type=float, default=1e-3)
    args = ap.parse_args()

    torch.set_num_threads(1)
    random.seed(args.seed)
    np.random.seed(args.seed)
    torch.manual_seed(args.seed)

    students = parse_answer_log(synth_answer_log(args.num_students, args.num_questions, args.num_skills, args.seed))
    dataset = AnswerLogDataset(students, args.max_len, args.seed)
    sampler = BucketBatchSampler(dataset, args.bucket_bounds, args.batch_size, args.seed)
    loader = DataLoader(dataset, batch_sampler=sampler, collate_fn=KTCollator(args.num_skills),
                        num_workers=args.num_workers)

    model = CausalConvDKT(args.num_skills, args.embed_dim)
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
    meter = evalkit.Meter()

    positions = 0
    for epoch in range(args.epochs):
        sampler.set_epoch(epoch)
        for batch in loader:
            meter.batch(batch.fields())
            logits = model(batch.interactions, batch.next_skills)
            loss = nn.functional.binary_cross_entropy_with_logits(logits[batch.valid], batch.targets[batch.valid])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            meter.step(loss)
            positions += int(batch.valid.sum())
            if meter.done():
                break
        else:
            continue
        break
    meter.report(extra={"positions": positions, "epochs_run": epoch + 1})


if __name__ == "__main__":
    main()
