"""Every Python code block of the README runs, in order, as a notebook would run it."""

import ast
import asyncio
import re
import textwrap
from pathlib import Path

README = Path(__file__).resolve().parent.parent / "README.md"


def python_blocks():
    # Blocks inside list items are indented; dedent them as Markdown does.
    return [
        textwrap.dedent(b) for b in re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.DOTALL)
    ]


def test_every_readme_code_block_runs(monkeypatch, capsys, tmp_path):
    monkeypatch.setenv("NOTEBOOK_TOOLS_SCRIPTED_USER", "1")  # no browser here: a scripted user answers
    monkeypatch.chdir(tmp_path)
    blocks = python_blocks()
    assert len(blocks) >= 5
    namespace: dict = {"__name__": "__readme__"}
    loop = asyncio.new_event_loop()
    try:
        for index, block in enumerate(blocks):
            code = compile(block, f"README block {index + 1}", "exec", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)
            outcome = eval(code, namespace)
            if asyncio.iscoroutine(outcome):
                loop.run_until_complete(outcome)
    finally:
        loop.close()
    out = capsys.readouterr().out
    assert "Model: scripted (no ANTHROPIC_API_KEY set)" in out
    assert "end_turn - Dropped them." in out
    assert namespace["overwrite"] is True
    assert "Name of the DataFrame column." in out
    assert (
        "[] ['this is not JSON (Expecting value at line 1, column 1); answer with JSON matching the schema shown']"
        in out
    )
    assert out.rstrip().endswith("end_turn")
    assert namespace["append_row"].input_schema["required"] == ["value"]
