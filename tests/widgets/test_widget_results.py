"""Rich results in the widget without a browser: the bounded form on tool cards, and table pages."""

import asyncio
import base64
import json

import pandas as pd
import pytest

import notebook_tools as nt
from notebook_tools import results as r
from notebook_tools import testing as t
from notebook_tools.widgets._shown import MAX_FILE_BYTES, MAX_ITEMS, MAX_TEXT_CHARS, shown_form
from notebook_tools.widgets._wire import kernel_message
from tests.support.browser_double import FakeView

PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
)


@nt.tool
def big_table(rows: int) -> object:
    """A table.

    Args:
        rows: How many rows.
    """
    return pd.DataFrame({"n": range(rows), "label": [f"row {i}" for i in range(rows)]})


@nt.tool
def edit_file() -> object:
    """An edit."""
    return r.diff("app.py", "a = 1\nb = 2\n", "a = 1\nb = 3\n")


@nt.tool
def a_series() -> object:
    """A Series."""
    return pd.Series(range(120), name="s")


def chat_with(*calls):
    script = t.ScriptedTransport(t.turn(*calls), t.reply("done"))
    agent = nt.Agent(client=script.client(), model="m", tools=[big_table, edit_file, a_series])
    chat = nt.Chat(agent)
    view = FakeView(chat)
    asyncio.run(agent.run("go"))
    return chat, view, agent


def test_a_tool_card_carries_the_shown_form_checked_against_the_wire():
    chat, view, _agent = chat_with(
        t.tool_use("big_table", {"rows": 500}, id="tb"), t.tool_use("edit_file", id="d")
    )
    table, diff = chat.transcript.items["tb"]["shown"], chat.transcript.items["d"]["shown"]
    assert table["kind"] == "table" and table["summary"] == "DataFrame: 500 rows x 2 columns"
    assert table["data"]["shape"] == [500, 2] and len(table["data"]["rows"]) == 50
    assert "model_text" not in table["data"]  # the model's text is not the person's view
    assert table["display"] == {"view": "table", "language": None, "collapsed": False, "max_height": None}
    assert diff["data"]["modified"] == "a = 1\nb = 3\n" and diff["summary"] == "Edited app.py: +1 -1 lines"
    assert chat.transcript.items["tb"]["result"].startswith("DataFrame: 500 rows")  # the model's text stays
    for content in view.of_type("items"):
        kernel_message(content)  # every sent item fits the protocol


def test_shown_form_bounds_texts_lists_nesting_and_files():
    long = r.diff("big.txt", "x" * (MAX_TEXT_CHARS + 10), "y")
    shown = shown_form(long)
    assert len(shown["data"]["original"]) == MAX_TEXT_CHARS + 1 and shown["data"]["original"].endswith("…")
    assert "texts longer than" in shown["note"]
    many = shown_form(r.json_result(list(range(MAX_ITEMS + 5))))
    assert len(many["data"]["data"]) == MAX_ITEMS and "entries" in many["note"]
    deep: object = 1
    for _ in range(100):
        deep = {"k": deep}
    assert "nesting" in shown_form(r.RichResult(kind="x.deep", data=deep))["note"]
    image = shown_form(r.binary(PNG, "image/png", filename="dot.png"))
    assert image["files"] == [
        {
            "mime_type": "image/png",
            "filename": "dot.png",
            "size": len(PNG),
            "data": base64.b64encode(PNG).decode(),
        }
    ]
    huge = shown_form(r.binary(b"\0" * (MAX_FILE_BYTES + 1), "application/pdf", filename="a.pdf"))
    assert "data" not in huge["files"][0] and "too big" in huge["files"][0]["note"]
    assert huge["files"][0]["size"] == MAX_FILE_BYTES + 1
    assert len(json.dumps(huge)) < 2_000
    assert "note" not in shown_form(r.text("fine"))


