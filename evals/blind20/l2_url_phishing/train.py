"""Phishing URL classifier: hashed character n-grams + parsed-URL statistics."""
import argparse
import json
import time

import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader

from evalkit import Meter
from urlnet import UrlDataCollator, UrlClassifier, UrlDataset, UrlFeaturizer, generate_urls


class Trainer:
    def __init__(self, model, args, train_dataset, data_collator):
        self.model = model
        self.args = args
        self.train_dataset = train_dataset
        self.data_collator = data_collator
        self.optimizer = torch.optim.Adam(model.parameters(), lr=args["learning_rate"])
        self.state = {"global_step": 0, "log_history": []}

    def get_train_dataloader(self, seed):
        generator = torch.Generator().manual_seed(seed)
        return DataLoader(self.train_dataset, batch_size=self.args["batch_size"], shuffle=True,
                          num_workers=self.args["num_workers"], collate_fn=self.data_collator,
                          generator=generator, drop_last=True)

    def training_step(self, inputs):
        self.model.train()
        logits = self.model(inputs["ngram_counts"], inputs["dense"])
        loss = F.cross_entropy(logits, inputs["labels"])
        loss.backward()
        self.optimizer.step()
        self.optimizer.zero_grad(set_to_none=True)
        acc = (logits.argmax(1) == inputs["labels"]).float().mean()
        return loss.detach(), float(acc)

    def train(self, meter, seed):
        t0 = time.time()
        for epoch in range(self.args["epochs"]):
            for inputs in self.get_train_dataloader(seed + epoch):
                meter.batch(inputs)
                loss, acc = self.training_step(inputs)
                meter.step(loss)
                self.state["global_step"] += 1
                self.state["log_history"].append(round(acc, 6))
                if self.state["global_step"] % self.args["logging_steps"] == 0:
                    print(json.dumps({"epoch": epoch, "step": self.state["global_step"],
                                      "loss": round(float(loss), 4), "acc": acc,
                                      "elapsed": round(time.time() - t0, 1)}), flush=True)
                if meter.done():
                    return


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--config", default="config.json")
    args = parser.parse_args()
    with open(args.config) as fh:
        cfg = json.load(fh)

    torch.set_num_threads(1)
    torch.manual_seed(cfg["seed"])
    urls, labels = generate_urls(cfg["data"]["num_urls"], cfg["data"]["phishing_rate"],
                                 cfg["data"]["label_noise"], cfg["seed"])
    featurizer = UrlFeaturizer(**cfg["featurizer"])
    dataset = UrlDataset(urls, labels, featurizer)
    model = UrlClassifier(featurizer.num_buckets, featurizer.num_dense, **cfg["model"])

    meter = Meter()
    trainer = Trainer(model, cfg["training"], dataset, UrlDataCollator())
    trainer.train(meter, cfg["seed"])
    meter.report({"train_accuracy": trainer.state["log_history"]})


if __name__ == "__main__":
    main()
