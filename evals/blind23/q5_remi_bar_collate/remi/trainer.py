import torch
from torch.utils.data import DataLoader


class Trainer:
    """A small Hugging Face-style Trainer: args, dataset, collator, compute_loss, train()."""

    def __init__(self, model, args, train_dataset, data_collator, callbacks=()):
        self.model = model
        self.args = args
        self.train_dataset = train_dataset
        self.data_collator = data_collator
        self.callbacks = list(callbacks)
        self.state = {"global_step": 0, "log_history": []}

    def get_train_dataloader(self):
        g = torch.Generator().manual_seed(self.args.seed)
        return DataLoader(self.train_dataset, batch_size=self.args.per_device_train_batch_size, shuffle=True,
                          collate_fn=self.data_collator, generator=g, drop_last=True)

    def compute_loss(self, model, inputs):
        loss, _ = model(**inputs)
        return loss

    def should_stop(self):
        return any(cb.should_stop() for cb in self.callbacks) or \
            (self.args.max_steps > 0 and self.state["global_step"] >= self.args.max_steps)

    def train(self):
        opt = torch.optim.AdamW(self.model.parameters(), lr=self.args.learning_rate, weight_decay=0.01)
        self.model.train()
        for epoch in range(self.args.num_train_epochs):
            for inputs in self.get_train_dataloader():
                for cb in self.callbacks:
                    cb.on_batch(inputs)
                loss = self.compute_loss(self.model, inputs)
                loss.backward()
                torch.nn.utils.clip_grad_norm_(self.model.parameters(), 1.0)
                opt.step()
                opt.zero_grad()
                self.state["global_step"] += 1
                for cb in self.callbacks:
                    cb.on_step_end(loss)
                if self.state["global_step"] % self.args.logging_steps == 0:
                    self.state["log_history"].append(round(loss.item(), 6))
                    print({"epoch": epoch, "step": self.state["global_step"], "loss": round(loss.item(), 4)})
                if self.should_stop():
                    return self.state
        return self.state
