"""Fine-tune a tiny BERT (built from its config, no download) on support tickets with the HF Trainer."""
import argparse
import json
import random
import tempfile

import numpy as np
import torch
from transformers import BertConfig, BertForSequenceClassification, Trainer, TrainingArguments

import evalkit
from data import VOCAB, TicketDataset


class MeteredTrainer(Trainer):
    """Trainer that feeds evalkit each batch and loss, and stops when EVAL_MAX_STEPS is reached."""

    def __init__(self, *args, meter, **kwargs):
        super().__init__(*args, **kwargs)
        self.meter = meter

    def training_step(self, model, inputs, num_items_in_batch=None):
        self.meter.batch({k: v for k, v in inputs.items()})
        loss = super().training_step(model, inputs, num_items_in_batch)
        self.meter.step(loss)
        if self.meter.done():
            self.control.should_training_stop = True
        return loss


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--config", required=True)
    args = parser.parse_args()
    with open(args.config) as f:
        cfg = json.load(f)

    seed = cfg["seed"]
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    torch.set_num_threads(1)

    d = cfg["data"]
    dataset = TicketDataset(d["n_docs"], d["doc_chars"], d["max_len"], d["n_classes"], seed)
    model = BertForSequenceClassification(BertConfig(
        vocab_size=len(VOCAB) + 2, max_position_embeddings=d["max_len"], num_labels=d["n_classes"],
        **cfg["model"]))
    with tempfile.TemporaryDirectory() as out:
        training_args = TrainingArguments(
            output_dir=out, seed=seed, use_cpu=True, report_to=[], save_strategy="no",
            logging_strategy="no", disable_tqdm=True, **cfg["training"])
        meter = evalkit.Meter()
        MeteredTrainer(model=model, args=training_args, train_dataset=dataset, meter=meter).train()
    meter.report()


if __name__ == "__main__":
    main()
