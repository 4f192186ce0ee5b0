"""Next-token training of a bar-local transformer on REMI event streams."""
import argparse

import torch

from evalkit import Meter
from remi.collator import RemiBarCollator
from remi.data import RemiDataset
from remi.modeling import RemiLM
from remi.trainer import Trainer


class MeterCallback:
    def __init__(self, meter):
        self.meter = meter

    def on_batch(self, inputs):
        self.meter.batch(inputs)

    def on_step_end(self, loss):
        self.meter.step(loss)

    def should_stop(self):
        return self.meter.done()


def parse_args():
    p = argparse.ArgumentParser(fromfile_prefix_chars="@")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--num_songs", type=int, default=600)
    p.add_argument("--max_seq_len", type=int, default=256)
    p.add_argument("--min_seq_len", type=int, default=120)
    p.add_argument("--bar_window", type=int, default=4)
    p.add_argument("--max_bars", type=int, default=32)
    p.add_argument("--d_model", type=int, default=48)
    p.add_argument("--num_heads", type=int, default=2)
    p.add_argument("--ffn_dim", type=int, default=96)
    p.add_argument("--per_device_train_batch_size", type=int, default=16)
    p.add_argument("--num_train_epochs", type=int, default=1)
    p.add_argument("--max_steps", type=int, default=-1)
    p.add_argument("--learning_rate", type=float, default=2e-3)
    p.add_argument("--logging_steps", type=int, default=20)
    return p.parse_args()


def main():
    args = parse_args()
    torch.manual_seed(args.seed)
    torch.set_num_threads(1)
    ds = RemiDataset(args.num_songs, args.min_seq_len, args.max_seq_len, args.seed)
    model = RemiLM(args.d_model, args.num_heads, args.ffn_dim, args.max_bars)
    meter = Meter()
    trainer = Trainer(model, args, ds, RemiBarCollator(args.bar_window, args.max_bars), [MeterCallback(meter)])
    state = trainer.train()
    meter.report({"global_step": state["global_step"], "log_history": state["log_history"]})


if __name__ == "__main__":
    main()
