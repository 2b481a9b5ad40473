"""Plugins in the widget: the `plugins` trait, event rows in the transcript, expand/collapse by hand."""

import asyncio

import pytest

import notebook_tools as nt
from notebook_tools import testing as t
from notebook_tools.widgets._transcript import items_from_history
from tests.support.browser_double import FakeView, until


@nt.tool
def drop_nulls(column: str) -> str:
    """Drop rows whose `column` is null.

    Args:
        column: Name of the column.
    """
    return f"dropped nulls in {column}"


@nt.tool(mode="manual")
def fill_gaps(column: str) -> str:
    """Fill the gaps of a column by hand.

    Args:
        column: Name of the column.
    """
    return f"filled {column}"


@nt.tool(mode="both")
def login(user: str) -> str:
    """Log in.

    Args:
        user: Who.
    """
    return "ok"


@nt.tool
def delete_all() -> str:
    """Delete everything (admin only)."""
    return "gone"


ADMIN = nt.Plugin("admin", "Administration", tools=[delete_all], start_collapsed=False)


@nt.tool
def load_data() -> nt.Augmented:
    """Load the data (and become admin)."""
    return nt.Augmented("loaded", inject=[ADMIN], hide=["login"])


def cleaning():
    skill = nt.Skill("quick_clean", "Drop nulls, fast", tools=["drop_nulls"])
    return nt.Plugin(
        "cleaning", "Clean a DataFrame\nmore text", tools=[drop_nulls, fill_gaps], skills=[skill]
    )


def plotting():
    return nt.Plugin("plotting", "Plots", tools=[login])


def make(*steps, **kwargs):
    script = t.ScriptedTransport(*steps)
    kwargs.setdefault("plugins", [cleaning(), plotting()])
    agent = nt.Agent(client=script.client(), model="claude-test", **kwargs)
    chat = nt.Chat(agent)
    return agent, script, chat, FakeView(chat)


def events(chat):
    return [item["text"] for item in chat.transcript.items.values() if item.get("kind") == "event"]


def cards(chat):
    return [item["name"] for item in chat.transcript.items.values() if item.get("kind") == "tool"]


def test_the_plugins_trait_lists_the_session_plugins_small():
    _agent, _, chat, _ = make(available_plugins=[ADMIN])
    assert chat.view.plugins == [
        {
            "name": "cleaning",
            "description": "Clean a DataFrame",  # the first line only: the trait is saved in the notebook
            "expanded": False,
            "tools": ["drop_nulls", "fill_gaps"],
            "skills": [{"name": "quick_clean", "description": "Drop nulls, fast", "active": False}],
        },
        {"name": "plotting", "description": "Plots", "expanded": False, "tools": ["login"], "skills": []},
    ]
    # by hand: the tools of plugins in the session, not those of a plugin not injected yet
    assert [tool["name"] for tool in chat.view.tools] == ["fill_gaps", "login"]


def test_a_container_call_is_an_event_row_not_a_tool_card_live_and_after_a_restart():
    agent, _script, chat, _ = make(
        t.turn("Cleaning.", t.tool_use("cleaning", {}, id="c1"), t.tool_use("quick_clean", {}, id="c2")),
        t.turn(t.tool_use("cleaning", {}, id="c3")),  # already expanded: nothing to show
        t.reply("Done."),
    )
    asyncio.run(agent.run("clean it"))
    live = events(chat)
    assert live == [
        "cleaning expanded · 1 tool: drop_nulls",
        "Skill quick_clean activated · 1 tool: drop_nulls",
    ]
    assert cards(chat) == []
    assert chat.transcript.items["c1"]["kind"] == "event"
    assert chat.view.plugins[0]["expanded"] is True
    assert chat.view.plugins[0]["skills"][0]["active"] is True
    # rebuilt from the saved history (a kernel restart): the same rows, no tool cards
    again = nt.Chat(agent)
    assert events(again) == live
    assert cards(again) == []
    assert [i["kind"] for i in again.transcript.items.values()] == [
        "user",
        "assistant",
        "event",
        "event",
        "assistant",
    ]


def test_a_call_of_a_container_that_failed_stays_a_tool_card_in_history():
    messages = [
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "x1", "name": "cleaning", "input": {}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "x1", "content": "Unknown tool 'cleaning'.", "is_error": True}]},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "x2", "name": "add", "input": {}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "x2", "content": "add expanded. Available functions: a"}]},
    ]  # fmt: skip
    items = items_from_history(messages, containers={"cleaning"})
    assert [(i["id"], i["kind"], i.get("status")) for i in items] == [
        ("h0", "user", None),
        ("x1", "tool", "error"),
        ("x2", "tool", "done"),  # not a container: whatever its result says
    ]


