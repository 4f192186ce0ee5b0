import argparse
import json

import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader

import evalkit
from bpe import BPETokenizer, train_bpe
from corpus import make_tickets
from dataset import TicketDataset
from model import BagOfPiecesClassifier


def parse_args():
    p = argparse.ArgumentParser(description="BPE + CNN intent classifier for support tickets")
    p.add_argument("--config", type=str, required=True)
    return p.parse_args()


def main():
    args = parse_args()
    with open(args.config) as f:
        config = json.load(f)
    seed = config["seed"]
    torch.manual_seed(seed)
    torch.set_num_threads(1)

    cc, tc, mc, rc = config["corpus"], config["tokenizer"], config["model"], config["training"]
    texts, labels = make_tickets(cc["num_tickets"], cc["min_words"], cc["max_words"], cc["num_intents"], seed)
    merges, encoder = train_bpe(texts[:200], tc["num_merges"], tc["lowercase"])
    tokenizer = BPETokenizer(merges, encoder, tc["lowercase"])
    print(f"vocab size {tokenizer.vocab_size}, {len(merges)} merges", flush=True)

    train_ds = TicketDataset(texts, labels, tokenizer, tc["max_length"], tc["word_dropout"], seed + 1)
    g = torch.Generator()
    g.manual_seed(seed + 2)
    train_dl = DataLoader(train_ds, batch_size=rc["batch_size"], shuffle=True, drop_last=True,
                          num_workers=rc["dataloader_num_workers"], generator=g)

    model = BagOfPiecesClassifier(tokenizer.vocab_size, mc["embed_dim"], mc["hidden_dim"],
                                  cc["num_intents"], tokenizer.pad_id)
    optimizer = torch.optim.Adam(model.parameters(), lr=rc["learning_rate"])
    meter = evalkit.Meter()

    global_step = 0
    running, correct, seen = 0.0, 0, 0
    log_history = []
    epoch = 0
    data_iter = iter(train_dl)
    while global_step < rc["max_steps"]:
        try:
            batch = next(data_iter)
        except StopIteration:
            epoch += 1
            data_iter = iter(train_dl)
            batch = next(data_iter)
        meter.batch(batch)
        model.train()
        logits = model(batch["input_ids"], batch["attention_mask"])
        loss = F.cross_entropy(logits, batch["labels"])
        loss.backward()
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        global_step += 1
        running += loss.item()
        correct += int((logits.argmax(-1) == batch["labels"]).sum())
        seen += batch["labels"].numel()
        meter.step(loss)
        if global_step % rc["log_every"] == 0:
            entry = {"step": global_step, "epoch": epoch, "loss": round(running / rc["log_every"], 5),
                     "accuracy": round(correct / seen, 5)}
            log_history.append(entry)
            print(entry, flush=True)
            running, correct, seen = 0.0, 0, 0
        if meter.done():
            break
    meter.report(extra={"log_history": log_history, "vocab_size": tokenizer.vocab_size})


if __name__ == "__main__":
    main()
