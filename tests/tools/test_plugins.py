"""Plugins: what the scripted Messages API receives in each REQUEST BODY as the tool set changes."""

import asyncio

import pytest

import notebook_tools as nt
from notebook_tools import testing as t

CACHE = {"type": "ephemeral"}


def run(coro):
    return asyncio.run(coro)


@nt.tool
def drop_nulls(column: str) -> str:
    """Drop rows whose column is null.

    Args:
        column: The column to check.
    """
    return f"dropped nulls in {column}"


@nt.tool
def rename(old: str, new: str) -> str:
    """Rename a column.

    Args:
        old: Current name.
        new: New name.
    """
    return f"{old} -> {new}"


@nt.tool
def dedupe() -> str:
    """Drop duplicate rows."""
    return "deduplicated"


@nt.tool
def histogram(column: str) -> str:
    """Plot a histogram.

    Args:
        column: The column to plot.
    """
    return f"histogram of {column}"


@nt.tool
def scatter(x: str, y: str) -> str:
    """Plot a scatter chart.

    Args:
        x: Column on x.
        y: Column on y.
    """
    return f"{x} vs {y}"


@nt.tool
def query(sql: str) -> str:
    """Run a read-only SQL query.

    Args:
        sql: The query.
    """
    return "3 rows"


@nt.tool
def drop_table(table: str) -> str:
    """Drop a table.

    Args:
        table: The table.
    """
    return "dropped"


@nt.tool
def whoami() -> str:
    """Who is logged in."""
    return "guest"


def cleaning(**kwargs):
    options = {
        "description": "DataFrame cleaning helpers",
        "tools": [drop_nulls, rename, dedupe],
        "skills": [
            nt.Skill(
                "quick_clean",
                "Drop nulls and duplicates in one go",
                ["drop_nulls", "dedupe"],
                activation_message="Start with drop_nulls.",
                instructions="QUICK CLEAN: nulls first, then duplicates.",
            )
        ],
        "expansion_message": "Tip: rename before dropping.",
        "instructions": "CLEANING RULES: never drop more than half the rows.",
    }
    return nt.Plugin("cleaning", **{**options, **kwargs})


def plotting(**kwargs):
    return nt.Plugin("plotting", "Charts", [histogram, scatter], **kwargs)


def database(**kwargs):
    return nt.Plugin(
        "database", "SQL access", [query, drop_table], instructions="Only read queries.", **kwargs
    )


def make(*steps, **kwargs):
    script = t.ScriptedTransport(*steps)
    kwargs.setdefault("tools", [whoami])
    kwargs.setdefault("frontend_tools", [])
    kwargs.setdefault("plugins", [cleaning(), plotting()])
    agent = nt.Agent(client=script.client(), model="claude-test", **kwargs)
    return agent, script


def names(body):
    return [tool["name"] for tool in body.get("tools", [])]


def system_text(body):
    return "\n\n".join(block["text"] for block in body.get("system", []))


def results(body):
    """The tool results of the body's last message, by tool_use_id."""
    return {b["tool_use_id"]: b for b in body["messages"][-1]["content"] if b.get("type") == "tool_result"}


def test_collapsed_plugins_are_one_container_each_and_skills_are_their_own_containers():
    agent, script = make(t.reply("ok"), system="Be brief.")
    run(agent.run("hi"))
    body = script.requests[0]
    assert names(body) == ["whoami", "cleaning", "quick_clean", "plotting"]
    container = body["tools"][1]
    assert container["input_schema"] == {"type": "object", "properties": {}}
    assert container["description"].startswith("cleaning (3 tools): DataFrame cleaning helpers.")
    assert "drop_nulls, rename, dedupe" in container["description"]
    assert "drop_nulls" not in names(body)
    assert body["system"] == [{"type": "text", "text": "Be brief.", "cache_control": CACHE}]
    assert body["tools"][-1]["cache_control"] == CACHE
    assert all("cache_control" not in tool for tool in body["tools"][:-1])


