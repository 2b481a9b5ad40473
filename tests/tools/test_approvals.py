import asyncio

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import notebook_tools as nt
from notebook_tools import testing as t

deleted = []


@nt.tool(needs_approval=lambda args: args["n_rows"] > 100)
def delete_rows(n_rows: int) -> str:
    """Delete rows from the table.

    Args:
        n_rows: How many rows to delete.
    """
    deleted.append(n_rows)
    return f"deleted {n_rows} rows"


@nt.tool(needs_approval=nt.Blocked("production data is read-only"))
def drop_table(name: str) -> str:
    """Drop a table."""
    raise AssertionError("never runs")


def run(coro):
    return asyncio.run(coro)


def make(*steps, **kwargs):
    script = t.ScriptedTransport(*steps)
    kwargs.setdefault("tools", [delete_rows, drop_table])
    agent = nt.Agent(client=script.client(), model="claude-test", **kwargs)
    return agent, script


def results(script):
    return {b["tool_use_id"]: b for b in script.requests[-1]["messages"][-1]["content"]}


@pytest.fixture(autouse=True)
def _clear():
    deleted.clear()


def paused(**kwargs):
    agent, script = make(
        t.turn(
            t.tool_use("delete_rows", {"n_rows": 5}, id="small"),
            t.tool_use("delete_rows", {"n_rows": 500}, id="big"),
        ),
        t.reply("ok"),
        **kwargs,
    )
    result = run(agent.run("clean"))
    return agent, script, result


def test_a_conditional_rule_pauses_only_the_calls_that_need_approval():
    agent, _script, result = paused()
    assert result.stop_reason == "awaiting_approval"
    assert [(p.tool_use_id, p.input) for p in result.pending_approvals] == [("big", {"n_rows": 500})]
    assert deleted == [5]  # the small call ran at once
    assert agent.store.load(agent.agent_uuid).pending_approvals[0].tool_use_id == "big"


def test_approve_runs_the_call_and_audits_it():
    agent, script, _ = paused()
    done = run(agent.resume([nt.ApprovalDecision(tool_use_id="big", approved=True)]))
    assert done.stop_reason == "end_turn" and deleted == [5, 500]
    assert [(b["tool_use_id"], b["content"]) for b in script.requests[-1]["messages"][-1]["content"]] == [
        ("small", "deleted 5 rows"),
        ("big", "deleted 500 rows"),
    ]
    [record] = agent.store.audit_log(agent.agent_uuid)
    assert (record.tool, record.arguments, record.decision) == ("delete_rows", {"n_rows": 500}, "approved")


def test_deny_with_reason_is_an_error_result_the_model_sees():
    agent, script, _ = paused()
    run(agent.resume([{"tool_use_id": "big", "approved": False, "reason": "too many rows at once"}]))
    assert deleted == [5]
    assert results(script)["big"] == {
        "type": "tool_result",
        "tool_use_id": "big",
        "content": "The user denied this call. Reason: too many rows at once",
        "is_error": True,
    }
    assert agent.store.audit_log()[0].decision == "denied"


def test_edited_arguments_run_and_the_model_is_told_both():
    agent, script, _ = paused()
    run(agent.resume([nt.ApprovalDecision(tool_use_id="big", approved=True, edited_input={"n_rows": 50})]))
    assert deleted == [5, 50]
    content = results(script)["big"]["content"]
    assert 'You asked for {"n_rows": 500}; it ran with {"n_rows": 50}.' in content
    assert content.endswith("Result: deleted 50 rows")
    assert agent.store.audit_log()[0].decision == "edited"


def test_bad_decisions_are_refused_and_change_nothing():
    agent, script, _ = paused()
    before = agent.state.model_dump_json()
    with pytest.raises(
        nt.InvalidToolResultError, match="edited arguments: n_rows: 'many' is not of type 'integer'"
    ):
        run(
            agent.resume(
                [nt.ApprovalDecision(tool_use_id="big", approved=True, edited_input={"n_rows": "many"})]
            )
        )
    with pytest.raises(nt.ToolResultIdsError, match="missing results for pending ids 'big'"):
        run(agent.resume([nt.ApprovalDecision(tool_use_id="small", approved=True)]))
    with pytest.raises(nt.InvalidToolResultError, match="not a valid approval decision"):
        run(agent.resume([nt.ToolResult(tool_use_id="big", content="yes")]))
    with pytest.raises(nt.AgentBusyError, match="big"):
        run(agent.run("something else"))
    assert agent.state.model_dump_json() == before and len(script.requests) == 1
    assert agent.store.audit_log() == []


