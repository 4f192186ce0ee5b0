"""Dense passage retrieval with in-batch and hard negatives (a bag-of-embeddings bi-encoder).

    python train.py @dpr.args
"""
import argparse
import dataclasses

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader

import evalkit
from retrieval_data import PAD_ID, VOCAB_SIZE, DPRCollator, QueryDataset, build_corpus, build_queries


@dataclasses.dataclass
class TrainingArguments:
    seed: int
    num_passages: int
    num_queries: int
    max_query_length: int
    max_passage_length: int
    hard_negatives_per_query: int
    per_device_train_batch_size: int
    dataloader_num_workers: int
    num_train_epochs: int
    max_steps: int
    learning_rate: float
    embedding_dim: int
    temperature: float


def parse_args():
    parser = argparse.ArgumentParser(fromfile_prefix_chars="@")
    for field in dataclasses.fields(TrainingArguments):
        parser.add_argument(f"--{field.name}", type=field.type if isinstance(field.type, type) else eval(field.type),
                            required=True)
    return TrainingArguments(**vars(parser.parse_args()))


class BiEncoder(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.q_embed = nn.Embedding(VOCAB_SIZE, dim, padding_idx=PAD_ID)
        self.p_embed = nn.Embedding(VOCAB_SIZE, dim, padding_idx=PAD_ID)
        self.q_proj = nn.Linear(dim, dim)

    @staticmethod
    def pool(emb, mask):
        m = mask.unsqueeze(-1).float()
        return (emb * m).sum(1) / m.sum(1)

    def forward(self, query_input_ids, query_attention_mask, passage_input_ids, passage_attention_mask):
        q = self.q_proj(self.pool(self.q_embed(query_input_ids), query_attention_mask))
        p = self.pool(self.p_embed(passage_input_ids), passage_attention_mask)
        return nn.functional.normalize(q, dim=-1), nn.functional.normalize(p, dim=-1)


class Trainer:
    def __init__(self, model, args, train_dataset, data_collator, meter):
        self.model, self.args, self.meter = model, args, meter
        self.train_dataset, self.data_collator = train_dataset, data_collator
        self.optimizer = torch.optim.AdamW(model.parameters(), lr=args.learning_rate)
        self.global_step = 0
        self.log_history = []

    def get_train_dataloader(self):
        return DataLoader(self.train_dataset, batch_size=self.args.per_device_train_batch_size, shuffle=True,
                          drop_last=True, collate_fn=self.data_collator,
                          num_workers=self.args.dataloader_num_workers,
                          generator=torch.Generator().manual_seed(self.args.seed + 7))

    def compute_loss(self, inputs):
        q, p = self.model(inputs["query_input_ids"], inputs["query_attention_mask"],
                          inputs["passage_input_ids"], inputs["passage_attention_mask"])
        scores = q @ p.T / self.args.temperature
        scores = scores.masked_fill(~inputs["negative_mask"], float("-inf"))
        return nn.functional.cross_entropy(scores, inputs["labels"])

    def training_step(self, inputs):
        self.model.train()
        loss = self.compute_loss(inputs)
        loss.backward()
        self.optimizer.step()
        self.optimizer.zero_grad()
        return loss.detach()

    def train(self):
        dataloader = self.get_train_dataloader()
        for epoch in range(self.args.num_train_epochs):
            for inputs in dataloader:
                self.meter.batch(inputs)
                loss = self.training_step(inputs)
                self.meter.step(loss)
                self.global_step += 1
                self.log_history.append({"step": self.global_step, "epoch": epoch,
                                         "passages": int(inputs["passage_input_ids"].shape[0])})
                if self.global_step >= self.args.max_steps or self.meter.done():
                    return
        return


def main():
    args = parse_args()
    torch.set_num_threads(1)
    torch.manual_seed(args.seed)
    rng = np.random.default_rng(args.seed)
    corpus = build_corpus(rng, args.num_passages)
    queries = build_queries(rng, corpus, args.num_queries)
    collator = DPRCollator(corpus, args.max_query_length, args.max_passage_length, args.hard_negatives_per_query,
                           torch.Generator().manual_seed(args.seed + 3))
    meter = evalkit.Meter()
    trainer = Trainer(BiEncoder(args.embedding_dim), args, QueryDataset(queries), collator, meter)
    trainer.train()
    unique = [h["passages"] for h in trainer.log_history]
    meter.report({"steps": trainer.global_step, "mean_unique_passages": sum(unique) / len(unique)})


if __name__ == "__main__":
    main()
