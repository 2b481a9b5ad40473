"""The example notebooks are saved lean: outputs a reader sees, no stale widget state or widget code."""

import json
from pathlib import Path

import pytest

NOTEBOOKS = sorted((Path(__file__).resolve().parents[1] / "notebooks").glob("*.ipynb"))


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_a_saved_example_holds_no_widget_state_and_no_widget_code(path):
    text = path.read_text(encoding="utf-8")
    notebook = json.loads(text)
    # saved widget state is a copy of models from a kernel that is gone: JupyterLab restores live
    # widgets from the kernel, and the stale copy carried the whole widget module (~300 KB) each
    assert "widgets" not in notebook["metadata"]
    assert "application/vnd.jupyter.widget-state+json" not in text
    assert len(text) < 64_000, f"{path.name} is {len(text):,} characters"


def test_every_example_is_checked():
    assert len(NOTEBOOKS) >= 9
