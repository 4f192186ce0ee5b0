"""Classify the style of short piano-roll excerpts rendered from MIDI-like event lists."""
import argparse
import runpy
from types import SimpleNamespace

import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader

from evalkit import Meter
from rollnet.data import MidiWindows, collate_rolls
from rollnet.model import StyleNet
from rollnet.synth import STYLES


def load_hparams(path):
    ns = runpy.run_path(path)
    return SimpleNamespace(**{k: v for k, v in ns.items() if k.isupper()})


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--config", default="hparams.py")
    hp = load_hparams(parser.parse_args().config)

    torch.manual_seed(hp.SEED)
    torch.set_num_threads(1)

    dataset = MidiWindows(hp)
    sampler_gen = torch.Generator()
    sampler_gen.manual_seed(hp.SEED)
    loader = DataLoader(dataset, batch_size=hp.BATCH_SIZE, shuffle=True, drop_last=True,
                        num_workers=hp.NUM_WORKERS, collate_fn=collate_rolls, generator=sampler_gen)
    model = StyleNet(hp.HIDDEN, len(STYLES))
    optimizer = torch.optim.Adam(model.parameters(), lr=hp.LR)
    meter = Meter()

    stats = {"epoch_loss": [], "epoch_acc": [], "mean_notes_per_window": []}
    global_step = 0
    for epoch in range(hp.EPOCHS):
        loss_sum, correct, count, notes = 0.0, 0, 0, 0
        for batch in loader:
            meter.batch(batch.leaves())
            logits = model(batch.roll, batch.onsets)
            loss = F.cross_entropy(logits, batch.style)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            meter.step(loss)
            global_step += 1
            loss_sum += loss.item() * len(batch.style)
            correct += (logits.argmax(-1) == batch.style).sum().item()
            count += len(batch.style)
            notes += batch.n_notes.sum().item()
            if global_step % hp.LOG_EVERY == 0:
                print(f"epoch {epoch} step {global_step} loss {loss.item():.4f}")
            if meter.done():
                break
        stats["epoch_loss"].append(loss_sum / count)
        stats["epoch_acc"].append(correct / count)
        stats["mean_notes_per_window"].append(notes / count)
        if meter.done():
            break
    meter.report(extra=stats)


if __name__ == "__main__":
    main()
