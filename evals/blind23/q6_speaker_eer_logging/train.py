"""Speaker embedding training (classification head) with per-step verification metrics."""
import argparse
import importlib.util

import torch
import torch.nn.functional as F

from evalkit import Meter
from spkver.data import PKBatchSampler, make_corpus
from spkver.metrics import all_pairs_trials, eer_and_min_dcf
from spkver.model import TinyTDNN


def load_settings(path):
    spec = importlib.util.spec_from_file_location("settings", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--settings", default="settings.py")
    S = load_settings(ap.parse_args().settings)
    torch.manual_seed(S.SEED)
    torch.set_num_threads(1)

    feats, spk = make_corpus(S.NUM_SPEAKERS, S.UTTS_PER_SPEAKER, S.N_MELS, S.NUM_FRAMES, S.SEED)
    sampler = PKBatchSampler(spk, S.SPEAKERS_PER_BATCH, S.UTTS_PER_BATCH_SPEAKER, S.SEED)
    model = TinyTDNN(S.N_MELS, S.CHANNELS, S.EMBED_DIM, S.NUM_SPEAKERS)
    opt = torch.optim.Adam(model.parameters(), lr=S.LEARNING_RATE)
    meter = Meter()
    history = {"eer": [], "min_dcf": []}

    for step, idx in enumerate(sampler, start=1):
        x, y = feats[idx], spk[idx]
        meter.batch((x, y))
        emb, logits = model(x)
        loss = F.cross_entropy(logits, y)
        opt.zero_grad()
        loss.backward()
        opt.step()

        with torch.no_grad():
            e = F.normalize(emb.detach(), dim=-1)
            scores, labels = all_pairs_trials(e @ e.T, y)
        eer, min_dcf = eer_and_min_dcf(scores, labels, S.P_TARGET, S.C_MISS, S.C_FA)
        history["eer"].append(eer)
        history["min_dcf"].append(min_dcf)
        meter.step(loss)
        if step % S.LOG_EVERY == 0:
            print(f"step {step:4d}  loss {loss.item():.4f}  EER {100 * eer:.2f}%  minDCF {min_dcf:.4f}")
        if meter.done() or step >= S.MAX_STEPS:
            break
    meter.report({"eer": history["eer"], "min_dcf": history["min_dcf"]})


if __name__ == "__main__":
    main()
