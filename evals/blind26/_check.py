#!/usr/bin/env python3
"""Check one blind26 pipeline against its oracle: evals/blind/_check.py pointed at this folder.

    python evals/blind26/_check.py NAME [NAME ...] [--runs 3] [--steps 60] [--natural]

Same flags and output as the first wave's checker (standard library only).
"""
import importlib.util
from pathlib import Path

HERE = Path(__file__).resolve().parent
_spec = importlib.util.spec_from_file_location("blind_check", HERE.parent / "blind" / "_check.py")
checker = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(checker)
checker.HERE = HERE

if __name__ == "__main__":
    checker.main()
