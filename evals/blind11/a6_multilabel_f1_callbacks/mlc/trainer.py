import torch


class Trainer:
    """A small trainer: epochs over a DataLoader, callbacks after every step."""

    def __init__(self, model, optimizer, loss_fn, loader, callbacks=(), epochs=1, meter=None):
        self.model = model
        self.optimizer = optimizer
        self.loss_fn = loss_fn
        self.loader = loader
        self.callbacks = list(callbacks)
        self.epochs = epochs
        self.meter = meter
        self.global_step = 0
        self.log_history = []
        self.should_stop = False

    def log(self, record):
        self.log_history.append(record)

    def _call(self, hook, *args):
        for cb in self.callbacks:
            getattr(cb, hook)(self, *args)

    def training_step(self, batch):
        outputs = self.model(batch["features"])
        loss = self.loss_fn(outputs, batch["labels"])
        self.optimizer.zero_grad(set_to_none=True)
        loss.backward()
        self.optimizer.step()
        return outputs, loss

    def fit(self):
        self._call("on_train_begin")
        self.model.train()
        for epoch in range(self.epochs):
            for batch in self.loader:
                if self.meter is not None:
                    self.meter.batch(batch)
                outputs, loss = self.training_step(batch)
                if self.meter is not None:
                    self.meter.step(loss)
                self.global_step += 1
                self._call("on_step_end", batch, outputs, loss.item())
                if self.meter is not None and self.meter.done():
                    self.should_stop = True
                if self.should_stop:
                    break
            if self.should_stop:
                break
        self._call("on_train_end")
        return self