def test_expanding_and_collapsing_from_the_view_tells_the_model_with_the_next_message():
    agent, script, chat, view = make(t.reply("Noted."))
    view.custom({"type": "plugin", "name": "cleaning", "action": "expand", "request_id": "p1"})
    assert view.of_type("plugin_result") == [{"type": "plugin_result", "request_id": "p1", "ok": True}]
    assert chat.view.plugins[0]["expanded"] is True
    view.custom({"type": "plugin", "name": "plotting", "action": "expand", "request_id": "p2"})
    view.custom({"type": "plugin", "name": "plotting", "action": "collapse", "request_id": "p3"})
    view.custom({"type": "plugin", "name": "plotting", "action": "collapse", "request_id": "p4"})  # no-op
    assert [r["ok"] for r in view.of_type("plugin_result")] == [True] * 4
    assert events(chat) == ["You expanded cleaning", "You expanded plotting", "You collapsed plotting"]
    asyncio.run(chat.send("and now?"))
    request = script.requests[-1]
    assert [tool["name"] for tool in request["tools"]] == ["drop_nulls", "quick_clean", "plotting"]
    (notes,) = [b["text"] for b in request["messages"][-1]["content"] if b["text"] != "and now?"]
    notes = notes.split("\n")
    assert notes[0].startswith("[The user expanded the plugin cleaning. Available functions: drop_nulls")
    assert notes[-1].startswith("[The user collapsed the plugin plotting")
    # the person's bubble is their text only, live and rebuilt; the notes are event rows after a restart
    bubbles = [i["text"] for i in chat.transcript.items.values() if i["kind"] == "user"]
    assert bubbles == ["and now?"]
    again = nt.Chat(agent)
    assert [i["text"] for i in again.transcript.items.values() if i["kind"] == "user"] == ["and now?"]
    assert events(again) == ["You expanded cleaning", "You expanded plotting", "You collapsed plotting"]


def test_a_tool_result_that_changes_the_tools_is_one_row_naming_the_tool():
    agent, _, chat, _ = make(
        t.turn(t.tool_use("load_data", {}, id="l1")),
        t.reply("Done."),
        tools=[load_data],
        available_plugins=[ADMIN],
    )
    asyncio.run(agent.run("load"))
    assert events(chat) == ["Tools changed by load_data: injected admin; hidden login"]
    assert [p["name"] for p in chat.view.plugins] == ["cleaning", "plotting", "admin"]
    assert chat.view.plugins[2]["expanded"] is True


def test_clear_and_reset_bring_the_menu_back():
    agent, _, chat, view = make()
    agent.expand_plugin("cleaning")  # from code: the event still reaches the widget
    assert chat.view.plugins[0]["expanded"] is True
    view.custom({"type": "clear"})
    assert chat.view.plugins[0]["expanded"] is False
    agent.expand_plugin("cleaning")
    agent.reset_toolset()
    assert chat.view.plugins[0]["expanded"] is False
    assert events(chat)[-1] == "You reset the tools"


def test_expanding_while_the_agent_runs_is_refused_with_one_error_reply():
    _agent, _, chat, view = make(
        t.turn(t.tool_use("user_confirm", {"message": "Go?"}, id="k1")),
        t.reply("ok"),
        frontend_tools=[nt.user_confirm],
    )

    async def main():
        task = chat.send_nowait("go")
        await until(lambda: "k1" in chat.prompts)
        view.custom({"type": "plugin", "name": "cleaning", "action": "expand", "request_id": "busy"})
        view.answer("k1", {"value": "yes"})
        await task

    asyncio.run(main())
    (reply,) = view.of_type("plugin_result")
    assert reply["ok"] is False and reply["request_id"] == "busy"
    assert "busy" in reply["error"] and "turn has ended" in reply["error"]
    assert chat.view.plugins[0]["expanded"] is False