def test_the_table_pages_come_from_the_kept_frame():
    chat, view, agent = chat_with(t.tool_use("big_table", {"rows": 500}, id="tb"))
    view.custom({"type": "result_page", "request_id": "p1", "tool_use_id": "tb", "start": 450})
    [reply] = view.of_type("result_rows")
    kernel_message(reply)
    assert reply["request_id"] == "p1" and reply["start"] == 450 and "error" not in reply
    assert reply["index"][0] == 450 and len(reply["rows"]) == 50 and reply["rows"][0] == [450, "row 450"]
    agent.results.clear()  # dropped (or a restart): the pager says so
    view.custom({"type": "result_page", "request_id": "p2", "tool_use_id": "tb", "start": 50})
    gone = view.of_type("result_rows")[-1]
    assert gone["request_id"] == "p2" and gone["rows"] == [] and "no longer in the kernel" in gone["error"]
    assert chat.errors == []  # an expected situation, shown on the table, not a refused message


def test_a_series_pages_as_a_one_column_table():
    _chat, view, _agent = chat_with(t.tool_use("a_series", id="s"))
    view.custom({"type": "result_page", "request_id": "p", "tool_use_id": "s", "start": 100})
    [reply] = view.of_type("result_rows")
    assert reply["rows"] == [[v] for v in range(100, 120)] and "error" not in reply


@pytest.mark.parametrize(
    ("content", "says"),
    [
        ({"type": "result_page", "request_id": "h1", "tool_use_id": "nope", "start": 0}, "no longer"),
        ({"type": "result_page", "request_id": "h2", "tool_use_id": "d", "start": 0}, "not a table"),
        ({"type": "result_page", "request_id": "h3", "tool_use_id": "tb", "start": 500}, "past the end"),
        (
            {"type": "result_page", "request_id": "h4", "tool_use_id": "tb", "start": 10**30},
            "'start' must be",
        ),
        ({"type": "result_page", "request_id": "h5", "tool_use_id": "tb", "start": -1}, "'start' must be"),
        ({"type": "result_page", "request_id": "h6", "tool_use_id": "tb", "start": "3"}, "'start' must be"),
        ({"type": "result_page", "request_id": "h7", "tool_use_id": "tb", "start": 1.5}, "'start' must be"),
        ({"type": "result_page", "request_id": "h8", "tool_use_id": "tb", "start": True}, "'start' must be"),
        ({"type": "result_page", "request_id": "h9", "tool_use_id": ["tb"], "start": 0}, "'tool_use_id'"),
        ({"type": "result_page", "request_id": "h10", "tool_use_id": "x" * 300, "start": 0}, "'tool_use_id'"),
        (
            {"type": "result_page", "request_id": "h11", "tool_use_id": "tb", "start": 0, "size": 9},
            "unexpected",
        ),
        ({"type": "result_page", "request_id": "h12", "tool_use_id": "tb"}, "'start'"),
    ],
)
def test_hostile_page_requests_get_one_error_reply_and_never_raise(content, says):
    _chat, view, _agent = chat_with(
        t.tool_use("big_table", {"rows": 500}, id="tb"), t.tool_use("edit_file", id="d")
    )
    view.custom(content)
    [reply] = view.of_type("result_rows")
    kernel_message(reply)
    assert reply["request_id"] == content["request_id"] and reply["rows"] == []
    assert says in reply["error"]


def test_a_page_request_without_a_request_id_is_refused_without_a_reply():
    chat, view, _agent = chat_with(t.tool_use("big_table", {"rows": 5}, id="tb"))
    view.custom({"type": "result_page", "tool_use_id": "tb", "start": 0})
    assert view.of_type("result_rows") == [] and "request_id" in chat.errors[-1]


def test_chat_results_reach_the_live_value_and_a_prompt_only_widget_has_none():
    @nt.tool
    def frame() -> object:
        """A frame."""
        return pd.DataFrame({"a": [1, 2]})

    script = t.ScriptedTransport(t.turn(t.tool_use("frame", id="f")), t.reply("ok"))
    chat = nt.Chat(nt.Agent(client=script.client(), model="m", tools=[frame]))
    asyncio.run(chat.send("go"))
    assert chat.results["f"].value["a"].sum() == 3
    with pytest.raises(nt.WidgetError):
        _ = nt.Chat(None).results
