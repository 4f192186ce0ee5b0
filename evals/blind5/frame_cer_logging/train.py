"""Frame classifier for spelled-out words (forced-aligned frame labels), logging the greedy
transcript CER / WER on every training batch."""
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader

from asrlite.config import load_config
from asrlite.corpus import ALPHABET, SPACE, SpelledWords, collate_utterances
from asrlite.lightning import LightningModule, Trainer
from asrlite.metrics import error_counts, greedy_decode
from evalkit import Meter


class FrameRecognizer(LightningModule):
    def __init__(self, feature_dim, context, hidden, lr):
        super().__init__()
        self.context = context
        self.lr = lr
        self.net = nn.Sequential(
            nn.Linear(feature_dim * (2 * context + 1), hidden), nn.ReLU(),
            nn.Linear(hidden, hidden), nn.ReLU(),
            nn.Linear(hidden, len(ALPHABET) + 1))
        self.epoch_cer = []
        self._counts = []

    def forward(self, feats):
        c = self.context
        padded = F.pad(feats, (0, 0, c, c))
        stacked = torch.cat([padded[:, k:k + feats.shape[1]] for k in range(2 * c + 1)], dim=-1)
        return self.net(stacked)

    def training_step(self, batch, batch_idx):
        logits = self(batch.feats)
        loss = F.cross_entropy(logits.flatten(0, 1), batch.frame_labels.flatten(), ignore_index=-100)
        with torch.no_grad():
            hyps = greedy_decode(logits, batch.feat_lens)
            refs = [t[:n] for t, n in zip(batch.targets.tolist(), batch.target_lens.tolist())]
            counts = error_counts(hyps, refs, SPACE)
        self._counts.append(counts)
        self.log("loss", loss.item())
        self.log("cer", (counts["c_sub"] + counts["c_del"] + counts["c_ins"]) / counts["chars"])
        self.log("cer_no_space", counts["l_err"] / counts["letters"])
        self.log("wer", counts["w_err"] / counts["words"])
        return loss

    def on_train_batch_end(self, batch, batch_idx):
        pass

    def on_train_epoch_end(self, epoch):
        tot = {k: sum(c[k] for c in self._counts) for k in self._counts[0]}
        self.epoch_cer.append({"epoch": epoch, **tot})
        self._counts = []

    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters(), lr=self.lr)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default="frames.toml")
    cfg = load_config(ap.parse_args().config)
    torch.manual_seed(cfg.data.seed)
    torch.set_num_threads(1)

    dataset = SpelledWords(cfg.data)
    g = torch.Generator()
    g.manual_seed(cfg.data.seed)
    loader = DataLoader(dataset, batch_size=cfg.trainer.batch_size, shuffle=True, drop_last=True,
                        collate_fn=collate_utterances, generator=g)
    module = FrameRecognizer(cfg.data.feature_dim, cfg.model.context, cfg.model.hidden, cfg.trainer.lr)
    meter = Meter()
    trainer = Trainer(cfg.trainer.max_epochs, cfg.trainer.log_every_n_steps, meter=meter)
    trainer.fit(module, loader)
    if module._counts:
        module.on_train_epoch_end(len(module.epoch_cer))
    meter.report(extra={"cer": module.logged["cer"], "cer_no_space": module.logged["cer_no_space"],
                        "wer": module.logged["wer"], "epochs": module.epoch_cer})


if __name__ == "__main__":
    main()
