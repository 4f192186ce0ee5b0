"""Hashtag topic classification: segment hashtags into words, embed, classify."""
import argparse
import json
import random

import torch
from torch.utils.data import DataLoader

from evalkit import Meter
from tagseg.corpus import build_corpus, word_costs
from tagseg.data import DataCollatorForHashtags, PostDataset
from tagseg.model import HashtagTopicClassifier
from tagseg.tokenization import HashtagTokenizer


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", required=True)
    args = ap.parse_args()
    with open(args.config) as fh:
        cfg = json.load(fh)
    seed = cfg["seed"]
    random.seed(seed)
    torch.manual_seed(seed)
    torch.set_num_threads(1)

    lexicon, posts, labels = build_corpus(cfg, seed)
    tk = cfg["tokenizer"]
    tokenizer = HashtagTokenizer(lexicon, word_costs(lexicon), tk["max_word_len"], tk["unk_base_cost"], tk["unk_char_cost"])
    collator = DataCollatorForHashtags(tokenizer, max_length=tk["max_length"])
    tr = cfg["training"]
    loader = DataLoader(PostDataset(posts, labels), batch_size=tr["batch_size"], shuffle=True,
                        collate_fn=collator, generator=torch.Generator().manual_seed(seed), drop_last=True)

    model = HashtagTopicClassifier(len(tokenizer.vocab), cfg["corpus"]["num_topics"], **cfg["model"])
    optimizer = torch.optim.Adam(model.parameters(), lr=tr["learning_rate"])
    loss_fn = torch.nn.CrossEntropyLoss()
    meter = Meter()

    global_step, n_tokens, n_unk = 0, 0, 0
    for epoch in range(tr["num_epochs"]):
        for batch in loader:
            meter.batch(batch)
            logits = model(batch["input_ids"], batch["attention_mask"])
            loss = loss_fn(logits, batch["labels"])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            meter.step(loss)
            global_step += 1
            n_tokens += int(batch["attention_mask"].sum())
            n_unk += int((batch["input_ids"] == 1).sum())
            if global_step % tr["log_every"] == 0:
                print(f"epoch {epoch} step {global_step} loss {loss.item():.4f}")
            if meter.done() or global_step >= tr["max_steps"]:
                break
        if meter.done() or global_step >= tr["max_steps"]:
            break
    meter.report({"tokens": n_tokens, "unk_tokens": n_unk, "steps": global_step})


if __name__ == "__main__":
    main()