def test_remember_for_identical_arguments_or_the_whole_tool():
    agent, _script = make(
        t.turn(t.tool_use("delete_rows", {"n_rows": 500}, id="a")),
        t.turn(t.tool_use("delete_rows", {"n_rows": 500}, id="b")),  # identical: remembered
        t.turn(t.tool_use("delete_rows", {"n_rows": 700}, id="c")),  # different: asks again
        t.turn(t.tool_use("delete_rows", {"n_rows": 900}, id="d")),  # the whole tool: remembered
        t.reply("done"),
    )
    assert run(agent.run("go")).stop_reason == "awaiting_approval"
    result = run(agent.resume([nt.ApprovalDecision(tool_use_id="a", approved=True, remember="arguments")]))
    assert [p.tool_use_id for p in result.pending_approvals] == ["c"]
    result = run(agent.resume([nt.ApprovalDecision(tool_use_id="c", approved=True, remember="tool")]))
    assert result.stop_reason == "end_turn" and deleted == [500, 500, 700, 900]
    # remembered decisions live in the session state (they survive a restart) and are audited
    again = nt.AgentState.model_validate_json(agent.state.model_dump_json())
    assert [(r.tool, r.input) for r in again.approvals] == [
        ("delete_rows", {"n_rows": 500}),
        ("delete_rows", None),
    ]
    assert [r.decision for r in agent.store.audit_log()] == [
        "approved",
        "auto_approved",
        "approved",
        "auto_approved",
    ]


@pytest.mark.parametrize(
    ("mode", "ran", "told"),
    [
        ("approve_all", [500], "deleted 500 rows"),
        ("auto_deny", [], "This call needs approval, and approvals are switched off (denied)."),
    ],
)
def test_approval_modes(mode, ran, told):
    agent, script = make(
        t.turn(t.tool_use("delete_rows", {"n_rows": 500}, id="x")), t.reply("ok"), approval_mode=mode
    )
    assert run(agent.run("go")).stop_reason == "end_turn"
    assert deleted == ran and results(script)["x"]["content"] == told
    assert agent.store.audit_log()[0].decision == (
        "auto_approved" if mode == "approve_all" else "auto_denied"
    )


def test_blocked_calls_are_refused_in_every_mode():
    for mode in ("interactive", "approve_all"):
        agent, script = make(
            t.turn(t.tool_use("drop_table", {"name": "sales"}, id="x")), t.reply("ok"), approval_mode=mode
        )
        run(agent.run("go"))
        block = results(script)["x"]
        assert (
            block["is_error"] and block["content"] == "This call is not allowed: production data is read-only"
        )
        assert agent.store.audit_log()[0].decision == "blocked"


def test_path_zones(tmp_path):
    zones = nt.PathZones(
        {
            "data/raw": {"write": "blocked", "delete": "blocked"},
            "data": {"write": "pre_approved", "delete": "ask"},
        },
        default="ask",
        root=str(tmp_path),
    )
    assert zones.zone("write", "data/clean.csv") == "pre_approved"
    assert zones.zone("delete", "data/clean.csv") == "ask"
    assert zones.zone("write", "data/raw/x.csv") == "blocked"  # the longest prefix wins
    assert zones.zone("write", "data/../data/raw/x.csv") == "blocked"  # normalised before matching
    assert zones.zone("write", "database.csv") == "ask"  # a prefix matches whole path parts only
    written = []

    @nt.tool(needs_approval=zones.rule("write", path_arg="path"))
    def save(path: str) -> str:
        """Save a file."""
        written.append(path)
        return "saved"

    script = t.ScriptedTransport(
        t.turn(
            t.tool_use("save", {"path": "data/a.csv"}, id="ok"),
            t.tool_use("save", {"path": "data/raw/a.csv"}, id="no"),
            t.tool_use("save", {"path": "elsewhere.csv"}, id="ask"),
        ),
        t.reply("done"),
    )
    agent = nt.Agent(client=script.client(), tools=[save])
    result = run(agent.run("save"))
    assert written == ["data/a.csv"] and [p.tool_use_id for p in result.pending_approvals] == ["ask"]
    run(agent.resume([nt.ApprovalDecision(tool_use_id="ask", approved=False)]))
    blocks = results(script)
    # named by the folder that blocks it (as the zones name it), not by the file the call asked for
    assert blocks["no"]["content"] == "This call is not allowed: write is blocked in the folder 'data/raw'"
    assert blocks["ask"]["content"] == "The user denied this call."


