import torch
import torch.nn as nn
import torch.nn.functional as F


class AlignedSTModel(nn.Module):
    """Frame encoder + token pooling over aligned frames.

    Two heads: recognise each source subword from its pooled frames, and predict the bag of
    target-language words from the whole utterance (a cheap translation objective)."""

    def __init__(self, n_mels, d_model, source_subwords, target_vocab, dropout=0.1):
        super().__init__()
        self.inp = nn.Linear(n_mels, d_model)
        self.drop = nn.Dropout(dropout)
        self.src_head = nn.Linear(d_model, source_subwords)
        self.dur_head = nn.Linear(d_model, 1)
        self.bow_head = nn.Linear(d_model, target_vocab)

    def forward(self, feats, feat_mask, tok2frame, durations):
        h = F.gelu(self.inp(feats))                                   # B T D
        h = self.drop(h) * feat_mask.unsqueeze(-1)
        tok = torch.bmm(tok2frame.float(), h) / durations.clamp(min=1).unsqueeze(-1)   # B L D
        utt = h.sum(1) / feat_mask.sum(1, keepdim=True)
        return self.src_head(tok), self.dur_head(tok).squeeze(-1), self.bow_head(utt)


def st_loss(outputs, batch, target_vocab, bow_weight):
    src_logits, dur_pred, bow_logits = outputs
    tokens, durations, targets = batch["tokens"], batch["durations"], batch["targets"]
    valid = tokens != 0
    ce = F.cross_entropy(src_logits[valid], tokens[valid])
    dur = F.mse_loss(dur_pred[valid], torch.log1p(durations[valid].float()))
    bow = torch.zeros(targets.shape[0], target_vocab)
    bow.scatter_(1, targets, 1.0)
    bow[:, :3] = 0.0
    bce = F.binary_cross_entropy_with_logits(bow_logits, bow)
    return ce + 0.1 * dur + bow_weight * bce, ce
