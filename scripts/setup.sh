#!/usr/bin/env bash
# Create .venv with perfloop and its dependencies. torch is pinned to the CPU build
# here (an unpinned torch may pull a multi-GB CUDA build); perfloop itself accepts any
# recent torch. Everything else comes at the versions in constraints.txt (the ones the
# tests run against); PERFLOOP_NEWEST=1 installs the newest versions pyproject.toml allows instead.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
[ -x .venv/bin/python ] || "$PY" -m venv .venv
.venv/bin/python -m pip install --quiet --upgrade pip
.venv/bin/python -m pip install --quiet "torch==${PERFLOOP_TORCH_VERSION:-2.13.0}"
if [ "${PERFLOOP_NEWEST:-0}" = 1 ]; then
    .venv/bin/python -m pip install --quiet --upgrade --upgrade-strategy eager -e ".[test]"
else
    .venv/bin/python -m pip install --quiet -c constraints.txt -e ".[test]"
fi
