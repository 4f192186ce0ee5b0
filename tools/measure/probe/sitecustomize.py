"""Attach perfloop's probe to a pipeline process; inert unless PERFLOOP_PROBE_DIR is set.

perfloop puts this folder first on PYTHONPATH, so Python imports this file at
start-up instead of any ``sitecustomize`` the environment already had; that one is
chain-loaded first so the user's set-up still runs.
"""
import os
import sys


def _chain_load_next_sitecustomize() -> None:
    here = os.path.dirname(os.path.abspath(__file__))
    ours = sys.modules.pop("sitecustomize", None)
    saved_path = list(sys.path)
    try:
        sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != here]
        import importlib

        try:
            importlib.import_module("sitecustomize")
        except ModuleNotFoundError as error:
            if error.name != "sitecustomize":
                raise
    finally:
        sys.path[:] = saved_path
        if ours is not None:
            sys.modules["sitecustomize"] = ours


_chain_load_next_sitecustomize()

from perfloop_layout import Env  # noqa: E402  (after the chain-load: the user's set-up runs first)

if os.environ.get(Env.PROBE_DIR):
    import perfloop_probe

    perfloop_probe.install()

if os.environ.get(Env.CAPTURE):
    # Function-level replay's argument capture (tools/check/replay.py); optional, so a
    # failure to arm it is reported and the pipeline runs on.
    try:
        import perfloop_capture

        perfloop_capture.install()
    except Exception as error:  # noqa: BLE001 - never break the user's pipeline
        sys.stderr.write(f"perfloop: argument capture not armed: {type(error).__name__}: {error}\n")