HOSTILE = [
    ({"type": "plugin", "name": "nope", "action": "expand", "request_id": "h1"}, "no plugin named 'nope'"),
    ({"type": "plugin", "name": 42, "action": "expand", "request_id": "h2"}, "'name' must be a plugin's name"),
    ({"type": "plugin", "name": None, "action": "collapse", "request_id": "h3"}, "'name' must be"),
    ({"type": "plugin", "name": ["cleaning"], "action": "expand", "request_id": "h4"}, "'name' must be"),
    ({"type": "plugin", "name": "x" * 1_000_000, "action": "expand", "request_id": "h5"}, "'name' must be"),
    ({"type": "plugin", "name": "", "action": "expand", "request_id": "h6"}, "'name' must be"),
    ({"type": "plugin", "name": "cleaning", "action": "explode", "request_id": "h7"}, "'action' must be"),
    ({"type": "plugin", "name": "cleaning", "action": "expand", "request_id": "h8", "x": 1}, "unexpected field"),
    ({"type": "plugin", "name": "cleaning\x00<script>", "action": "expand", "request_id": "h9"}, "no plugin named"),
    ({"type": "plugin", "name": "drop_nulls", "action": "expand", "request_id": "h10"}, "no plugin named"),
    ({"type": "plugin", "name": "quick_clean", "action": "collapse", "request_id": "h11"}, "no plugin named"),
]  # fmt: skip


@pytest.mark.parametrize(("content", "reason"), HOSTILE, ids=[c["request_id"] for c, _ in HOSTILE])
def test_a_hostile_plugin_message_is_refused_with_one_short_reply_and_changes_nothing(content, reason):
    agent, _, chat, view = make()
    before = (agent.state.model_dump_json(), list(chat.view.plugins), dict(chat.transcript.items))
    view.custom(content)
    (reply,) = view.of_type("plugin_result")
    assert reply["request_id"] == content["request_id"] and reply["ok"] is False
    assert reason in reply["error"]
    assert len(reply["error"]) <= 400 and chat.errors and len(chat.errors[-1]) <= 400
    assert (agent.state.model_dump_json(), list(chat.view.plugins), dict(chat.transcript.items)) == before


def test_a_plugin_message_without_a_usable_request_id_is_refused_without_a_reply():
    _, _, chat, view = make()
    for request_id in (None, 7, ""):
        view.custom({"type": "plugin", "name": "cleaning", "action": "expand", "request_id": request_id})
    # a non-string id cannot be echoed; "" can (the view's own id is never empty)
    assert [r["request_id"] for r in view.of_type("plugin_result")] == [""]
    assert len(chat.errors) == 3 and chat.view.plugins[0]["expanded"] is False


def test_a_prompt_only_widget_refuses_plugin_messages():
    chat = nt.Chat()
    view = FakeView(chat)
    view.custom({"type": "plugin", "name": "cleaning", "action": "expand", "request_id": "a1"})
    (reply,) = view.of_type("plugin_result")
    assert reply["ok"] is False and "no agent" in reply["error"]
    assert chat.view.plugins == []


def test_a_reset_then_an_expand_by_hand_are_rows_never_a_bubble_live_and_rebuilt():
    agent, _, chat, _ = make(t.turn(t.tool_use("cleaning", {}, id="c1")), t.reply("ok"), t.reply("ok again"))
    asyncio.run(chat.send("go"))
    agent.reset_toolset()
    agent.expand_plugin("plotting")  # the notes of one message are one block, the reset note first
    asyncio.run(chat.send("again"))
    expected = ["cleaning expanded · 1 tool: drop_nulls", "You reset the tools", "You expanded plotting"]
    for shown in (chat, nt.Chat(agent)):
        assert [i["text"] for i in shown.transcript.items.values() if i["kind"] == "user"] == ["go", "again"]
        assert events(shown) == expected


def test_a_run_that_expands_plugins_first_says_so():
    agent, script, chat, _ = make(t.reply("ok"))
    asyncio.run(agent.run("plot it", expand=["plotting"]))
    assert events(chat) == ["Before this run: expanded plotting"]
    assert "login" in [tool["name"] for tool in script.requests[-1]["tools"]]


def test_long_lists_of_names_are_cut_in_an_event_line():
    from notebook_tools.events._toolset_text import event_line

    names = [f"tool_{i}" for i in range(9)]
    line = event_line("expanded", ["big"], "model", names)
    assert line == "big expanded · 9 tools: tool_0, tool_1, tool_2, tool_3, tool_4, tool_5, …"
    assert (
        event_line("hidden", names[:2], "tool", source="login")
        == "Tools changed by login: hidden tool_0, tool_1"
    )
