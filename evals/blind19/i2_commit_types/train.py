"""Fine-tune a fastText-style commit-type classifier with a small HF-like Trainer."""
import argparse
import json
import time
from dataclasses import dataclass, fields

import torch
from torch.utils.data import DataLoader, RandomSampler

import evalkit
from commitlm import COMMIT_TYPES, CommitDataset, DataCollatorWithPadding, HashingSubwordTokenizer, generate_commits
from commitlm.modeling import CommitClassifier


@dataclass
class TrainingArguments:
    per_device_train_batch_size: int = 32
    dataloader_num_workers: int = 0
    learning_rate: float = 1e-3
    weight_decay: float = 0.0
    num_train_epochs: int = 1
    logging_steps: int = 50
    max_grad_norm: float = 1.0
    optim: str = "adamw_torch"
    seed: int = 42

    @classmethod
    def from_dict(cls, d, **overrides):
        names = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in {**d, **overrides}.items() if k in names})


class TrainerCallback:
    def on_step_end(self, args, state, logs):
        pass

    def on_train_end(self, args, state):
        pass


class PrinterCallback(TrainerCallback):
    def __init__(self):
        self.t0 = time.time()

    def on_step_end(self, args, state, logs):
        if logs:
            print(json.dumps({**logs, "elapsed": round(time.time() - self.t0, 2)}), flush=True)


@dataclass
class TrainerState:
    global_step: int = 0
    epoch: int = 0
    should_stop: bool = False


class Trainer:
    def __init__(self, model, args, train_dataset, data_collator, callbacks=(), meter=None):
        self.model = model
        self.args = args
        self.train_dataset = train_dataset
        self.data_collator = data_collator
        self.callbacks = list(callbacks)
        self.meter = meter
        self.state = TrainerState()
        self.log_history = []
        self.optimizer = self.create_optimizer()

    def create_optimizer(self):
        params = self.model.parameters()
        if self.args.optim == "sgd":  # fastText trains with plain SGD
            return torch.optim.SGD(params, lr=self.args.learning_rate, weight_decay=self.args.weight_decay)
        if self.args.optim == "adamw_torch":
            return torch.optim.AdamW(params, lr=self.args.learning_rate, weight_decay=self.args.weight_decay)
        raise ValueError(f"unknown optimizer {self.args.optim!r}")

    def get_train_dataloader(self):
        generator = torch.Generator().manual_seed(self.args.seed)
        return DataLoader(self.train_dataset, batch_size=self.args.per_device_train_batch_size,
                          sampler=RandomSampler(self.train_dataset, generator=generator),
                          collate_fn=self.data_collator, num_workers=self.args.dataloader_num_workers)

    def training_step(self, inputs):
        self.model.train()
        outputs = self.model(**inputs)
        loss = outputs["loss"]
        loss.backward()
        torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.args.max_grad_norm)
        self.optimizer.step()
        self.optimizer.zero_grad(set_to_none=True)
        return loss.detach()

    def train(self):
        loader = self.get_train_dataloader()
        tr_loss = 0.0
        for epoch in range(self.args.num_train_epochs):
            self.state.epoch = epoch
            for inputs in loader:
                if self.meter is not None:
                    self.meter.batch(inputs)
                loss = self.training_step(inputs)
                if self.meter is not None:
                    self.meter.step(loss)
                    self.state.should_stop = self.meter.done()
                self.state.global_step += 1
                tr_loss += loss.item()
                logs = None
                if self.state.global_step % self.args.logging_steps == 0:
                    logs = {"step": self.state.global_step, "epoch": epoch,
                            "loss": round(tr_loss / self.args.logging_steps, 6)}
                    self.log_history.append(logs)
                    tr_loss = 0.0
                for cb in self.callbacks:
                    cb.on_step_end(self.args, self.state, logs)
                if self.state.should_stop:
                    break
            if self.state.should_stop:
                break
        for cb in self.callbacks:
            cb.on_train_end(self.args, self.state)
        return self.log_history


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--config", default="commit_cls.json")
    cli = parser.parse_args()
    with open(cli.config) as fh:
        cfg = json.load(fh)

    torch.set_num_threads(1)
    torch.manual_seed(cfg["seed"])

    corpus_cfg = cfg["corpus"]
    messages = generate_commits(corpus_cfg["num_commits"], corpus_cfg["num_identifiers"],
                                tuple(corpus_cfg["body_lines"]), seed=cfg["seed"])
    tokenizer = HashingSubwordTokenizer(**cfg["tokenizer"])
    train_dataset = CommitDataset(messages, tokenizer)
    args = TrainingArguments.from_dict(cfg["training_args"], seed=cfg["seed"])

    model = CommitClassifier(tokenizer.vocab_size, len(COMMIT_TYPES), **cfg["model"])
    meter = evalkit.Meter()
    trainer = Trainer(model, args, train_dataset, DataCollatorWithPadding(tokenizer.pad_token_id),
                      callbacks=[PrinterCallback()], meter=meter)
    history = trainer.train()
    meter.report(extra={"log_history": history})


if __name__ == "__main__":
    main()
