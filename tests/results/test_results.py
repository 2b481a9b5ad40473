"""Rich results: kinds, their exact model-facing content, the DataFrame budget, the converter registry."""

import asyncio
import base64
import time
import tracemalloc

import numpy as np
import pandas as pd
import pydantic
import pytest

import notebook_tools as nt
from notebook_tools import results as r
from notebook_tools import testing as t

PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
)


@pytest.mark.parametrize("kind", ["text_report", "git.status", "mycompany.report", "a1_b.c2", "x"])
def test_valid_kinds(kind):
    assert r.is_valid_kind(kind)
    assert r.RichResult(kind=kind).kind == kind


@pytest.mark.parametrize(
    "kind", ["Invalid", "", "1abc", ".x", "a..b", "a.", "a-b", "a b", "é", "a" * 101, 7, None]
)
def test_invalid_kinds_are_refused(kind):
    assert not r.is_valid_kind(kind)
    with pytest.raises(pydantic.ValidationError):
        r.RichResult(kind=kind)


def test_well_known_kinds():
    assert all(r.is_well_known(k) for k in ("text", "diff", "file_content", "file_list", "json"))
    assert not r.is_well_known("git.status") and not r.is_well_known("Text")


def test_display_hints_are_checked():
    hints = r.DisplayHints(view="code", language="python", collapsed=True, max_height=300)
    assert hints.view == "code"
    with pytest.raises(pydantic.ValidationError):
        r.DisplayHints(view="iframe")
    with pytest.raises(pydantic.ValidationError):
        r.DisplayHints(language="<script>")
    with pytest.raises(pydantic.ValidationError):
        r.RichResult(kind="json", data={"x": object()})


def test_text_model_content():
    assert r.model_content(r.text("hello"), 100) == "hello"
    assert r.model_content(r.text("hello", summary="greeting"), 100) == "greeting\nhello"


def test_diff_model_content_is_the_summary_and_a_unified_diff():
    result = r.diff("src/app.py", "a\nb\nc\n", "a\nB\nc\nd\n")
    assert result.data["bytes_written"] == 8
    assert r.model_content(result, 1000) == (
        "Edited src/app.py: +2 -1 lines\n"
        "--- a/src/app.py\n+++ b/src/app.py\n@@ -1,3 +1,4 @@\n a\n-b\n+B\n c\n+d"
    )
    new = r.diff("new.txt", "", "x\n", is_new=True)
    assert (
        r.model_content(new, 1000)
        == "Created new.txt (2 bytes)\n--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1 @@\n+x"
    )


def test_file_content_list_and_json_model_content():
    assert r.model_content(r.file_content("a.py", "print(1)\n"), 100) == "a.py (9 bytes)\nprint(1)\n"
    listing = r.file_list("data", ["a.csv", {"name": "raw", "is_dir": True, "size": 0}])
    assert listing.data["count"] == 2
    assert r.model_content(listing, 100) == "data: 2 entries\na.csv\nraw/"
    assert r.model_content(r.json_result({"a": [1, 2]}), 100) == '{"a": [1, 2]}'
    assert r.model_content(r.json_result({"a": 1}, summary="one key"), 100) == 'one key\n{"a": 1}'


def test_a_custom_kind_is_labelled_and_unknown_kinds_fall_back_to_json():
    custom = r.RichResult(kind="git.status", data={"branch": "main", "clean": True}, summary="on main, clean")
    assert r.model_content(custom, 100) == '[git.status] on main, clean\n{"branch": "main", "clean": true}'


def test_the_budget_cuts_text_and_says_so():
    out = r.model_content(r.text("x" * 500), 100)
    notice = "\n[truncated: 500 characters in all]"
    assert out == "x" * (100 - len(notice)) + notice and len(out) == 100


