"""Five-grade ordinal classifier (CORAL) with per-step quadratic weighted kappa logging."""
import argparse
import importlib.util
import time

import torch

from evalkit import Meter
from grading import CoralMLP, FastTensorDataLoader, KappaLogger, coral_loss, coral_predict, make_grading_data


def load_settings(path):
    spec = importlib.util.spec_from_file_location("settings", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--settings", default="settings_grading.py")
    S = load_settings(ap.parse_args().settings)

    torch.set_num_threads(1)
    torch.manual_seed(S.SEED)
    n_grades = len(S.GRADE_NAMES)
    x, y = make_grading_data(S.NUM_SAMPLES, S.NUM_FEATURES, n_grades, S.LABEL_NOISE, S.SEED)
    loader = FastTensorDataLoader(x, y, batch_size=S.BATCH_SIZE, shuffle=True,
                                  generator=torch.Generator().manual_seed(S.SEED), drop_last=True)
    model = CoralMLP(S.NUM_FEATURES, S.HIDDEN, n_grades)
    opt = torch.optim.AdamW(model.parameters(), lr=S.LR, weight_decay=S.WEIGHT_DECAY)
    kappa = KappaLogger(n_grades, S.LOG_EVERY, S.GRADE_NAMES)
    meter = Meter()

    step, t0 = 0, time.time()
    for epoch in range(S.EPOCHS):
        kappa.reset()
        for xb, yb in loader:
            meter.batch((xb, yb))
            logits = model(xb)
            loss = coral_loss(logits, yb)
            opt.zero_grad()
            loss.backward()
            opt.step()
            meter.step(loss)
            step += 1
            with torch.no_grad():
                kappa.on_train_batch_end(step, coral_predict(logits), yb)
            if meter.done():
                break
        print(f"epoch {epoch} done in {time.time() - t0:.1f}s", flush=True)
        if meter.done():
            break
    meter.report(extra={
        "epoch_qwk": [h["epoch_qwk"] for h in kappa.history],
        "batch_qwk": [h["batch_qwk"] for h in kappa.history],
        "confusion": kappa.last_confusion,
    })


if __name__ == "__main__":
    main()
