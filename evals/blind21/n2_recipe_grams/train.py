"""Recipe category classifier: ingredient lines -> grams + BPE tokens -> bag-of-embeddings MLP."""
import argparse
import json

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader

from evalkit import Meter
from recipekit import CATEGORIES, RecipeBPETokenizer, RecipeCollator, RecipeDataset, generate_recipes
from recipekit.units import normalise, parse_line


class RecipeClassifier(nn.Module):
    def __init__(self, vocab_size, embed_dim, hidden_dim, max_lines, n_classes):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, embed_dim, padding_idx=0)
        self.mlp = nn.Sequential(nn.Linear(embed_dim + max_lines, hidden_dim), nn.ReLU(),
                                 nn.Linear(hidden_dim, n_classes))

    def forward(self, input_ids, attention_mask, grams):
        emb = self.embed(input_ids)
        mask = attention_mask.unsqueeze(-1).float()
        pooled = (emb * mask).sum(1) / mask.sum(1).clamp(min=1.0)
        return self.mlp(torch.cat([pooled, grams], dim=-1))


class Trainer:
    def __init__(self, model, args, train_dataset, data_collator, meter):
        self.model, self.args, self.train_dataset = model, args, train_dataset
        self.data_collator, self.meter = data_collator, meter
        self.optimizer = torch.optim.AdamW(model.parameters(), lr=args["learning_rate"],
                                           weight_decay=args["weight_decay"])
        self.state = {"global_step": 0, "log_history": []}

    def get_train_dataloader(self, seed):
        g = torch.Generator().manual_seed(seed)
        return DataLoader(self.train_dataset, batch_size=self.args["batch_size"], shuffle=True,
                          collate_fn=self.data_collator, num_workers=self.args["num_workers"], generator=g)

    def training_step(self, batch):
        self.model.train()
        logits = self.model(batch["input_ids"], batch["attention_mask"], batch["grams"])
        loss = F.cross_entropy(logits, batch["labels"])
        loss.backward()
        self.optimizer.step()
        self.optimizer.zero_grad()
        return loss.detach(), logits.detach()

    def train(self, seed):
        hits = total = 0
        for epoch in range(self.args["num_epochs"]):
            self.train_dataset.epoch = epoch
            for batch in self.get_train_dataloader(seed + epoch):
                self.meter.batch(batch)
                loss, logits = self.training_step(batch)
                self.meter.step(loss)
                hits += int((logits.argmax(-1) == batch["labels"]).sum())
                total += batch["labels"].numel()
                self.state["global_step"] += 1
                if self.state["global_step"] % self.args["logging_steps"] == 0:
                    entry = {"step": self.state["global_step"], "loss": round(loss.item(), 4),
                             "acc": round(hits / total, 4)}
                    self.state["log_history"].append(entry)
                    print(entry, flush=True)
                if self.meter.done():
                    return hits / max(total, 1)
        return hits / max(total, 1)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config_file", required=True)
    cfg = json.load(open(ap.parse_args().config_file))
    torch.set_num_threads(1)
    torch.manual_seed(cfg["seed"])

    cc, tc, pc = cfg["corpus"], cfg["tokenizer"], cfg["preprocessing"]
    recipes = generate_recipes(cc["num_recipes"], cc["min_lines"], cc["max_lines"], cfg["seed"])
    # fit the tokenizer on the normalised lines of the first 250 cards
    sample_texts = [f"{l} => {normalise(parse_line(l))}" for r in recipes[:250] for l in r["lines"]]
    tokenizer = RecipeBPETokenizer.train(sample_texts, tc["num_merges"])
    print(f"vocab size {len(tokenizer)}", flush=True)

    dataset = RecipeDataset(recipes, tokenizer, tc["max_tokens"], pc["max_lines"], pc["shuffle_lines"], cfg["seed"])
    collator = RecipeCollator(pad_id=tokenizer.pad_id, max_lines=pc["max_lines"])
    model = RecipeClassifier(len(tokenizer), cfg["model"]["embed_dim"], cfg["model"]["hidden_dim"],
                             pc["max_lines"], len(CATEGORIES))
    meter = Meter()
    trainer = Trainer(model, cfg["training"], dataset, collator, meter)
    acc = trainer.train(cfg["seed"])
    meter.report(extra={"train_acc": acc, "log_history": trainer.state["log_history"]})


if __name__ == "__main__":
    main()
