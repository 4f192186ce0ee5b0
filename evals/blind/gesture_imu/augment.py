import numpy as np
import torch


def jitter_and_scale(x, noise_std, scale_range):
    """Gaussian jitter (torch global RNG) and one random gain per sample (numpy global RNG)."""
    gain = 1.0 + np.random.uniform(-scale_range, scale_range)
    return x * gain + torch.randn(x.shape) * noise_std


def quantize_deadzone(x, deadzone, levels):
    """Mimic the sensor's ADC: small readings read as 0, the rest snap to 1/levels steps."""
    flat = x.flatten().tolist()
    out = [0.0] * len(flat)
    for i, v in enumerate(flat):
        if abs(v) < deadzone:
            continue
        out[i] = round(v * levels) / levels
    return torch.tensor(out, dtype=torch.float32).view(x.shape)
