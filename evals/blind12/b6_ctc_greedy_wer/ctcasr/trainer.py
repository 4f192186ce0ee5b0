import torch
import torch.nn.functional as F

from .metrics import ErrorRate, greedy_decode


class Trainer:
    """A small HF-style trainer: step-based, re-creates the loader iterator at each epoch boundary and
    logs the greedy-decode WER of the training batch and of a fixed held-out batch every step."""

    def __init__(self, model, loader, tokenizer, meter, lr, max_steps, log_every, monitor=None):
        self.model, self.loader, self.tokenizer, self.meter = model, loader, tokenizer, meter
        self.monitor = monitor  # a fixed held-out batch, decoded after every step
        self.monitor_metric = ErrorRate()
        self.opt = torch.optim.AdamW(model.parameters(), lr=lr)
        self.max_steps, self.log_every = max_steps, log_every
        self.metric = ErrorRate()
        self.log = []
        self.confidence = []

    def training_step(self, batch):
        feats, feat_lens, targets, target_lens, texts = batch
        log_probs = self.model(feats)
        out_lens = self.model.output_lengths(feat_lens)
        loss = F.ctc_loss(log_probs, targets, out_lens, target_lens, blank=0, zero_infinity=True)
        self.opt.zero_grad()
        loss.backward()
        self.opt.step()
        best_paths, confidences = greedy_decode(log_probs, out_lens)
        hyps = [self.tokenizer.decode(ids) for ids in best_paths]
        batch_wer = self.metric.update(texts, hyps)
        self.confidence.append(sum(confidences) / len(confidences))
        if self.monitor is not None:
            self.monitor_step()
        return loss, batch_wer

    @torch.no_grad()
    def monitor_step(self):
        feats, feat_lens, _targets, _target_lens, texts = self.monitor
        self.model.eval()
        log_probs = self.model(feats)
        self.model.train()
        best_paths, _ = greedy_decode(log_probs, self.model.output_lengths(feat_lens))
        return self.monitor_metric.update(texts, [self.tokenizer.decode(ids) for ids in best_paths])

    def train(self):
        step, epoch = 0, 0
        it = iter(self.loader)
        while step < self.max_steps:
            try:
                batch = next(it)
            except StopIteration:
                epoch += 1
                it = iter(self.loader)
                continue
            self.meter.batch(batch)
            loss, batch_wer = self.training_step(batch)
            step += 1
            if step % self.log_every == 0:
                self.log.append({"step": step, "loss": round(loss.item(), 5), "wer": round(batch_wer, 5)})
            self.meter.step(loss)
            if self.meter.done():
                break
        summary = self.metric.compute()
        summary.update(epochs=epoch, log=self.log, mean_confidence=self.confidence[-20:])
        if self.monitor is not None:
            summary["monitor"] = self.monitor_metric.compute()
        return summary
