"""Where a codemod adds `import numpy as np`: before the first import, or after the docstring and future imports."""
from __future__ import annotations

import ast

import pytest


@pytest.mark.parametrize("head", ['"""Metrics for a detector."""\n', "from __future__ import annotations\n",
                                  '"""Metrics."""\nfrom __future__ import annotations\n'])
def test_numpy_is_imported_after_the_docstring_and_future_imports_of_a_file_without_imports(tmp_path, head):
    # blind16 b6: a module with a docstring and no import got `import numpy as np` above its docstring (no longer
    # the module's docstring); above `from __future__` it would not even compile.
    from perfloop.tools.change.codemods.imports import add_import

    body = "\n\ndef scale(xs):\n    return [v * 2.0 for v in xs]\n"
    text = add_import(head + body, "numpy")
    tree = ast.parse(text)
    assert ast.get_docstring(tree) == ast.get_docstring(ast.parse(head + body))
    assert text.startswith(head) and "import numpy\n" in text
    assert add_import("import os\n" + body, "numpy").startswith("import numpy\nimport os\n")
