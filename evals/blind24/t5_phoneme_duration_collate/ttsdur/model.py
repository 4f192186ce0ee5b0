import torch
import torch.nn as nn


class FrameDecoder(nn.Module):
    """Frame-level mel decoder conditioned on the expanded phoneme sequence, plus a
    duration predictor on phoneme states pooled through the alignment."""

    def __init__(self, n_phonemes, n_mels=8, hidden=48, max_pos=16):
        super().__init__()
        self.ph_embed = nn.Embedding(n_phonemes, hidden, padding_idx=0)
        self.pos_embed = nn.Embedding(max_pos, hidden)
        self.cont = nn.Linear(2, hidden)
        self.proj = nn.Linear(hidden, hidden)
        self.mel_out = nn.Linear(hidden, n_mels)
        self.dur_out = nn.Linear(hidden, 1)

    def forward(self, batch):
        cont = torch.stack([batch["frame_rel"], batch["frame_pitch"]], dim=-1)
        h = self.ph_embed(batch["frame_phonemes"]) + self.pos_embed(batch["frame_pos"]) + self.cont(cont)
        h = h * batch["frame_mask"].unsqueeze(-1)
        h = torch.relu(self.proj(h))
        mel = self.mel_out(h)
        align = batch["alignment"].to(h.dtype)
        counts = align.sum(-1, keepdim=True).clamp_min(1.0)
        ph_h = torch.bmm(align, h) / counts
        log_dur = self.dur_out(ph_h).squeeze(-1)
        return mel, log_dur


def masked_losses(mel, log_dur, batch):
    fm = batch["frame_mask"].unsqueeze(-1).float()
    mel_loss = ((mel - batch["mel"]) ** 2 * fm).sum() / (fm.sum() * mel.shape[-1])
    pm = batch["phoneme_mask"].float()
    target = torch.log(batch["durations"].float().clamp_min(1.0))
    dur_loss = ((log_dur - target) ** 2 * pm).sum() / pm.sum()
    return mel_loss, dur_loss
