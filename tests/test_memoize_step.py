"""The memo for the training loop's per-step work (`memoize_step_helper`: memoize_pure_helper, target main).

A metric callback often recomputes, every step, something of data that never changes: the censoring curve of a
fixed monitor cohort, the histogram of a reference set. Its candidates are the main process's sampled functions
in the target's files (ProfileFacts.main_hot_functions), not the per-sample path; the loop's own function, which
trains, is refused as impure. Replay then decides on calls captured over two steps: a helper whose calls never
repeat an argument (a metric of each batch's own outputs) is refused before any pipeline run, because a
remembered result would never serve. Three differently written helpers, and one real pipeline.
"""
from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from perfloop.tools.change.codemods import CodemodContext, NotApplicable, ProfileFacts, apply_codemod

STEP_FILES = {
    # a module function of a metrics file, called by a callback method
    "metrics.py": """
        def censoring_curve(times, events):
            curve, g = [], 1.0
            for s in sorted(set(times)):
                censored = sum(1 for t, e in zip(times, events) if t == s and not e)
                if censored:
                    g *= 1.0 - censored / sum(1 for t in times if t >= s)
                curve.append((s, g))
            return curve


        class Monitor:
            def __init__(self, times, events):
                self.times, self.events = times, events
                self.history = []

            def reference_hist(self, values, bins):
                counts = [0] * bins
                for v in values:
                    counts[min(int(v * bins), bins - 1)] += 1
                return counts

            def on_step_end(self, step):
                curve = censoring_curve(self.times, self.events)
                self.history.append((step, curve[-1][1]))
    """,
    # the training loop itself, which trains: never remembered
    "loop.py": """
        from metrics import Monitor


        def fit(model, batches, monitor, optimizer):
            for step, (x, y) in enumerate(batches):
                loss = ((model(x) - y) ** 2).mean()
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
                monitor.on_step_end(step)
    """,
}


def _write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        (root / name).write_text(textwrap.dedent(text).lstrip())


def _ref(root: Path, file: str, qualname: str):
    from perfloop.tools.change.codemods.base import FunctionRef

    text = (root / file).read_text().splitlines()
    short = qualname.rsplit(".", 1)[-1]
    line = next(i for i, l in enumerate(text, 1) if l.lstrip().startswith(f"def {short}("))
    return FunctionRef(file=file, name=qualname, line=line)


@pytest.mark.parametrize("order, chosen", [
    (["loop.py:fit", "metrics.py:Monitor.on_step_end", "metrics.py:censoring_curve"], "censoring_curve"),
    (["metrics.py:Monitor.reference_hist", "metrics.py:censoring_curve"], "Monitor.reference_hist"),
])
def test_the_step_memo_reads_the_training_loops_sampled_functions(tmp_path, order, chosen):
    _write(tmp_path, STEP_FILES)
    refs = [_ref(tmp_path, *spec.split(":")) for spec in order]
    facts = ProfileFacts(main_hot_functions=refs)  # no per-sample hot function at all
    result = apply_codemod("memoize_pure_helper", CodemodContext(root=tmp_path, profile=facts,
                                                                 params={"target": "main"}))
    assert result.replay.function == chosen and result.replay.per_step
    assert f"_{chosen.rsplit('.', 1)[-1]}_uncached" in result.files["metrics.py"]


def test_the_loop_and_a_callback_that_records_are_refused_with_their_reasons(tmp_path):
    _write(tmp_path, STEP_FILES)
    facts = ProfileFacts(main_hot_functions=[_ref(tmp_path, "loop.py", "fit"),
                                             _ref(tmp_path, "metrics.py", "Monitor.on_step_end")])
    with pytest.raises(NotApplicable, match="training loop's per-step work") as refused:
        apply_codemod("memoize_pure_helper", CodemodContext(root=tmp_path, profile=facts, params={"target": "main"}))
    assert "fit:" in str(refused.value) and "Monitor.on_step_end:" in str(refused.value)


def test_without_sampled_functions_of_the_loop_it_says_so(tmp_path):
    _write(tmp_path, STEP_FILES)
    with pytest.raises(NotApplicable, match="no function of the training loop's own host time"):
        apply_codemod("memoize_pure_helper", CodemodContext(root=tmp_path, profile=ProfileFacts(),
                                                            params={"target": "main"}))


STEP_PIPELINE = '''
"""A survival-style model whose per-step monitor recomputes the censoring curve of a fixed cohort."""
import argparse
import random

import torch

COHORT = random.Random(7)
TIMES = [COHORT.randint(1, 400) for _ in range(900)]
EVENTS = [COHORT.random() < 0.6 for _ in range(900)]


def censoring_curve(times, events):
    curve, g = [], 1.0
    for s in sorted(set(times)):
        censored = sum(1 for t, e in zip(times, events) if t == s and not e)
        if censored:
            g *= 1.0 - censored / sum(1 for t in times if t >= s)
        curve.append(g)
    return curve


def batch_error(preds, targets):
    return sum(abs(p - t) for p, t in zip(preds, targets)) / len(preds)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=1000)
    args = parser.parse_args()
    torch.manual_seed(0)
    torch.set_num_threads(1)
    model = torch.nn.Linear(4, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    for step in range(args.steps):
        x = torch.randn(32, 4)
        y = x.sum(dim=1, keepdim=True)
        out = model(x)
        loss = ((out - y) ** 2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        err = batch_error(out.detach().flatten().tolist(), y.flatten().tolist())
        g_end = censoring_curve(TIMES, EVENTS)[-1]
        if step % 100 == 0:
            print(step, round(err, 4), g_end)


if __name__ == "__main__":
    main()
'''


def test_on_a_real_pipeline_a_per_batch_metric_is_refused_and_the_fixed_cohorts_curve_passes(tmp_path):
    """Real capture and replay of the training loop's functions: `batch_error` gets each batch's own values, so its
    captured calls never repeat and its memo is refused before any pipeline run; the proposer asks again with it
    skipped and gets `censoring_curve`, whose calls repeat the cohort every step."""
    from types import SimpleNamespace as NS

    from perfloop.agent.proposers import codemod as proposer
    from perfloop.tools.contract.target import load_target
    from perfloop.tools.measure.profiler import ProbeSettings
    from tests.conftest import git, make_repo

    repo = make_repo(tmp_path / "repo", "tokenizer")
    (repo / "train.py").write_text(STEP_PIPELINE.lstrip())
    git(repo, "commit", "-qam", "a per-step monitor")
    facts = ProfileFacts(main_hot_functions=[_ref(repo, "train.py", "main"), _ref(repo, "train.py", "batch_error"),
                                             _ref(repo, "train.py", "censoring_curve")])
    recorded = []
    ctx = NS(record=recorded.append, next_run=lambda label: tmp_path / f"{label}-{len(recorded)}",
             protected=lambda tree: ProbeSettings(), workspace=NS(candidate_tree=repo, reset_candidate=lambda: None),
             state=NS(profile=None, target=load_target(repo)))
    result = proposer._replayed_choice(ctx, "memoize_pure_helper",
                                       CodemodContext(root=repo, profile=facts, params={"target": "main"}), repo)
    assert [r.function for r in recorded] == ["batch_error", "censoring_curve"]
    assert result.replay.function == "censoring_curve" and result.gain_from_epoch is None
    assert any("never repeated an argument" in note for note in result.notes), result.notes