def test_binary_images_are_image_blocks_pdfs_documents_and_other_files_named():
    image = r.model_content(r.binary(PNG, "image/png", filename="dot.png"), 1000)
    assert image == [
        {"type": "text", "text": "dot.png (70 bytes)"},
        {
            "type": "image",
            "source": {"type": "base64", "media_type": "image/png", "data": base64.b64encode(PNG).decode()},
        },
    ]
    pdf = r.model_content(r.binary(b"%PDF-1.4 tiny", "application/pdf", filename="r.pdf"), 1000)
    assert pdf[1]["type"] == "document" and pdf[1]["title"] == "r.pdf"
    other = r.model_content(r.binary(b"PK\x03\x04", "application/zip", filename="a.zip"), 1000)
    assert other == "a.zip (4 bytes)\n[a.zip: application/zip, 4 bytes, shown to the user; not readable here]"
    # every form is a valid tool_result content the API accepts
    for content in (image, pdf, other):
        nt.ToolResult(tool_use_id="x", content=content)


def test_a_million_row_dataframe_gives_a_bounded_result_in_bounded_time_and_memory():
    frame = pd.DataFrame(
        {"a": np.arange(1_000_000), "b": np.linspace(0, 1, 1_000_000), "c": ["text"] * 1_000_000}
    )
    tracemalloc.start()
    started = time.perf_counter()
    result = r.convert(frame)
    elapsed = time.perf_counter() - started
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert result is not None and result.kind == "table"
    text = r.model_content(result, 100_000)
    assert text.startswith("DataFrame: 1000000 rows x 3 columns\ndtypes: a int64, b float64, c ")
    assert "first 10 rows (CSV):" in text and "\n999999,999999,1.0,text" in text
    assert len(text) <= r._tables.MODEL_TEXT_CHARS
    assert len(result.data["rows"]) == r._tables.PAGE_SIZE and result.data["shape"] == [1_000_000, 3]
    assert len(result.model_dump_json()) < 20_000  # the person's first page, never the frame
    # Bounds generous for a loaded 2-core machine; the whole frame is ~40 MB. Converting takes ~50 ms
    # under tracemalloc (100x inside 5 s); one pass over the whole frame (to_csv) takes tens of seconds.
    assert elapsed < 5 and peak < 5_000_000


def test_a_series_and_a_narrow_budget():
    text = r.model_text(r.convert(pd.Series([1, 2, 3], name="n")))
    assert text == "DataFrame: 3 rows x 1 columns\ndtypes: n int64\nall 3 rows (CSV):\n,n\n0,1\n1,2\n2,3"
    wide = pd.DataFrame({f"c{i}": ["v" * 50] * 100 for i in range(20)})
    assert len(r._tables.model_text(wide, budget=600)) <= 600


def test_the_converter_registry_is_extensible():
    class Point:
        def __init__(self, x, y):
            self.x, self.y = x, y

    r.register_converter(
        Point, lambda p: r.RichResult(kind="geo.point", data={"x": p.x, "y": p.y}, summary="a point")
    )
    try:
        assert r.convert(Point(1, 2)).data == {"x": 1, "y": 2}
        r.register_converter(
            "tests.Point", lambda p: r.text("by name")
        )  # a dotted name matches by module + class
        with pytest.raises(nt.ToolDefinitionError):
            r.register_converter("Point", lambda p: None)
    finally:
        r.unregister_converter(Point)
        r.unregister_converter("tests.Point")
    assert r.convert(Point(1, 2)) is None
    assert r.convert("plain") is None and r.convert({"a": 1}) is None


@nt.tool
def load_table(rows: int) -> object:
    """Load a table.

    Args:
        rows: How many rows.
    """
    return pd.DataFrame({"x": range(rows), "y": [v * 2 for v in range(rows)]})


@nt.tool
def bad_converter() -> object:
    """Returns a value whose converter breaks."""

    class Broken:
        pass

    r.register_converter(Broken, lambda value: "not a RichResult")
    return Broken()


