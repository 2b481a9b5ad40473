"""The tool set changed by hand (expand, collapse, reset, run(expand=)) while a turn is paused or busy."""

import asyncio

import pytest

import notebook_tools as nt
from notebook_tools import testing as t
from tests.support.toolset_agent import (
    ask_color,
    body_ok,
    every_call_answered,
    group_a,
    group_b,
    loose,
    make,
    names,
    results_of,
    run,
)


def test_approval_on_a_plugin_tool_denied_then_plugin_collapsed():
    agent, script = make(
        t.turn(t.tool_use("group_b", id="g")),
        t.turn(t.tool_use("risky", id="r")),
        t.reply("ok"),
        t.reply("again"),
    )
    paused = run(agent.run("go"))
    assert paused.stop_reason == "awaiting_approval"
    agent.collapse_plugin("group_b")
    done = run(agent.resume([nt.ApprovalDecision(tool_use_id="r", approved=False)]))
    assert done.stop_reason == "end_turn"
    body_ok(script)
    block = results_of(script.requests[2])["r"]
    assert block["is_error"] and "denied" in block["content"]
    assert "risky" not in names(script.requests[2]) and "group_b" in names(script.requests[2])
    run(agent.run("more"))
    body_ok(script)
    assert every_call_answered(agent.state)


def test_approval_approved_after_plugin_collapsed_still_runs_once():
    agent, script = make(
        t.turn(t.tool_use("group_b", id="g")),
        t.turn(t.tool_use("risky", id="r")),
        t.reply("ok"),
    )
    run(agent.run("go"))
    agent.collapse_plugin("group_b")
    run(agent.resume([nt.ApprovalDecision(tool_use_id="r", approved=True)]))
    body_ok(script)
    assert results_of(script.requests[2])["r"]["content"] == "risky done"


def test_expand_by_hand_during_a_paused_turn_then_resume():
    agent, script = make(
        t.turn(t.tool_use("ask_color", id="q")),
        t.turn(t.tool_use("gamma", id="gm")),
        t.reply("ok"),
        frontend_tools=[ask_color],
    )
    paused = run(agent.run("go"))
    assert paused.stop_reason == "awaiting_frontend_tools"
    agent.expand_plugin("group_b")
    run(agent.resume([{"tool_use_id": "q", "content": "red"}]))
    body_ok(script)
    assert "gamma" in names(script.requests[1])
    assert results_of(script.requests[2])["gm"]["content"] == "gamma"
    assert every_call_answered(agent.state)


def test_expand_plugin_while_busy_is_refused():
    gate = asyncio.Event()

    @nt.tool
    async def slow() -> str:
        """Slow."""
        await gate.wait()
        return "slow"

    agent, script = make(t.turn(t.tool_use("slow", id="s")), t.reply("ok"), tools=[loose, slow])

    async def main():
        task = asyncio.create_task(agent.run("go"))
        await asyncio.sleep(0.2)
        with pytest.raises(nt.AgentBusyError):
            agent.expand_plugin("group_a")
        with pytest.raises(nt.AgentBusyError):
            agent.collapse_plugin("group_a")
        with pytest.raises(nt.AgentBusyError):
            agent.reset_toolset()
        with pytest.raises(nt.AgentBusyError):
            await agent.run("x", expand=["group_a"])
        gate.set()
        return await task

    run(main())
    body_ok(script)


def test_run_expand_with_a_string():
    agent, script = make(t.reply("ok"))
    run(agent.run("go", expand="group_a"))
    assert "alpha" in names(script.requests[0]) and "group_a" not in names(script.requests[0])


def test_run_expand_an_available_but_absent_plugin_is_refused_and_nothing_changes():
    agent, script = make(
        t.reply("ok"), available_plugins=[nt.Plugin("extra", "E", [nt.tool(name="e_tool")(lambda: "e")])]
    )
    before = agent.state
    with pytest.raises(nt.ToolDefinitionError, match="not in this session"):
        run(agent.run("go", expand=["extra"]))
    assert agent.state == before and not script.requests


@pytest.mark.parametrize("bad", [["only_alpha"], ["alpha"], [""], ["nope"], ["group_a", "nope"]])
def test_run_expand_with_bad_names(bad):
    agent, script = make(t.reply("ok"))
    with pytest.raises(nt.ToolDefinitionError):
        run(agent.run("go", expand=bad))
    assert not agent.state.messages and agent.state.toolset == nt.ToolsetState() and not script.requests


def test_cancel_pending_with_a_container_result_held_and_an_approval_open():
    agent, script = make(
        t.turn(t.tool_use("group_a", id="g"), t.tool_use("risky", id="r")),
        t.reply("ok"),
        plugins=[group_a(), group_b(start_collapsed=False)],
    )
    assert run(agent.run("go")).stop_reason == "awaiting_approval"
    closed = agent.cancel_pending()
    assert [c.tool_use_id for c in closed] == ["r"]
    assert every_call_answered(agent.state)
    assert agent.state.toolset.expanded == {"group_a": True}
    run(agent.run("next"))
    body_ok(script)


def test_reset_while_an_approval_is_pending_then_approved():
    agent, script = make(
        t.turn(t.tool_use("group_b", id="g")),
        t.turn(t.tool_use("risky", id="r")),
        t.reply("ok"),
    )
    run(agent.run("go"))
    agent.reset_toolset()
    run(agent.resume([nt.ApprovalDecision(tool_use_id="r", approved=True)]))
    body_ok(script)
    assert results_of(script.requests[2])["r"]["content"] == "risky done"
    assert "risky" not in names(script.requests[2])
