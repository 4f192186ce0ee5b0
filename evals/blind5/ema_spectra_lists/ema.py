"""Exponential moving average of model weights (Polyak averaging) for evaluation."""
import torch


class WeightEMA:
    """Shadow weights kept as Python float lists (float64), so the average does not accumulate
    float32 rounding over thousands of small updates."""

    def __init__(self, model, decay):
        self.decay = decay
        self.num_updates = 0
        self.shadow = {name: p.detach().flatten().tolist() for name, p in model.named_parameters()}

    def current_decay(self):
        n = self.num_updates
        return min(self.decay, (1 + n) / (10 + n))

    def update(self, model):
        self.num_updates += 1
        d = self.current_decay()
        for name, p in model.named_parameters():
            current = p.detach().flatten().tolist()
            self.shadow[name] = [d * s + (1.0 - d) * v for s, v in zip(self.shadow[name], current)]

    def copy_to(self, model):
        with torch.no_grad():
            for name, p in model.named_parameters():
                p.copy_(torch.tensor(self.shadow[name], dtype=p.dtype).view_as(p))
