"""A minimal HF-style Trainer."""
import torch
from torch.utils.data import DataLoader


class Trainer:
    def __init__(self, model, args, train_dataset, data_collator, meter=None):
        self.model = model
        self.args = args
        self.train_dataset = train_dataset
        self.data_collator = data_collator
        self.meter = meter
        self.optimizer = torch.optim.AdamW(model.parameters(), lr=args["learning_rate"], weight_decay=args["weight_decay"])
        self.log_history = []
        self.global_step = 0

    def get_train_dataloader(self):
        gen = torch.Generator().manual_seed(self.args["seed"])
        return DataLoader(self.train_dataset, batch_size=self.args["per_device_train_batch_size"], shuffle=True,
                          collate_fn=self.data_collator, generator=gen, drop_last=True)

    def compute_loss(self, model, inputs):
        return model(**inputs)["loss"]

    def train(self):
        loader = self.get_train_dataloader()
        self.model.train()
        running = 0.0
        for epoch in range(self.args["num_train_epochs"]):
            for inputs in loader:
                if self.meter is not None:
                    self.meter.batch(inputs)
                loss = self.compute_loss(self.model, inputs)
                loss.backward()
                self.optimizer.step()
                self.optimizer.zero_grad(set_to_none=True)
                self.global_step += 1
                running += loss.item()
                if self.meter is not None:
                    self.meter.step(loss)
                if self.global_step % self.args["logging_steps"] == 0:
                    self.log_history.append({"step": self.global_step, "epoch": epoch, "loss": running / self.args["logging_steps"]})
                    running = 0.0
                if self.meter is not None and self.meter.done():
                    return