def test_calling_the_container_expands_the_plugin_from_the_next_request():
    agent, script = make(
        t.turn(t.tool_use("cleaning", id="c1")),
        t.turn(t.tool_use("drop_nulls", {"column": "age"}, id="c2")),
        t.reply("done"),
        system="Be brief.",
    )
    recorder = nt.EventRecorder()
    agent.events.subscribe(recorder)
    result = run(agent.run("clean it"))
    assert result.stop_reason == "end_turn"
    second = script.requests[1]
    assert results(second)["c1"] == {
        "type": "tool_result",
        "tool_use_id": "c1",
        "content": "cleaning expanded. Available functions: drop_nulls, rename, dedupe\n\n"
        "Tip: rename before dropping.",
    }
    assert names(second) == ["whoami", "drop_nulls", "rename", "dedupe", "quick_clean", "plotting"]
    assert second["system"] == [
        {"type": "text", "text": "Be brief.", "cache_control": CACHE},
        {
            "type": "text",
            "text": "Instructions for the cleaning tools:\nCLEANING RULES: never drop more than half the rows.",
            "cache_control": CACHE,
        },
    ]
    assert results(script.requests[2])["c2"]["content"] == "dropped nulls in age"
    assert names(script.requests[2]) == names(second)  # unchanged: the same definitions, cache intact
    assert script.requests[2]["tools"] == second["tools"]
    changed = recorder.of_type("toolset_changed")
    assert [(e.change, e.names, e.by, e.tool_use_id) for e in changed] == [
        ("expanded", ["cleaning"], "model", "c1")
    ]
    assert changed[0].tools == ["drop_nulls", "rename", "dedupe"]
    # The agent answered the container itself: no tool started for it (only the real tool, c2).
    assert [e.tool_use_id for e in recorder.of_type("tool_started")] == ["c2"]


def test_expansion_without_its_own_text_is_the_automatic_message_only():
    agent, script = make(t.turn(t.tool_use("plotting", id="p")), t.reply("ok"))
    run(agent.run("plot"))
    assert results(script.requests[1])["p"]["content"] == (
        "plotting expanded. Available functions: histogram, scatter"
    )
    assert "system" not in script.requests[1]  # no system prompt and no instructions: none sent


def test_a_skill_offers_exactly_its_tools_and_its_instructions():
    agent, script = make(t.turn(t.tool_use("quick_clean", id="s")), t.reply("ok"), system="S")
    run(agent.run("quick"))
    body = script.requests[1]
    assert results(body)["s"]["content"] == (
        "quick_clean skill activated. Available functions: drop_nulls, dedupe\n\nStart with drop_nulls."
    )
    assert names(body) == ["whoami", "cleaning", "drop_nulls", "dedupe", "plotting"]
    assert "rename" not in names(body)
    assert (
        system_text(body)
        == "S\n\nInstructions for the quick_clean skill:\nQUICK CLEAN: nulls first, then duplicates."
    )
    assert agent.plugins[0]["skills"] == [
        {"name": "quick_clean", "description": "Drop nulls and duplicates in one go", "active": True}
    ]


def test_a_tool_inside_a_collapsed_plugin_gets_an_error_that_says_how_to_reach_it():
    agent, script = make(t.turn(t.tool_use("rename", {"old": "a", "new": "b"}, id="r")), t.reply("ok"))
    run(agent.run("rename"))
    block = results(script.requests[1])["r"]
    assert block["is_error"] is True
    assert "collapsed plugin 'cleaning'" in block["content"]
    assert "Call the tool 'cleaning'" in block["content"]
    assert names(script.requests[1]) == names(script.requests[0])  # nothing expanded by the attempt


def test_a_tool_called_in_the_same_reply_as_its_container_is_told_to_call_again():
    agent, script = make(
        t.turn(t.tool_use("plotting", id="p"), t.tool_use("histogram", {"column": "x"}, id="h")),
        t.reply("ok"),
    )
    run(agent.run("plot"))
    body = results(script.requests[1])
    assert "is_error" not in body["p"]
    assert body["h"]["is_error"] is True and "Call it again" in body["h"]["content"]


@nt.tool
def log_in(role: str) -> nt.Augmented:
    """Log in.

    Args:
        role: The role.
    """
    return nt.Augmented(
        f"logged in as {role}",
        inject=["database"],
        expand=["database"],
        collapse=["cleaning"],
        hide=["whoami"],
        context={"user": f"a {role} is logged in"},
    )