def test_approved_frontend_calls_open_after_the_approval():
    @nt.tool(executor="frontend", needs_approval=True)
    def ask_card(question: str) -> str:
        """Ask on a card."""

    agent, script = make(
        t.turn(
            t.tool_use("ask_card", {"question": "?"}, id="f"),
            t.tool_use("delete_rows", {"n_rows": 1}, id="b"),
        ),
        t.reply("ok"),
        frontend_tools=[ask_card],
    )
    first = run(agent.run("go"))
    assert first.stop_reason == "awaiting_approval" and first.pending_frontend_tools == []
    second = run(agent.resume([nt.ApprovalDecision(tool_use_id="f", approved=True)]))
    assert second.stop_reason == "awaiting_frontend_tools"
    assert [p.tool_use_id for p in second.pending_frontend_tools] == ["f"]
    run(agent.resume([nt.ToolResult(tool_use_id="f", content="an answer")]))
    assert [b["tool_use_id"] for b in script.requests[-1]["messages"][-1]["content"]] == ["f", "b"]


def test_manual_tools_run_by_hand_and_the_model_hears_of_it():
    @nt.tool(mode="manual")
    def reload_data() -> str:
        """Reload the data from disk."""
        return "reloaded 1200 rows"

    agent, script = make(t.reply("Noted."), tools=[delete_rows, reload_data])
    result = run(agent.run_manual("reload_data", {}))
    assert result.content == "reloaded 1200 rows"
    with pytest.raises(nt.ToolDefinitionError, match="cannot be run by hand"):
        run(agent.run_manual("delete_rows", {"n_rows": 1}))
    run(agent.run("what changed?"))
    first = script.requests[-1]["messages"][0]["content"]
    assert (
        first[0]["text"]
        == "[The user ran the tool `reload_data` by hand with {}; it returned: reloaded 1200 rows]"
    )
    assert first[1]["text"] == "what changed?"
    assert "reload_data" not in [tool["name"] for tool in script.requests[-1]["tools"]]


def _size(arguments):
    """Small and large deletes are two kinds of call; a negative count has no kind."""
    n = arguments["n_rows"]
    if n < 0:
        raise ValueError("no kind for a negative count")
    big = n > 1000
    return nt.ApprovalScope(
        key="big" if big else "small",
        label="deletes of over 1,000 rows" if big else "deletes of up to 1,000 rows",
        reasons=(f"deletes {n} rows",),
    )


@nt.tool(needs_approval=True, approval_scope=_size)
def delete_sized(n_rows: int) -> str:
    """Delete rows.

    Args:
        n_rows: How many rows to delete.
    """
    deleted.append(n_rows)
    return f"deleted {n_rows} rows"


def test_remember_for_calls_of_the_same_scope():
    agent, _script = make(
        t.turn(t.tool_use("delete_sized", {"n_rows": 500}, id="a")),
        t.turn(t.tool_use("delete_sized", {"n_rows": 20}, id="b")),  # the same scope: remembered
        t.turn(t.tool_use("delete_sized", {"n_rows": 5000}, id="c")),  # another scope: asks again
        t.turn(t.tool_use("delete_sized", {"n_rows": -1}, id="d")),  # no scope: a scope rule never covers it
        t.reply("done"),
        tools=[delete_sized],
    )
    assert run(agent.run("go")).stop_reason == "awaiting_approval"
    result = run(agent.resume([nt.ApprovalDecision(tool_use_id="a", approved=True, remember="scope")]))
    assert [p.tool_use_id for p in result.pending_approvals] == ["c"]
    result = run(agent.resume([nt.ApprovalDecision(tool_use_id="c", approved=True)]))
    assert [p.tool_use_id for p in result.pending_approvals] == ["d"]
    result = run(agent.resume([nt.ApprovalDecision(tool_use_id="d", approved=True)]))
    assert result.stop_reason == "end_turn" and deleted == [500, 20, 5000, -1]
    again = nt.AgentState.model_validate_json(agent.state.model_dump_json())
    assert [(r.tool, r.input, r.scope, r.label) for r in again.approvals] == [
        ("delete_sized", None, "small", "deletes of up to 1,000 rows")
    ]


def test_a_card_offers_the_scope_and_refuses_remembering_a_call_without_one():
    from notebook_tools.prompts import PromptBroker
    from notebook_tools.session import PendingFrontendTool

    broker = PromptBroker({"delete_sized": delete_sized, "delete_rows": delete_rows})
    broker.open(
        [
            PendingFrontendTool(tool_use_id="a", name="delete_sized", input={"n_rows": 5000}),
            PendingFrontendTool(tool_use_id="b", name="delete_rows", input={"n_rows": 500}),
        ],
        kind="approval",
    )
    card = broker.prompts["a"]
    assert (card.scope, card.reasons) == ("deletes of over 1,000 rows", ["deletes 5000 rows"])
    assert (broker.prompts["b"].scope, broker.prompts["b"].reasons) == ("", [])
    refused = broker.answer("b", {"value": {"approved": True, "remember": "scope"}})
    assert refused is not None and "no kind to remember" in refused
    assert broker.answer("a", {"value": {"approved": True, "remember": "scope"}}) is None


