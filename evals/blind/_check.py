#!/usr/bin/env python3
"""Check one blind pipeline against its oracle.

    python evals/blind/_check.py NAME [NAME ...] [--runs 3] [--steps 60] [--natural]

For each NAME: copy evals/blind/NAME to a temp dir twice (as is, and with oracle.patch
applied by `git apply`), put the shared meter next to train.py as evalkit.py, then run
the pipeline's own command (from perfloop.toml) with EVAL_MAX_STEPS set, interleaved
(orig, oracle, orig, oracle, ...). Prints the median steady samples/s of each, the
speed-up, and whether batch digests, loss curves and `extra` are identical.

--natural also runs the original once with EVAL_MAX_STEPS unset (the loop must end on
its own) and prints its step count and wall time.

Standard library only; the pipelines run under /work/main/.venv/bin/python unless
--python says otherwise. A later wave's _check.py loads this one with HERE set to its own folder.
"""
import argparse
import json
import os
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import tomllib
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
EVALKIT = REPO / "evals" / "targets" / "_evalkit.py"
DEFAULT_PY = REPO / ".venv" / "bin" / "python"
IGNORE = shutil.ignore_patterns("data", "__pycache__", "*.pyc", "evalkit.py")


def load_cfg(folder):
    with open(folder / "perfloop.toml", "rb") as fh:
        return tomllib.load(fh)["tool"]["perfloop"]


def prepare(name, dest, with_oracle):
    src = HERE / name
    shutil.copytree(src, dest, ignore=IGNORE)
    shutil.copy(EVALKIT, dest / "evalkit.py")
    if with_oracle:
        patch = src / "oracle.patch"
        subprocess.run(["git", "apply", "--check", str(patch)], cwd=dest, check=True)
        subprocess.run(["git", "apply", str(patch)], cwd=dest, check=True)


def command_for(folder, python):
    cfg = load_cfg(folder)
    cmd = cfg["command"].replace("{config}", cfg["config"])
    argv = shlex.split(cmd)
    if argv and argv[0] in ("python", "python3"):
        argv[0] = str(python)
    return argv


def run_once(folder, python, steps, timeout):
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    env.pop("EVAL_MAX_STEPS", None)
    if steps is not None:
        env["EVAL_MAX_STEPS"] = str(steps)
    t0 = time.perf_counter()
    proc = subprocess.run(command_for(folder, python), cwd=folder, env=env,
                          capture_output=True, text=True, timeout=timeout)
    wall = time.perf_counter() - t0
    record = None
    for line in proc.stdout.splitlines():
        if line.startswith("EVALKIT "):
            record = json.loads(line[len("EVALKIT "):])
    if proc.returncode != 0 or record is None:
        sys.stderr.write(proc.stdout[-3000:] + "\n" + proc.stderr[-3000:] + "\n")
        raise RuntimeError(f"{folder}: exit {proc.returncode}, EVALKIT line {'found' if record else 'missing'}")
    record["_wall"] = wall
    return record


def rel_diff(a, b):
    return abs(a - b) / max(abs(a), abs(b), 1e-12)


def check(name, runs, steps, python, natural, timeout):
    tmp = Path(tempfile.mkdtemp(prefix=f"{HERE.name}-{name}-"))
    try:
        orig, orac = tmp / "original", tmp / "oracle"
        prepare(name, orig, False)
        prepare(name, orac, True)
        res = {"original": [], "oracle": []}
        for _ in range(runs):
            for label, folder in (("original", orig), ("oracle", orac)):
                res[label].append(run_once(folder, python, steps, timeout))
        o, p = res["original"], res["oracle"]
        med_o = statistics.median(r["steady_samples_per_s"] for r in o)
        med_p = statistics.median(r["steady_samples_per_s"] for r in p)
        digest_same = all(r["batch_digest"] == o[0]["batch_digest"] for r in o + p)
        orig_repeatable = all(r["batch_digest"] == o[0]["batch_digest"] for r in o)
        loss_same = all(r["losses"] == o[0]["losses"] for r in o + p)
        max_loss_rel = max(rel_diff(a, b) for a, b in zip(o[0]["losses"], p[0]["losses"])) \
            if len(o[0]["losses"]) == len(p[0]["losses"]) else float("inf")
        extra_same = all(r["extra"] == o[0]["extra"] for r in o + p)
        print(f"== {name}")
        print(f"  original samples/s: {[round(r['steady_samples_per_s'], 1) for r in o]}  "
              f"wall s: {[round(r['_wall'], 1) for r in o]}")
        print(f"  oracle   samples/s: {[round(r['steady_samples_per_s'], 1) for r in p]}  "
              f"wall s: {[round(r['_wall'], 1) for r in p]}")
        print(f"  median original {med_o:.1f}  oracle {med_p:.1f}  speed-up x{med_p / med_o:.2f}")
        print(f"  steps {o[0]['steps']}/{p[0]['steps']}  original repeatable: {orig_repeatable}")
        print(f"  batch_digest identical: {digest_same}")
        print(f"  losses identical: {loss_same}  (max rel diff {max_loss_rel:.3g})")
        print(f"  extra identical: {extra_same}")
        if not extra_same:
            print(f"    original extra: {json.dumps(o[0]['extra'])[:400]}")
            print(f"    oracle   extra: {json.dumps(p[0]['extra'])[:400]}")
        if natural:
            r = run_once(orig, python, None, timeout)
            print(f"  natural end (EVAL_MAX_STEPS unset): {r['steps']} steps in {r['_wall']:.1f} s")
        return {"name": name, "speedup": med_p / med_o, "digest_same": digest_same,
                "loss_same": loss_same, "extra_same": extra_same, "max_loss_rel": max_loss_rel}
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("names", nargs="+")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--steps", type=int, default=60)
    ap.add_argument("--python", default=str(DEFAULT_PY))
    ap.add_argument("--natural", action="store_true")
    ap.add_argument("--timeout", type=float, default=600)
    args = ap.parse_args()
    names = args.names
    if names == ["all"]:
        names = sorted(p.name for p in HERE.iterdir() if p.is_dir() and (p / "perfloop.toml").exists())
    rows = []
    for name in names:
        rows.append(check(name, args.runs, args.steps, args.python, args.natural, args.timeout))
    if len(rows) > 1:
        print("\nname | speed-up | digest | losses | extra")
        for r in rows:
            print(f"{r['name']} | x{r['speedup']:.2f} | {r['digest_same']} | {r['loss_same']} | {r['extra_same']}")


if __name__ == "__main__":
    main()
