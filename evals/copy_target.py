"""Copy a bundled target pipeline into a fresh git repository (the project's tree is never touched)."""
from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
from pathlib import Path

TARGETS_DIR = Path(__file__).resolve().parent / "targets"
EVALKIT = TARGETS_DIR / "_evalkit.py"
_IDENTITY = ["-c", "user.name=perfloop-evals", "-c", "user.email=evals@perfloop.invalid"]


def target_names(targets_dir: Path = TARGETS_DIR) -> list[str]:
    """List the targets under ``targets_dir`` (folders with a perfloop.toml)."""
    return sorted(p.parent.name for p in Path(targets_dir).glob("*/perfloop.toml"))


def copy_target(name: str, dest: Path, with_oracle: bool = False, targets_dir: Path = TARGETS_DIR) -> Path:
    """Copy target ``name`` (plus evalkit.py) to ``dest`` and commit it; optionally commit the oracle on top.

    The copy holds neither the oracle nor the expectations, so the agent cannot see them.
    """
    targets_dir = Path(targets_dir)
    source = targets_dir / name
    if not (source / "perfloop.toml").exists():
        raise ValueError(f"no target {name!r} in {targets_dir}; known: {', '.join(target_names(targets_dir))}")
    dest = Path(dest)
    if dest.exists() and any(dest.iterdir()):
        raise ValueError(f"{dest} exists and is not empty; pass a new folder")
    shutil.copytree(source, dest, ignore=shutil.ignore_patterns("__pycache__", "oracle.patch", "expected.toml"),
                    dirs_exist_ok=True)
    evalkit = targets_dir / "_evalkit.py"
    shutil.copy(evalkit if evalkit.exists() else EVALKIT, dest / "evalkit.py")
    gitignore = dest / ".gitignore"
    if not gitignore.exists():
        gitignore.write_text("__pycache__/\n*.pyc\n")

    def git(*args: str, stdin: str | None = None) -> None:
        subprocess.run(["git", *_IDENTITY, *args], cwd=dest, check=True, capture_output=True, text=True, input=stdin)

    git("init", "-q", "-b", "main")
    git("add", "-A")
    git("commit", "-q", "-m", f"{name}: original pipeline")
    if with_oracle:
        git("apply", "-", stdin=(source / "oracle.patch").read_text())
        git("commit", "-q", "-am", f"{name}: oracle")
    return dest


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("name", help=f"one of: {', '.join(target_names())}")
    parser.add_argument("dest", help="new folder to create")
    parser.add_argument("--oracle", action="store_true", help="also commit the hand-made oracle patch")
    args = parser.parse_args(argv)
    try:
        print(copy_target(args.name, Path(args.dest), args.oracle))
    except ValueError as error:
        print(f"copy_target: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
