#!/usr/bin/env bash
# Set up .venv, copy the bundled data-bound example into a fresh git repo, and let
# perfloop optimize it unattended with the offline codemods.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
work=$(mktemp -d "${TMPDIR:-/tmp}/perfloop-example.XXXXXX")
.venv/bin/python -m perfloop.evals.copy_target data_bound "$work/data_bound"
echo "example repo: $work/data_bound" >&2
.venv/bin/perfloop run "$work/data_bound" --auto-approve --json