def test_a_backend_result_changes_the_tool_set_from_the_next_request():
    agent, script = make(
        t.turn(t.tool_use("cleaning", id="c")),
        t.turn(t.tool_use("log_in", {"role": "admin"}, id="l")),
        t.reply("ok"),
        tools=[whoami, log_in],
        available_plugins=[database()],
    )
    recorder = nt.EventRecorder()
    agent.events.subscribe(recorder)
    run(agent.run("log in"))
    assert names(script.requests[1]) == [
        "whoami",
        "log_in",
        "drop_nulls",
        "rename",
        "dedupe",
        "quick_clean",
        "plotting",
    ]
    after = script.requests[2]
    assert results(after)["l"] == {"type": "tool_result", "tool_use_id": "l", "content": "logged in as admin"}
    assert names(after) == ["log_in", "cleaning", "quick_clean", "plotting", "query", "drop_table"]
    assert system_text(after) == (
        "Instructions for the database tools:\nOnly read queries.\n\nContext:\n- user: a admin is logged in"
    )
    changes = [(e.change, e.names, e.by, e.tool_use_id) for e in recorder.of_type("toolset_changed")]
    assert changes[1:] == [
        ("injected", ["database"], "tool", "l"),
        ("expanded", ["database"], "tool", "l"),
        ("collapsed", ["cleaning"], "tool", "l"),
        ("hidden", ["whoami"], "tool", "l"),
        ("context", ["user"], "tool", "l"),
    ]
    assert all(r.augmentation is None for r in agent.state.held_results)


@nt.tool
def log_out() -> nt.Augmented:
    """Log out."""
    return nt.Augmented("bye", remove=["database"], show=["whoami"], context=[("user", "nobody")])


def test_remove_and_show_and_a_context_key_replaced():
    agent, script = make(
        t.turn(t.tool_use("log_in", {"role": "admin"}, id="l")),
        t.turn(t.tool_use("log_out", id="o")),
        t.turn(t.tool_use("query", {"sql": "select 1"}, id="q")),
        t.reply("ok"),
        tools=[whoami, log_in, log_out],
        available_plugins=[database()],
    )
    run(agent.run("go"))
    after = script.requests[2]
    assert names(after) == ["whoami", "log_in", "log_out", "cleaning", "quick_clean", "plotting"]
    assert system_text(after) == "Context:\n- user: nobody"
    block = results(script.requests[3])["q"]
    assert block["is_error"] is True and "plugin 'database'" in block["content"]
    assert "not part of this session" in block["content"]


def test_a_hidden_tool_called_anyway_is_refused_with_how_to_get_it():
    agent, script = make(t.turn(t.tool_use("whoami", id="w")), t.reply("ok"), hidden_tools=["whoami"])
    run(agent.run("who"))
    assert "whoami" not in names(script.requests[0])
    block = results(script.requests[1])["w"]
    assert block["is_error"] is True and "hidden" in block["content"] and "shows it" in block["content"]


@nt.tool
def broken_change() -> nt.Augmented:
    """Asks for a plugin nobody registered."""
    return nt.Augmented("did it", inject=["nonexistent"], hide=["whoami"])


def test_a_backend_change_naming_unknown_plugins_is_refused_whole_and_the_model_told():
    agent, script = make(
        t.turn(t.tool_use("broken_change", id="b")), t.reply("ok"), tools=[whoami, broken_change]
    )
    run(agent.run("go"))
    block = results(script.requests[1])["b"]
    assert block["content"].startswith("did it\n(Its change to the available tools was refused: inject:")
    assert "nonexistent" in block["content"]
    assert names(script.requests[1]) == names(script.requests[0])  # the hide did not apply either


def test_a_persons_answer_can_change_the_tool_set_and_a_bad_change_refuses_the_answer():
    agent, script = make(
        t.turn(t.tool_use("user_confirm", {"message": "Show plots?"}, id="u")),
        t.reply("ok"),
        frontend_tools=[nt.user_confirm],
    )
    paused = run(agent.run("go"))
    assert paused.stop_reason == "awaiting_frontend_tools"
    before = agent.state
    bad = nt.ToolResult(tool_use_id="u", content="yes", augmentation=nt.Augmentation(expand=["nope"]))
    with pytest.raises(nt.InvalidToolResultError, match="nope"):
        run(agent.resume([bad]))
    assert agent.state == before and len(script.requests) == 1  # nothing changed, nothing sent
    good = nt.ToolResult(tool_use_id="u", content="yes", augmentation=nt.Augmentation(expand=["plotting"]))
    run(agent.resume([good]))
    assert results(script.requests[1])["u"] == {"type": "tool_result", "tool_use_id": "u", "content": "yes"}
    assert "histogram" in names(script.requests[1]) and "plotting" not in names(script.requests[1])


