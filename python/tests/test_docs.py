# SPDX-License-Identifier: Apache-2.0
"""The examples of docs/python.md run as written (each block on its own)."""

import os
import re

import pytest

DOC = os.path.join(os.path.dirname(__file__), "..", "..", "docs",
                   "python.md")


def _blocks():
    with open(DOC, encoding="utf-8") as f:
        return re.findall(r"```python\n(.*?)```", f.read(), re.S)


def test_doc_has_examples():
    assert len(_blocks()) == 6


@pytest.mark.parametrize("index", range(6))
def test_doc_example_runs(index, capsys):
    exec(compile(_blocks()[index], "docs/python.md[%d]" % index, "exec"), {})
    assert capsys.readouterr().out  # each example prints its result
