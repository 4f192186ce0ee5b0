"""A small Lightning-style trainer: fit() drives the module and calls the callbacks' hooks."""


class Trainer:
    def __init__(self, max_epochs, callbacks=(), meter=None):
        self.max_epochs = max_epochs
        self.callbacks = list(callbacks)
        self.meter = meter
        self.global_step = 0
        self.logged_metrics = {}
        self.should_stop = False

    def log_dict(self, metrics):
        self.logged_metrics.update(metrics)

    def _call(self, hook, *args):
        for cb in self.callbacks:
            getattr(cb, hook)(self, *args)

    def fit(self, module, train_dataloader):
        optimizer = module.configure_optimizers()
        module.train()
        self._call("on_train_start", module)
        for epoch in range(self.max_epochs):
            for batch_idx, batch in enumerate(train_dataloader):
                if self.meter is not None:
                    self.meter.batch(batch)
                outputs = module.training_step(batch, batch_idx)
                optimizer.zero_grad()
                outputs["loss"].backward()
                optimizer.step()
                self.global_step += 1
                self._call("on_train_batch_end", module, outputs, batch, batch_idx)
                if self.meter is not None:
                    self.meter.step(outputs["loss"])
                    self.should_stop = self.meter.done()
                if self.should_stop:
                    break
            if self.should_stop:
                break
        self._call("on_train_end", module)