def test_a_run_can_pre_expand_and_a_plugin_can_start_expanded():
    agent, script = make(t.reply("a"), t.reply("b"), plugins=[cleaning(), plotting(start_collapsed=False)])
    run(agent.run("one", expand=["cleaning"]))
    first = script.requests[0]
    assert names(first) == ["whoami", "drop_nulls", "rename", "dedupe", "quick_clean", "histogram", "scatter"]
    assert "CLEANING RULES" in system_text(first)
    run(agent.run("two"))  # it stays expanded
    assert script.requests[1]["tools"] == first["tools"]
    with pytest.raises(nt.ToolDefinitionError, match="nope"):
        run(agent.run("three", expand=["nope"]))
    assert len(agent.state.messages) == 4  # the refused run added nothing


def test_reset_brings_back_the_definitions_start():
    agent, script = make(t.turn(t.tool_use("cleaning", id="c")), t.reply("a"), t.reply("b"))
    run(agent.run("one"))
    assert "drop_nulls" in names(script.requests[1])
    agent.reset_toolset()
    run(agent.run("two"))
    assert script.requests[2]["tools"] == script.requests[0]["tools"]
    told = script.requests[2]["messages"][-1]["content"]
    assert told[0]["text"].startswith("[The tool set was reset") and told[1]["text"] == "two"
    assert agent.state.toolset == nt.ToolsetState()


def test_the_global_frontend_switch_collapses_every_frontend_tool_into_one_group():
    agent, script = make(
        t.turn(t.tool_use("frontend_tools", id="f")),
        t.reply("ok"),
        frontend_tools=[nt.user_confirm, nt.ask_text],
        collapse_frontend_tools=True,
        frontend_instructions="These tools interrupt the user: ask only when needed.",
        plugins=[],
        system="S",
    )
    run(agent.run("go"))
    first = script.requests[0]
    assert names(first) == ["whoami", "frontend_tools"]
    assert first["tools"][1]["description"].startswith("frontend_tools (2 tools):")
    assert system_text(first) == "S"
    second = script.requests[1]
    assert (
        results(second)["f"]["content"]
        == "frontend_tools expanded. Available functions: user_confirm, ask_text"
    )
    assert names(second) == ["whoami", "user_confirm", "ask_text"]
    assert system_text(second) == (
        "S\n\nInstructions for the frontend_tools tools:\nThese tools interrupt the user: ask only when needed."
    )


def test_frontend_instructions_without_collapsing_join_while_frontend_tools_are_offered():
    agent, script = make(
        t.reply("ok"), frontend_tools=[nt.user_confirm], frontend_instructions="Ask sparingly.", plugins=[]
    )
    run(agent.run("go"))
    assert system_text(script.requests[0]) == "Ask sparingly."


def test_expanding_and_collapsing_by_hand_tells_the_model_with_the_next_message():
    agent, script = make(t.reply("a"), t.reply("b"))
    recorder = nt.EventRecorder()
    agent.events.subscribe(recorder)
    note = agent.expand_plugin("plotting")
    assert note == "[The user expanded the plugin plotting. Available functions: histogram, scatter.]"
    assert agent.expand_plugin("plotting") == note and len(agent.state.manual_notes) == 1  # no-op twice
    run(agent.run("plot it"))
    body = script.requests[0]
    assert "histogram" in names(body) and "plotting" not in names(body)
    assert body["messages"][-1]["content"] == [
        {"type": "text", "text": note},
        {"type": "text", "text": "plot it"},
    ]
    agent.collapse_plugin("plotting")
    run(agent.run("again"))
    assert "plotting" in names(script.requests[1]) and "histogram" not in names(script.requests[1])
    assert script.requests[1]["messages"][-1]["content"][0]["text"].startswith(
        "[The user collapsed the plugin plotting"
    )
    assert [(e.change, e.by) for e in recorder.of_type("toolset_changed")] == [
        ("expanded", "person"),
        ("collapsed", "person"),
    ]
    with pytest.raises(nt.ToolDefinitionError, match="no plugin named 'nope'"):
        agent.expand_plugin("nope")


