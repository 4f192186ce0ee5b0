#!/usr/bin/env bash
# Set up .venv and run the test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
# The report test renders a real report in headless Chromium; install Debian's package where
# missing and possible (root, apt-get). Without it that test is skipped and says why.
if ! command -v chromium >/dev/null && ! command -v chromium-browser >/dev/null && command -v apt-get >/dev/null; then
    SUDO=""
    [ "$(id -u)" = 0 ] || SUDO="sudo -n"
    { $SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium; } >/dev/null 2>&1 \
        || echo "test.sh: could not install chromium; the headless report test will be skipped" >&2
fi
# The lint first (unused imports, redefinitions, import order, lines past 140): seconds, and a
# reviewer's time goes to design.
.venv/bin/ruff check .
# Two workers, a module's tests on one (module-scoped fixtures are whole profiled runs, set up once):
# most of the suite waits on real pipelines in subprocesses, so two cores run it in about half the time.
# PERFLOOP_TEST_WORKERS=0 runs it in one process.
# Tests marked serial (a speed decision or a sampler's timing decides them) run alone afterwards.
WORKERS=${PERFLOOP_TEST_WORKERS:-2}
if [ "$WORKERS" = 0 ]; then
    .venv/bin/python -m pytest -q "$@"
else
    # Exit status 5 is "no test selected" (arguments that pick tests of one phase only): not a failure.
    # Two workers share two cores on purpose here: each sees the other's pipelines as interference,
    # so this phase measures and reports it without re-running (PERFLOOP_INTERFERENCE=report); the
    # serial phase runs with the default (contaminated runs left out and run again).
    # --durations: the slowest tests of each phase, for keeping CI's time in check.
    PERFLOOP_INTERFERENCE=report .venv/bin/python -m pytest -q -n "$WORKERS" --dist loadscope -m "not serial" \
        --durations=15 "$@" || [ $? = 5 ]
    .venv/bin/python -m pytest -q -m serial --durations=10 "$@" || [ $? = 5 ]
fi
