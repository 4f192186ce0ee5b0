"""Character CTC acoustic model on log-mel features, with a HF-style trainer and padding collator."""
import argparse
import random
import runpy

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader

import evalkit
from asrdata import CharVocab, DataCollatorCTCWithPadding, SyntheticSpeechCorpus


class StackedFrameCTC(nn.Module):
    """Frame stacking (4 consecutive frames -> one 40 ms step, as in LAS-style front ends) and an MLP."""

    def __init__(self, n_mels, hidden, vocab_size, stack=4):
        super().__init__()
        self.stack = stack
        self.proj = nn.Sequential(nn.Linear(n_mels * stack, hidden), nn.GELU(), nn.Linear(hidden, hidden), nn.GELU())
        self.out = nn.Linear(hidden, vocab_size)

    def forward(self, x):
        b, t, f = x.shape
        x = x[:, : t // self.stack * self.stack].reshape(b, t // self.stack, f * self.stack)
        return self.out(self.proj(x)).log_softmax(-1)  # (B, T', V)


class CTCTrainer:
    def __init__(self, model, args, train_dataset, data_collator, meter):
        self.model, self.args, self.meter = model, args, meter
        self.train_dataloader = DataLoader(train_dataset, batch_size=args["BATCH_SIZE"], shuffle=args["SHUFFLE"],
                                           num_workers=args["NUM_WORKERS"], collate_fn=data_collator,
                                           generator=torch.Generator().manual_seed(args["SEED"]))
        self.optimizer = torch.optim.AdamW(model.parameters(), lr=args["LEARNING_RATE"])
        self.ctc = nn.CTCLoss(blank=0, zero_infinity=True)
        self.global_step = 0
        self.log_history = []

    def compute_loss(self, model, inputs):
        log_probs = model(inputs["input_values"])
        return self.ctc(log_probs.transpose(0, 1), inputs["labels"], inputs["input_lengths"], inputs["label_lengths"])

    def train(self):
        for epoch in range(self.args["NUM_EPOCHS"]):
            self.model.train()
            for inputs in self.train_dataloader:
                self.meter.batch(inputs)
                loss = self.compute_loss(self.model, inputs)
                self.optimizer.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(self.model.parameters(), 5.0)
                self.optimizer.step()
                self.meter.step(loss)
                self.global_step += 1
                if self.global_step % self.args["LOG_EVERY"] == 0:
                    self.log_history.append({"step": self.global_step, "epoch": epoch, "loss": round(loss.item(), 6)})
                    print(self.log_history[-1])
                if self.meter.done():
                    return


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--settings", default="settings.py")
    cli = parser.parse_args()
    args = {k: v for k, v in runpy.run_path(cli.settings).items() if k.isupper()}
    torch.set_num_threads(1)
    random.seed(args["SEED"])
    np.random.seed(args["SEED"])
    torch.manual_seed(args["SEED"])

    corpus = SyntheticSpeechCorpus(args["N_UTTERANCES"], args["N_MELS"], args["SEED"])
    vocab = CharVocab()
    collator = DataCollatorCTCWithPadding(vocab, args["PAD_TO_MULTIPLE_OF"], args["MAX_TIME_MASK"], subsample=4,
                                          generator=torch.Generator().manual_seed(args["SEED"] + 1))
    model = StackedFrameCTC(args["N_MELS"], args["HIDDEN"], len(vocab))
    meter = evalkit.Meter()
    trainer = CTCTrainer(model, args, corpus, collator, meter)
    trainer.train()
    meter.report(extra={"global_step": trainer.global_step, "log_history": trainer.log_history})


if __name__ == "__main__":
    main()