def test_an_unchanged_tool_set_sends_byte_identical_tools_and_system():
    agent, script = make(t.reply("a"), t.reply("b"), t.reply("c"), system="S")
    for text in ("one", "two", "three"):
        run(agent.run(text))
    first, *rest = script.requests
    assert all(r["tools"] == first["tools"] and r["system"] == first["system"] for r in rest)


def test_plugin_definitions_are_checked():
    with pytest.raises(nt.ToolDefinitionError, match="names tools that plugin 'p' does not have"):
        nt.Plugin("p", "x", [dedupe], skills=[nt.Skill("s", "y", ["rename"])])
    with pytest.raises(nt.ToolDefinitionError, match="must be 1-64"):
        nt.Plugin("has space", "x", [dedupe])
    with pytest.raises(nt.ToolDefinitionError, match="no tools"):
        nt.Plugin("p", "x", [])
    with pytest.raises(nt.ToolDefinitionError, match="two tools are named 'dedupe'"):
        nt.Agent(client=t.ScriptedTransport().client(), tools=[dedupe], plugins=[cleaning()])
    with pytest.raises(nt.ToolDefinitionError, match="two tools are named 'plotting'"):
        nt.Agent(
            client=t.ScriptedTransport().client(), plugins=[plotting(), nt.Plugin("plotting", "", [whoami])]
        )
    with pytest.raises(nt.ToolDefinitionError, match="hidden_tools"):
        nt.Agent(client=t.ScriptedTransport().client(), hidden_tools=["nope"])


def test_restart_from_sqlite_carries_the_same_tool_set(tmp_path):
    path = tmp_path / "s.sqlite"

    def build(*steps):
        script = t.ScriptedTransport(*steps)
        agent = nt.Agent(
            client=script.client(),
            model="claude-test",
            tools=[whoami, log_in],
            plugins=[cleaning(), plotting()],
            available_plugins=[database()],
            store=nt.SQLiteStore(path),
            system="S",
        )
        return agent, script

    agent, script = build(
        t.turn(t.tool_use("plotting", id="p"), t.tool_use("log_in", {"role": "analyst"}, id="l")),
        t.turn(t.tool_use("quick_clean", id="q")),
        t.reply("before the restart"),
    )
    run(agent.run("go"))
    before = script.requests[-1]
    # A new process: a new agent with the same definitions loads the session and asks again.
    again, script2 = build(t.reply("after the restart"))
    again.load(agent.agent_uuid)
    run(again.run("next"))
    after = script2.requests[0]
    assert after["tools"] == before["tools"]
    assert after["system"] == before["system"]
    assert names(after) == [
        "log_in",
        "cleaning",
        "drop_nulls",
        "dedupe",
        "histogram",
        "scatter",
        "query",
        "drop_table",
    ]
    assert again.state.toolset == agent.state.toolset


@nt.tool(executor="frontend")
def pick_color() -> str:
    """Ask the user to pick a color."""


@nt.tool
def unlock_colors() -> nt.Augmented:
    """Unlock the color tools."""
    colors = nt.Plugin("colors", "Color prompts", [pick_color], start_collapsed=False)
    return nt.Augmented("unlocked", inject=[colors])


def test_a_plugin_object_injected_by_a_result_is_registered_and_its_frontend_tool_prompts():
    agent, script = make(
        t.turn(t.tool_use("unlock_colors", id="u")),
        t.turn(t.tool_use("pick_color", id="p")),
        t.reply("nice"),
        tools=[unlock_colors],
    )
    chat = nt.Chat(agent)
    paused = run(agent.run("colors"))
    assert names(script.requests[1]) == ["unlock_colors", "cleaning", "quick_clean", "plotting", "pick_color"]
    assert paused.stop_reason == "awaiting_frontend_tools"
    assert chat.broker.tools["pick_color"] is pick_color  # the widget's broker sees tools injected later
    done = run(agent.resume([nt.ToolResult(tool_use_id="p", content="#ff0000")]))
    assert done.text == "nice"
    # The same plugin object injected again is fine; another plugin with a taken name is refused.
    clash = nt.Plugin("colors", "again", [whoami])
    with pytest.raises(nt.AugmentationError, match="plugin 'colors' takes names already used: 'colors'"):
        agent.toolset.apply(agent.state.toolset, nt.Augmented(None, inject=[clash]).augmentation)


def _admin_when_yes(result):
    return (
        nt.Augmentation(expand=["plotting"]) if '"yes"' in result.content or result.content == "yes" else None
    )


