#!/usr/bin/env bash
# Create .venv with perfloop and its dependencies. torch is pinned to the CPU build
# here (an unpinned torch may pull a multi-GB CUDA build); perfloop itself accepts any
# recent torch.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
[ -x .venv/bin/python ] || "$PY" -m venv .venv
.venv/bin/python -m pip install --quiet --upgrade pip
.venv/bin/python -m pip install --quiet "torch==${PERFLOOP_TORCH_VERSION:-2.13.0}"
.venv/bin/python -m pip install --quiet -e ".[test]"
