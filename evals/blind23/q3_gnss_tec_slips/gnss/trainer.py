class Trainer:
    """A minimal stand-in for lightning.Trainer.fit (CPU, one optimizer)."""

    def __init__(self, max_epochs=1, max_steps=-1, log_every_n_steps=50, meter=None):
        self.max_epochs = max_epochs
        self.max_steps = max_steps
        self.log_every_n_steps = log_every_n_steps
        self.meter = meter
        self.global_step = 0
        self.loss_sum = 0.0

    def _stop(self):
        return (self.meter is not None and self.meter.done()) or \
            (self.max_steps > 0 and self.global_step >= self.max_steps)

    def fit(self, module, datamodule):
        datamodule.setup()
        opt = module.configure_optimizers()
        module.train()
        for epoch in range(self.max_epochs):
            for batch_idx, batch in enumerate(datamodule.train_dataloader()):
                if self.meter is not None:
                    self.meter.batch(batch)
                loss = module.training_step(batch, batch_idx)
                opt.zero_grad()
                loss.backward()
                opt.step()
                self.global_step += 1
                self.loss_sum += loss.item()
                if self.meter is not None:
                    self.meter.step(loss)
                if self.global_step % self.log_every_n_steps == 0:
                    print(f"epoch={epoch} step={self.global_step} train_loss={loss.item():.5f}")
                if self._stop():
                    return
            if self._stop():
                return
