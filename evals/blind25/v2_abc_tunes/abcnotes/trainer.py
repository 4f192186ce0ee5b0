"""A trimmed-down clone of the transformers Trainer loop (no accelerate, CPU only)."""
import math
import time
from dataclasses import dataclass, field

import torch
from torch.utils.data import DataLoader, RandomSampler


@dataclass
class TrainingArguments:
    output_dir: str
    per_device_train_batch_size: int = 8
    num_train_epochs: float = 1.0
    learning_rate: float = 5e-4
    weight_decay: float = 0.0
    warmup_ratio: float = 0.0
    max_grad_norm: float = 1.0
    logging_steps: int = 50
    seed: int = 42
    torch_num_threads: int = 0
    dataloader_num_workers: int = 0
    dataloader_drop_last: bool = True


@dataclass
class TrainerState:
    global_step: int = 0
    epoch: float = 0.0
    log_history: list = field(default_factory=list)


class Trainer:
    def __init__(self, model, args, train_dataset, data_collator, meter=None):
        self.model = model
        self.args = args
        self.train_dataset = train_dataset
        self.data_collator = data_collator
        self.meter = meter
        self.state = TrainerState()

    def get_train_dataloader(self):
        generator = torch.Generator().manual_seed(self.args.seed)
        return DataLoader(
            self.train_dataset,
            batch_size=self.args.per_device_train_batch_size,
            sampler=RandomSampler(self.train_dataset, generator=generator),
            collate_fn=self.data_collator,
            num_workers=self.args.dataloader_num_workers,
            drop_last=self.args.dataloader_drop_last,
        )

    def create_optimizer_and_scheduler(self, num_training_steps):
        decay, no_decay = [], []
        for name, p in self.model.named_parameters():
            (no_decay if name.endswith("bias") or "embed" in name else decay).append(p)
        self.optimizer = torch.optim.AdamW(
            [{"params": decay, "weight_decay": self.args.weight_decay},
             {"params": no_decay, "weight_decay": 0.0}],
            lr=self.args.learning_rate)
        warmup = math.ceil(num_training_steps * self.args.warmup_ratio)

        def lr_lambda(step):
            if step < warmup:
                return float(step) / float(max(1, warmup))
            return max(0.0, float(num_training_steps - step) / float(max(1, num_training_steps - warmup)))

        self.lr_scheduler = torch.optim.lr_scheduler.LambdaLR(self.optimizer, lr_lambda)

    def compute_loss(self, model, inputs):
        outputs = model(**inputs)
        return outputs["loss"], outputs

    def training_step(self, model, inputs):
        model.train()
        loss, outputs = self.compute_loss(model, inputs)
        loss.backward()
        return loss.detach(), outputs

    def log(self, logs):
        logs["epoch"] = round(self.state.epoch, 3)
        self.state.log_history.append({**logs, "step": self.state.global_step})
        print(logs)

    def train(self):
        if self.args.torch_num_threads:
            torch.set_num_threads(self.args.torch_num_threads)
        train_dataloader = self.get_train_dataloader()
        steps_per_epoch = len(train_dataloader)
        max_steps = math.ceil(self.args.num_train_epochs * steps_per_epoch)
        self.create_optimizer_and_scheduler(max_steps)
        t0 = time.time()
        running_loss, running_n, correct, seen = 0.0, 0, 0, 0
        stop = False
        for epoch in range(math.ceil(self.args.num_train_epochs)):
            for step, inputs in enumerate(train_dataloader):
                if self.meter is not None:
                    self.meter.batch(inputs)
                loss, outputs = self.training_step(self.model, inputs)
                torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.args.max_grad_norm)
                self.optimizer.step()
                self.lr_scheduler.step()
                self.optimizer.zero_grad(set_to_none=True)
                self.state.global_step += 1
                self.state.epoch = epoch + (step + 1) / steps_per_epoch
                if self.meter is not None:
                    self.meter.step(loss)
                running_loss += loss.item()
                running_n += 1
                correct += int((outputs["logits"].argmax(-1) == inputs["labels"]).sum())
                seen += len(inputs["labels"])
                if self.state.global_step % self.args.logging_steps == 0:
                    self.log({"loss": round(running_loss / running_n, 4),
                              "learning_rate": self.lr_scheduler.get_last_lr()[0],
                              "train_accuracy": round(correct / seen, 4),
                              "elapsed_s": round(time.time() - t0, 1)})
                    running_loss, running_n = 0.0, 0
                if self.state.global_step >= max_steps or (self.meter is not None and self.meter.done()):
                    stop = True
                    break
            if stop:
                break
        return {"global_step": self.state.global_step, "train_accuracy": correct / max(seen, 1)}
