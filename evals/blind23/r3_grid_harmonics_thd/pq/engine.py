"""A tiny fit loop in the spirit of pytorch_lightning.Trainer."""


class Trainer:
    def __init__(self, max_epochs, meter=None):
        self.max_epochs = max_epochs
        self.meter = meter
        self.history = []

    def fit(self, module, datamodule):
        datamodule.setup()
        loader = datamodule.train_dataloader()
        optimizer = module.configure_optimizers()
        module.train()
        for epoch in range(self.max_epochs):
            datamodule.train_set.epoch = epoch
            for batch_idx, batch in enumerate(loader):
                if self.meter is not None:
                    self.meter.batch(batch)
                out = module.training_step(batch, batch_idx)
                optimizer.zero_grad(set_to_none=True)
                out["loss"].backward()
                optimizer.step()
                self.history.append(float(out["acc"]))
                if self.meter is not None:
                    self.meter.step(out["loss"])
                    if self.meter.done():
                        return
