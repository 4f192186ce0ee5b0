import time

import torch


class Trainer:
    def __init__(self, max_epochs, callbacks=(), log_every=10, meter=None):
        self.max_epochs = max_epochs
        self.callbacks = list(callbacks)
        self.log_every = log_every
        self.meter = meter
        self.global_step = 0
        self.progress = {}
        self.should_stop = False

    def _call(self, hook, *args):
        for cb in self.callbacks:
            getattr(cb, hook)(self, *args)

    def fit(self, module, loader, optimizer):
        self._call("on_train_start", module)
        t0 = time.time()
        for epoch in range(self.max_epochs):
            module.train()
            for batch_idx, batch in enumerate(loader):
                if self.meter is not None:
                    self.meter.batch(batch)
                outputs = module.training_step(batch)
                optimizer.zero_grad(set_to_none=True)
                outputs["loss"].backward()
                optimizer.step()
                with torch.no_grad():
                    module.logit_scale.clamp_(0.0, 4.6052)
                if self.meter is not None:
                    self.meter.step(outputs["loss"])
                self._call("on_train_batch_end", module, outputs, batch, batch_idx)
                self.global_step += 1
                if self.global_step % self.log_every == 0:
                    print(f"epoch {epoch} step {self.global_step} loss {outputs['loss'].item():.4f} "
                          f"rsum {self.progress.get('rsum', 0.0):.1f} {time.time() - t0:.1f}s", flush=True)
                if self.meter is not None and self.meter.done():
                    self.should_stop = True
                    break
            if self.should_stop:
                break
        self._call("on_train_end", module)
