"""Every Python code block of the documentation site runs, page by page, as a notebook would run it.

Each page of docs/ runs in a namespace of its own (a reader copies one page's examples, not the
site's), its blocks in order. A block not meant to run is marked as README's are: not `python`
(`text`, `bash`). Where a page shows what a block prints (a `text` block right after it), the
block must print that.
"""

import ast
import asyncio
import re
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"

FENCE = re.compile(
    r"^(?P<indent>[ ]*)```(?P<lang>[\w-]*)\n(?P<body>.*?)^(?P=indent)```[ ]*$", re.DOTALL | re.MULTILINE
)


def code_blocks(text: str) -> list[tuple[str, str, str]]:
    """(language, code, the text between this block and the previous one), dedented as Markdown does."""
    blocks, end = [], 0
    for match in FENCE.finditer(text):
        blocks.append((match["lang"], textwrap.dedent(match["body"]), text[end : match.start()]))
        end = match.end()
    return blocks


def python_blocks(text: str) -> list[str]:
    return [code for lang, code, _ in code_blocks(text) if lang == "python"]


def shown_outputs(text: str) -> list[str]:
    """The `text` blocks that directly follow a `python` block: what that block prints."""
    blocks = code_blocks(text)
    return [
        code
        for (lang, code, between), (prev_lang, _, _) in zip(blocks[1:], blocks, strict=False)
        if lang == "text" and prev_lang == "python" and not between.strip()
    ]


def run_blocks(blocks: list[str], label: str) -> dict:
    """Run the blocks in order in one namespace, top-level `await` allowed, as notebook cells."""
    namespace: dict = {"__name__": "__docs__"}
    loop = asyncio.new_event_loop()
    try:
        for index, block in enumerate(blocks):
            code = compile(block, f"{label} block {index + 1}", "exec", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)
            outcome = eval(code, namespace)
            if asyncio.iscoroutine(outcome):
                loop.run_until_complete(outcome)
    finally:
        loop.close()
    return namespace


PAGES = sorted(p for p in DOCS.rglob("*.md") if python_blocks(p.read_text()))

# What some pages' examples must print or define, beyond the outputs the pages show.
EXPECTED = {
    "getting-started.md": ["Model: scripted (no ANTHROPIC_API_KEY set)", "end_turn - Dropped them."],
    "concepts/tools.md": [
        "Name of the DataFrame column.",
        "[] ['this is not JSON (Expecting value at line 1, column 1); answer with JSON matching the schema shown']",
    ],
    "concepts/pause-and-resume.md": ["end_turn"],
}


def test_every_public_name_has_its_row_in_the_reference_index():
    import notebook_tools as nt

    index = (DOCS / "reference" / "index.md").read_text(encoding="utf-8")
    assert [name for name in nt.__all__ if f"| `{name}` |" not in index] == []


def test_the_pages_have_examples():
    assert len(PAGES) >= 12
    assert sum(len(python_blocks(p.read_text())) for p in PAGES) >= 15


@pytest.mark.parametrize("page", PAGES, ids=[str(p.relative_to(DOCS)) for p in PAGES])
def test_every_example_on_the_page_runs(page, monkeypatch, capsys, tmp_path):
    monkeypatch.setenv("NOTEBOOK_TOOLS_SCRIPTED_USER", "1")  # no browser here: a scripted user answers
    monkeypatch.chdir(tmp_path)
    text = page.read_text()
    name = str(page.relative_to(DOCS))
    namespace = run_blocks(python_blocks(text), name)
    out = capsys.readouterr().out
    for expected in EXPECTED.get(name, []):
        assert expected in out
    for shown in shown_outputs(text):
        # the lines the page shows appear in the output, in that order
        position = 0
        for line in shown.strip().splitlines():
            found = out.find(line, position)
            assert found >= 0, f"{name} shows {line!r}, which its example does not print:\n{out}"
            position = found + len(line)
    if name == "getting-started.md":
        assert namespace["overwrite"] is True
    if name == "concepts/pause-and-resume.md":
        assert namespace["append_row"].input_schema["required"] == ["value"]
