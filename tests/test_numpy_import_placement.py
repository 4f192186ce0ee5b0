"""`import numpy as np` added to a file with a docstring and no imports goes after the docstring.

It went first, before the docstring, so the module lost its `__doc__` (the string became a plain expression
statement). Both places that add the import (the vectoriser's splice and `list_tensors`) now put it after the
docstring and any `from __future__` import.
"""
from __future__ import annotations

import ast

from perfloop.tools.change.codemods import CodemodContext, apply_codemod
from perfloop.tools.change.codemods.imports import add_import
from tests.conftest import hot

SOURCE = '''"""Scoring helpers: no imports of their own."""


def doubled_sum(xs):
    total = 0.0
    for v in xs:
        total += v * 2.0
    return total
'''


def test_the_vectoriser_keeps_the_docstring_first(tmp_path):
    (tmp_path / "scoring.py").write_text(SOURCE)
    ctx = CodemodContext(root=tmp_path, profile=hot("doubled_sum", "scoring.py", 4), params={})
    new = apply_codemod("vectorize_hot_function", ctx).files["scoring.py"]
    tree = ast.parse(new)
    assert ast.get_docstring(tree) == "Scoring helpers: no imports of their own."
    assert any(isinstance(n, ast.Import) and n.names[0].name == "numpy" for n in tree.body)
    namespace: dict = {}
    exec(compile(new, "scoring.py", "exec"), namespace)
    assert namespace["doubled_sum"]([1.0, 2.5]) == 7.0


def test_the_shared_import_adder_keeps_the_docstring_and_future_import_first():
    # list_tensors adds its numpy import through add_import(text, "numpy", "np").
    text = '"""Doc."""\nfrom __future__ import annotations\n\n\nX = 1\n'
    tree = ast.parse(add_import(text, "numpy", "np"))
    assert add_import(add_import(text, "numpy", "np"), "numpy", "np") == add_import(text, "numpy", "np")
    assert ast.get_docstring(tree) == "Doc."
    assert isinstance(tree.body[1], ast.ImportFrom) and tree.body[1].module == "__future__"
    assert isinstance(tree.body[2], ast.Import) and tree.body[2].names[0].asname == "np"
