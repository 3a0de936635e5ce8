"""The example of docs/python.md runs as written."""
import os
import re

import pytest

from conftest import ROOT, dataset


def test_the_documented_example_runs(monkeypatch, capsys):
    pytest.importorskip("torch")
    dataset("alerax/test_trees_2")
    text = (ROOT / "docs" / "python.md").read_text()
    code = re.search(r"```python\n(.*?)```", text, re.S).group(1)
    monkeypatch.chdir(ROOT)
    namespace = {}
    exec(compile(code, "docs/python.md", "exec"), namespace)
    printed = capsys.readouterr().out
    assert "<recPhylo" in printed
    # Adam's 200 steps got close to AleRax's optimum of this family (reference.json's last point).
    assert namespace["loss"].item() < 16.6
    assert os.path.samefile(os.getcwd(), ROOT)
