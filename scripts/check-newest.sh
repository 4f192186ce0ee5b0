#!/usr/bin/env bash
# Try the newest dependency versions pyproject.toml allows (constraints.txt ignored) in a venv of
# their own (outside the checkout, so the lint never reads it), and run a smoke subset of the
# tests against them. CI runs it after the suite, so a
# release inside the accepted ranges that breaks perfloop shows before a user meets it. It prints
# the versions that differ from constraints.txt; raise a pin there once the full suite passes.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
VENV=${PERFLOOP_NEWEST_VENV:-${TMPDIR:-/tmp}/perfloop-venv-newest}
[ -x "$VENV/bin/python" ] || "$PY" -m venv "$VENV"
"$VENV/bin/python" -m pip install --quiet --upgrade pip
"$VENV/bin/python" -m pip install --quiet "torch==${PERFLOOP_TORCH_VERSION:-2.13.0}"
"$VENV/bin/python" -m pip install --quiet --upgrade --upgrade-strategy eager -e ".[test]"
"$VENV/bin/python" - <<'PY'
import re
from importlib.metadata import version, PackageNotFoundError
pinned = {}
for line in open("constraints.txt"):
    match = re.match(r"^([A-Za-z0-9_.-]+)==(\S+)", line)
    if match:
        pinned[match.group(1)] = match.group(2)
newer = []
for name, pin in pinned.items():
    try:
        got = version(name)
    except PackageNotFoundError:
        continue
    if got != pin:
        newer.append(f"{name} {pin} -> {got}")
print("check-newest: " + ("; ".join(newer) if newer else "the newest allowed versions are the pinned ones"))
PY
# The records and contracts (pydantic, pyyaml), the audit log, the LLM bridge through the openai client
# (httpx), and a real pipeline through the optimize and verify nodes and a one-node checkpointed graph
# (langgraph, libcst, torch).
"$VENV/bin/python" -m pytest -q -p no:cacheprovider tests/test_knowledge_base.py tests/test_contracts.py \
    tests/test_events.py tests/test_audit.py tests/test_target.py tests/test_llm_bridge.py tests/test_gpu_codemods.py