@nt.tool(executor="frontend", augment=_admin_when_yes)
def may_plot(question: str) -> str:
    """Ask whether plots are wanted.

    Args:
        question: The question.
    """


def test_a_frontend_tools_augment_function_turns_a_persons_answer_into_a_change():
    agent, script = make(
        t.turn(t.tool_use("may_plot", {"question": "Plots?"}, id="m")),
        t.reply("ok"),
        frontend_tools=[may_plot],
    )
    run(agent.run("go"))
    run(agent.resume([{"tool_use_id": "m", "content": "yes"}]))
    assert "histogram" in names(script.requests[1]) and "plotting" not in names(script.requests[1])


def _raises(result):
    raise RuntimeError("the hook broke")


@nt.tool(augment=_raises)
def fragile() -> str:
    """A tool whose augment= function fails."""
    return "fine"


@nt.tool(augment=lambda result: nt.Augmentation(hide=["ghost_tool"]))
def wrong_names() -> str:
    """A tool whose augment= function names a tool that does not exist."""
    return "fine"


def test_a_failing_or_wrong_augment_function_leaves_the_tool_set_and_the_result_usable(caplog):
    agent, script = make(
        t.turn(t.tool_use("fragile", id="f"), t.tool_use("wrong_names", id="w")),
        t.reply("ok"),
        tools=[whoami, fragile, wrong_names],
    )
    run(agent.run("go"))
    got = results(script.requests[1])
    assert got["f"]["content"] == "fine"
    assert got["w"]["content"].startswith("fine\n(Its change to the available tools was refused: hide:")
    assert names(script.requests[1]) == names(script.requests[0])
    assert "the augment= function of fragile raised" in caplog.text
    with pytest.raises(nt.ToolDefinitionError, match="augment="):
        nt.tool(augment="not callable")(lambda: None)


def test_a_container_call_is_no_tool_error_and_notes_joined_in_one_block_stay_notes():
    agent, script = make(t.turn(t.tool_use("cleaning", id="c")), t.reply("a"), t.reply("b"))
    recorder = nt.EventRecorder()
    agent.events.subscribe(recorder)
    run(agent.run("one"))
    assert not recorder.of_type("tool_error")
    agent.reset_toolset()
    agent.expand_plugin("plotting")
    run(agent.run("two"))
    first = script.requests[-1]["messages"][-1]["content"][0]["text"]
    assert first.startswith("[The tool set was reset") and "\n[The user expanded the plugin plotting" in first
    from notebook_tools.session._transitions import is_manual_note

    assert is_manual_note(first)


def test_calls_of_a_tool_gone_after_a_restart_end_with_a_reason_and_the_session_carries_on(tmp_path):
    store = nt.SQLiteStore(tmp_path / "s.sqlite")
    agent, _ = make(
        t.turn(t.tool_use("unlock_colors", id="u")),
        t.turn(t.tool_use("pick_color", id="p")),
        tools=[unlock_colors],
        store=store,
    )
    paused = run(agent.run("colors"))
    assert paused.stop_reason == "awaiting_frontend_tools"
    # A new process whose agent never registered the injected plugin.
    again, script = make(t.reply("fine"), tools=[unlock_colors], store=store)
    again.load(agent.agent_uuid)
    assert again.state.status == "idle" and not again.state.pending_frontend_tools
    run(again.run("go on"))
    [closed] = [b for b in script.requests[0]["messages"][-1]["content"] if b.get("tool_use_id") == "p"]
    assert closed["is_error"] is True and "no longer available" in closed["content"]
    assert not script.refused


def test_nested_augmented_and_duplicate_context_keys():
    @nt.tool
    def nested() -> nt.Augmented:
        """Nested."""
        return nt.Augmented(nt.Augmented("x", expand=["plotting"]), hide=["whoami"])

    @nt.tool
    def twice() -> nt.Augmented:
        """Two values for one key."""
        return nt.Augmented("ok", context=[("k", "first"), ("k", "second")])

    agent, script = make(
        t.turn(t.tool_use("nested", id="n"), t.tool_use("twice", id="w")),
        t.reply("ok"),
        tools=[whoami, nested, twice],
    )
    run(agent.run("go"))
    blocks = results(script.requests[1])
    assert blocks["n"]["is_error"] is True and "inside nt.Augmented" in blocks["n"]["content"]
    assert system_text(script.requests[1]) == "Context:\n- k: second"