def _command(arguments: dict) -> nt.ApprovalPreview | None:
    if arguments.get("explode"):
        raise RuntimeError("a preview function that fails")
    if arguments.get("junk"):
        return "not a preview"  # type: ignore[return-value]
    return nt.ApprovalPreview.clipped("command", "$ " + arguments["command"])


@nt.tool(needs_approval=True, approval_preview=_command)
def shell(command: str, explode: bool = False, junk: bool = False) -> str:
    """Run a shell command."""
    return "ran"


def test_a_card_previews_what_will_run_and_a_failing_or_junk_preview_leaves_the_arguments_alone():
    from notebook_tools.prompts import PromptBroker
    from notebook_tools.session import PendingFrontendTool

    broker = PromptBroker({"shell": shell, "delete_rows": delete_rows})
    calls = [
        PendingFrontendTool(tool_use_id="a", name="shell", input={"command": "rm -rf build\nmake"}),
        PendingFrontendTool(tool_use_id="b", name="shell", input={"command": "ls", "explode": True}),
        PendingFrontendTool(tool_use_id="c", name="shell", input={"command": "ls", "junk": True}),
        PendingFrontendTool(tool_use_id="d", name="delete_rows", input={"n_rows": 5}),
    ]
    broker.open(calls, kind="approval")
    assert broker.prompts["a"].preview == nt.ApprovalPreview(kind="command", text="$ rm -rf build\nmake")
    assert [broker.prompts[k].preview for k in "bcd"] == [None, None, None]
    assert broker.prompts["a"].model_dump()["preview"] == {"kind": "command", "text": "$ rm -rf build\nmake"}
    with pytest.raises(nt.ToolDefinitionError, match="approval_preview= takes a function"):
        nt.tool(approval_preview="$ ls")(lambda: None)  # type: ignore[arg-type]


def test_a_long_preview_is_cut_at_a_line_saying_how_much_was_left_out():
    long = "\n".join(f"+line {i}" for i in range(5000))
    cut = nt.ApprovalPreview.clipped("diff", long)
    assert cut is not None and len(cut.text) <= nt.tools._approvals.PREVIEW_CHARS
    *shown, note = cut.text.split("\n")
    assert shown == long.split("\n")[: len(shown)]  # whole lines, in order
    left = len(long) - len("\n".join(shown))
    assert note == f"… {left:,} more characters not shown (the arguments hold them all)"
    assert nt.ApprovalPreview.clipped("diff", "") is None
    with pytest.raises(ValueError):
        nt.ApprovalPreview(kind="diff", text=long)  # too long unclipped: refused, not cut silently


def test_an_edited_text_of_several_lines_is_told_as_a_diff_the_code_as_it_ran_readable_from_it():
    from notebook_tools.agent._tool_calls import edit_note

    asked = {"code": "import os\nos.remove('raw.csv')\nprint(len(df))", "purpose": "tidy"}
    ran = {"code": "import os\nprint(len(df))\nprint(df.shape)", "purpose": "tidy"}
    note = edit_note(asked, ran)
    assert "-os.remove('raw.csv')" in note and "+print(df.shape)" in note and " print(len(df))" in note
    assert "other arguments" not in note  # the purpose did not change: not repeated
    assert note.count("import os") == 1  # the code once, not asked-for and as-ran in full


@given(
    st.lists(st.sampled_from(["a = 1", "b = a", "print(a)", "", "  x", "del a", "---", "+++ y"]), max_size=8),
    st.lists(st.sampled_from(["a = 1", "b = a", "print(a)", "", "  x", "del a", "---", "+++ y"]), max_size=8),
)
@settings(max_examples=200, deadline=None)
def test_the_code_as_it_ran_and_as_asked_are_exactly_what_the_diff_says(asked, ran):
    from notebook_tools.agent._tool_calls import edit_note

    before, after = "\n".join(asked) + "\nend", "\n".join(ran) + "\nstart"  # several lines, different
    note = edit_note({"code": before}, {"code": after})
    body = note.split("```diff\n", 1)[1].rsplit("\n```", 1)[0].split("\n")
    hunk = body[3:]  # after the two file lines and the one hunk header (the whole text is context)
    assert body[2].startswith("@@") and not any(line.startswith("@@") for line in hunk)
    assert [line[1:] for line in hunk if line[0] in " +"] == after.split("\n")
    assert [line[1:] for line in hunk if line[0] in " -"] == before.split("\n")
