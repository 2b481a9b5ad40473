"""Notebook 10 on its cassette: recording it again gives the committed cassette and outputs, and what was
recorded is what the notebook claims (thinking, a cited web search, caching, a session under its budget)."""

from __future__ import annotations

import json
import re
from typing import Any

import nbformat
import pytest

import tests.support.record_notebooks as record_notebooks

NAME = "10_thinking_and_web_search.ipynb"
COMMITTED = record_notebooks.NOTEBOOKS / NAME
SUMMARY = re.compile(r"^<notebook_tools\.(Chat|Prompt): \d+ items, \d+ prompts, [a-z_]+>$")


def outputs(notebook: Any) -> list[list[Any]]:
    """What nbval compares of each code cell: stream texts and text/plain (a chat's summary aside)."""
    return [
        [
            SUMMARY.sub("<a chat's summary>", o.get("text") or o.get("data", {}).get("text/plain"))
            for o in cell.outputs
            if o.get("text") or "text/plain" in o.get("data", {})
        ]
        for cell in notebook.cells
        if cell.cell_type == "code"
    ]


def test_the_committed_cassette_holds_what_the_notebook_shows() -> None:
    exchanges = json.loads(record_notebooks.cassette_of(COMMITTED).read_text(encoding="utf-8"))["exchanges"]
    first = exchanges[0]["request"]
    assert first["thinking"] == {"type": "adaptive"}
    assert [t.get("type", "custom") for t in first["tools"]][-1].startswith("web_search_")
    reply = [
        e["content_block"] for e in exchanges[0]["response"]["events"] if e["type"] == "content_block_start"
    ]
    assert [b["type"] for b in reply][:4] == ["thinking", "text", "server_tool_use", "web_search_tool_result"]
    cited = [e for e in exchanges[1]["response"]["events"] if e["type"] == "content_block_start"]
    assert any(e["content_block"].get("citations") is not None for e in cited)
    # every request after a session's first caches the conversation (a top-level breakpoint)
    assert all(("cache_control" in e["request"]) == (len(e["request"]["messages"]) > 1) for e in exchanges)
    # the long session: 41 requests, each with the budget's edit; what the model read stays under it
    long = [e for e in exchanges if "store_sales" in json.dumps(e["request"]["tools"])]
    assert len(long) == 41
    edits = long[-1]["request"]["context_management"]["edits"]
    assert edits[0]["trigger"] == {"type": "input_tokens", "value": 3000}
    read = []
    for exchange in long:
        start = next(e for e in exchange["response"]["events"] if e["type"] == "message_start")
        usage = start["message"]["usage"]
        read.append(
            sum(
                usage.get(k, 0)
                for k in ("input_tokens", "cache_read_input_tokens", "cache_creation_input_tokens")
            )
        )
    assert max(read) < 3000 < len(json.dumps(long[-1]["request"]["messages"])) / 3.5  # sent > budget > read
    assert read[-1] < max(read)  # old results were cleared


@pytest.mark.kernel
def test_re_recording_notebook_10_gives_the_committed_cassette_and_outputs(tmp_path) -> None:
    notebook, cassette = record_notebooks.record(NAME, tmp_path)
    committed = json.loads(record_notebooks.cassette_of(COMMITTED).read_text(encoding="utf-8"))
    assert json.loads(cassette.read_text(encoding="utf-8")) == committed
    assert outputs(nbformat.read(notebook, as_version=4)) == outputs(nbformat.read(COMMITTED, as_version=4))
