"""Every Python code block of the README runs, in order, as a notebook would run it.

The README keeps the fifteen lines; the rest of its examples live on the documentation site's
pages, which tests/test_docs_examples.py runs the same way (the same extraction and runner).
"""

from pathlib import Path

from tests.test_docs_examples import python_blocks, run_blocks

README = Path(__file__).resolve().parent.parent / "README.md"


def test_every_readme_code_block_runs(monkeypatch, capsys, tmp_path):
    monkeypatch.setenv("NOTEBOOK_TOOLS_SCRIPTED_USER", "1")  # no browser here: a scripted user answers
    monkeypatch.chdir(tmp_path)
    blocks = python_blocks(README.read_text())
    assert len(blocks) >= 3
    namespace = run_blocks(blocks, "README")
    out = capsys.readouterr().out
    assert "Model: scripted (no ANTHROPIC_API_KEY set)" in out
    assert "end_turn - Dropped them." in out
    assert namespace["overwrite"] is True