def test_an_agent_sends_the_compact_form_keeps_the_live_frame_and_shows_the_table():
    script = t.ScriptedTransport(
        t.turn(t.tool_use("load_table", {"rows": 1000}, id="l"), t.tool_use("bad_converter", id="b")),
        t.reply("loaded"),
    )
    agent = nt.Agent(client=script.client(), model="m", tools=[load_table, bad_converter])
    recorder = nt.EventRecorder()
    agent.events.subscribe(recorder)
    asyncio.run(agent.run("load"))
    blocks = {b["tool_use_id"]: b for b in script.requests[1]["messages"][-1]["content"]}
    assert blocks["l"]["content"].startswith("DataFrame: 1000 rows x 2 columns\ndtypes: x int64, y int64\n")
    assert blocks["b"]["is_error"] is True and "could not be shown" in blocks["b"]["content"]
    kept = agent.results["l"]
    assert isinstance(kept.value, pd.DataFrame) and len(kept.value) == 1000 and kept.name == "load_table"
    [completed] = [e for e in recorder.of_type("tool_completed") if e.tool_use_id == "l"]
    assert completed.shown is not None and completed.shown.kind == "table"
    assert "b" not in agent.results
    # the saved session holds the compact text only
    assert "DataFrame" in agent.state.model_dump_json() and len(agent.state.model_dump_json()) < 10_000


@nt.tool(executor="frontend")
def propose_edit(path: str) -> object:
    """Ask the user to edit a file.

    Args:
        path: The file.
    """


@nt.tool(
    executor="frontend",
    output_schema={"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]},
)
def pick_number() -> object:
    """Ask the user for a number."""


def test_a_rich_answer_is_checked_against_the_output_schema_on_its_data():
    script = t.ScriptedTransport(t.turn(t.tool_use("pick_number", id="n")), t.reply("ok"))
    agent = nt.Agent(client=script.client(), model="m", frontend_tools=[pick_number])
    asyncio.run(agent.run("go"))
    with pytest.raises(nt.InvalidToolResultError, match="'n' is a required property"):
        asyncio.run(agent.resume([{"tool_use_id": "n", "content": r.json_result({"m": 3})}]))
    asyncio.run(agent.resume([{"tool_use_id": "n", "content": r.json_result({"n": 3}, summary="Picked 3")}]))
    assert script.requests[1]["messages"][-1]["content"][0]["content"] == 'Picked 3\n{"n": 3}'


def test_a_frontend_answer_can_be_a_rich_result():
    script = t.ScriptedTransport(t.turn(t.tool_use("propose_edit", {"path": "a.txt"}, id="q")), t.reply("ok"))
    agent = nt.Agent(client=script.client(), model="m", frontend_tools=[propose_edit])
    recorder = nt.EventRecorder()
    agent.events.subscribe(recorder)
    asyncio.run(agent.run("go"))
    edit = r.diff("a.txt", "old\n", "new\n")
    asyncio.run(agent.resume([{"tool_use_id": "q", "content": edit}]))
    [block] = script.requests[1]["messages"][-1]["content"]
    assert block["content"] == r.model_content(edit, 100_000)
    assert recorder.of_type("tool_completed")[0].shown == edit


def test_long_text_cells_and_bytes_still_reach_the_model_cut():
    reviews = r.model_content(r.convert(pd.DataFrame({"review": ["great product " * 300]})), 100_000)
    assert reviews.startswith("DataFrame: 1 rows x 1 columns\ndtypes: review ")
    assert "\n0,great product great" in reviews and reviews.endswith("…") and len(reviews) < 300
    assert r.convert(pd.DataFrame({"v": [b"\x00\xff"]})).data["rows"] == [["b'\\x00\\xff'"]]
    wide = r.model_text(r.convert(pd.DataFrame({f"c{i}": ["v" * 500] * 100 for i in range(40)})))
    assert "(the first 10 of 40 columns)" in wide and len(wide) <= 4_000
    with pytest.raises(nt.ToolDefinitionError):
        r.unregister_converter("nodot")


def test_pages_of_a_series_and_non_finite_floats_are_shown_as_such():
    page = r.page_of(pd.Series([1.0, np.inf, -np.inf, np.nan], name="v"), 0)
    assert page["rows"] == [[1.0], ["inf"], ["-inf"], ["nan"]]
    assert r.convert(pd.Series([np.inf])).data["rows"] == [["inf"]]


def test_live_results_are_forgotten_with_their_session():
    script = t.ScriptedTransport(t.turn(t.tool_use("load_table", {"rows": 3}, id="l")), t.reply("ok"))
    agent = nt.Agent(client=script.client(), model="m", tools=[load_table])
    asyncio.run(agent.run("load"))
    assert "l" in agent.results and list(agent.results) == ["l"]
    agent.new_session()
    assert len(agent.results) == 0
