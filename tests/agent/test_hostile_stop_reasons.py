"""Stop reasons in combinations: the history stays valid, nothing the person typed is silently lost."""

from __future__ import annotations

import asyncio

import pytest

import notebook_tools as nt
from notebook_tools import testing as t
from notebook_tools.agent._notices import MAX_PAUSES
from tests.support.raw_streams import CALLS, FOUND, SEARCH, WEB, Raw, agent_on, lookup, run

CALL = {"type": "tool_use", "id": "toolu_c1", "name": "lookup", "input": {"key": "k"}}
DETAILS = {"type": "refusal", "category": "cyber", "explanation": "no."}


def test_pause_turn_with_a_client_tool_call_in_the_same_message():
    CALLS.clear()
    agent, script, _ = agent_on(
        Raw(SEARCH, CALL, stop="pause_turn"),
        Raw(FOUND, {"type": "text", "text": "done"}),
        t.reply("more"),
        tools=[lookup, WEB],
    )
    try:
        run(agent.run("go"))
    except Exception as exc:
        pytest.fail(f"{type(exc).__name__}: {exc}")
    run(agent.run("next"))
    assert script.refused == []


def test_pause_turn_then_refusal_resets_to_before_the_prompt():
    agent, script, _ = agent_on(
        t.reply("hi"),
        Raw(SEARCH, stop="pause_turn"),
        Raw(stop="refusal", details=DETAILS),
        t.reply("ok"),
        tools=[WEB],
    )
    run(agent.run("hello"))
    result = run(agent.run("search"))
    assert result.stop_reason == "refusal"
    assert [m["role"] for m in agent.state.messages] == ["user", "assistant"]
    run(agent.run("next"))
    assert script.refused == []


def test_refusal_as_the_first_message_of_a_session():
    agent, script, _seen = agent_on(Raw(stop="refusal", details=DETAILS), t.reply("ok"), tools=[WEB])
    result = run(agent.run("bad"))
    assert result.stop_reason == "refusal" and agent.state.messages == []
    result = run(agent.run("good"))
    assert result.text == "ok" and script.refused == []
    assert "bad" not in str(script.requests[-1]["messages"])


def test_refusal_after_tool_results_mid_turn():
    agent, script, _ = agent_on(
        t.reply("hi"),
        Raw(CALL, stop="tool_use"),
        Raw(stop="refusal", details=DETAILS),
        t.reply("ok"),
        tools=[lookup],
    )
    run(agent.run("hello"))
    result = run(agent.run("look"))
    assert result.stop_reason == "refusal"
    assert [m["role"] for m in agent.state.messages] == ["user", "assistant"]
    run(agent.run("next"))
    assert script.refused == []


def test_continue_turn_after_a_refusal_does_not_repeat_the_refusal():
    agent, script, seen = agent_on(t.reply("hi"), Raw(stop="refusal", details=DETAILS), tools=[WEB])
    run(agent.run("hello"))
    run(agent.run("bad"))
    before = len([e for e in seen if e.type == "turn_notice"])
    result = run(agent.continue_turn())
    assert len(script.requests) == 2
    assert result.stop_reason != "refusal", "nothing was refused this time, yet a refusal is reported again"
    assert len([e for e in seen if e.type == "turn_notice"]) == before


def test_continue_turn_when_nothing_is_cut_off_makes_no_request():
    agent, script, _ = agent_on(t.reply("hi"), tools=[WEB])
    run(agent.run("hello"))
    result = run(agent.continue_turn())
    assert result.stop_reason == "end_turn" and len(script.requests) == 1


def test_run_after_max_tokens_inside_a_tool_call():
    agent, script, _ = agent_on(
        t.turn("Let me", t.tool_use("lookup", {"key": "a"}, id="toolu_cut"), stop_reason="max_tokens"),
        t.reply("ok"),
        tools=[lookup],
    )
    assert run(agent.run("look")).stop_reason == "max_tokens"
    result = run(agent.run("never mind"))
    assert result.text == "ok" and script.refused == []
    assert agent.state.continuation is None


def test_a_new_stop_reason_ends_the_turn_cleanly():
    agent, script, _ = agent_on(
        Raw({"type": "text", "text": "x"}, stop="quantum_pause"), t.reply("ok"), tools=[WEB]
    )
    result = run(agent.run("hi"))
    assert result.stop_reason == "quantum_pause"
    run(agent.run("next"))
    assert script.refused == []


def _exhaust_pauses():
    return [Raw(SEARCH, stop="pause_turn")] + [
        Raw({"type": "text", "text": "still"}, stop="pause_turn")
    ] * MAX_PAUSES


def test_a_message_sent_during_a_paused_turn_is_not_dropped_when_the_continuation_is_cut_off():
    agent, _script, _ = agent_on(
        *_exhaust_pauses(),
        Raw(FOUND, {"type": "text", "text": "part"}, stop="max_tokens"),
        t.reply("answer"),
        tools=[WEB],
    )
    assert run(agent.run("search")).stop_reason == "pause_turn"
    result = run(agent.run("and then what about numpy?"))
    sent = str(agent.state.messages) + str(result.model_dump())
    assert "numpy" in sent, f"the person's message vanished: stop_reason={result.stop_reason}"


def test_a_message_sent_during_a_paused_turn_whose_continuation_calls_a_frontend_tool():
    ask = {"type": "tool_use", "id": "toolu_ask", "name": "ask_text", "input": {"prompt": "Name?"}}
    agent, _script, _ = agent_on(
        *_exhaust_pauses(),
        Raw(FOUND, ask, stop="tool_use"),
        t.reply("answer"),
        tools=[WEB],
        frontend_tools=[nt.ask_text],
    )
    assert run(agent.run("search")).stop_reason == "pause_turn"
    try:
        result = run(agent.run("and then?"))
    except nt.AgentBusyError as exc:
        pytest.fail(f"run() raised after continuing the paused turn into a frontend call: {exc}")
    assert result.stop_reason == "awaiting_frontend_tools"


def test_stop_during_a_pause_turn_continuation_then_new_message(tmp_path):
    store = nt.SQLiteStore(tmp_path / "s.db")

    async def go():
        agent, script, _ = agent_on(
            Raw(SEARCH, stop="pause_turn"),
            Raw(FOUND, {"type": "text", "text": "found"}),
            t.reply("ok"),
            tools=[WEB],
            store=store,
        )
        original = agent.loop._request

        async def slow_second():
            if len(script.requests) == 1:
                agent.interrupt()
            return await original()

        agent.loop._request = slow_second
        with pytest.raises(asyncio.CancelledError):
            await agent.run("search")
        return agent

    agent = run(go())
    assert agent.state.continuation == "pause_turn"
    again, script2, _ = agent_on(t.reply("ok"), tools=[WEB], store=store)
    again.load(agent.agent_uuid)
    # A message after the pause gives it up: the search without its result goes, the message is sent.
    result = run(again.run("what did you find?"))
    assert result.text == "ok" and script2.refused == []
    # The paused reply held only the search: it is gone, and the message joins the person's first one.
    assert [m["role"] for m in again.state.messages] == ["user", "assistant"]
    assert "what did you find?" in str(script2.requests[-1]["messages"])


@pytest.mark.parametrize("how", ["continue_turn", "run"])
def test_max_tokens_right_after_a_server_tool_call(how):
    """The reply is cut after a server_tool_use block whose result never came; carrying on must work."""
    agent, script, _ = agent_on(
        Raw({"type": "text", "text": "Searching."}, SEARCH, stop="max_tokens"),
        t.reply("ok"),
        tools=[WEB],
    )
    assert run(agent.run("search")).stop_reason == "max_tokens"
    try:
        run(agent.continue_turn() if how == "continue_turn" else agent.run("go on"))
    except nt.SessionInvariantError as exc:
        pytest.fail(f"the session cannot carry on after the cut: {exc}")
    assert script.refused == []


def test_a_complete_call_before_the_cut_one_is_not_told_its_arguments_were_cut():
    """max_tokens cut the SECOND call; the first one's arguments were complete, yet it is told otherwise."""
    first = {"type": "tool_use", "id": "toolu_a", "name": "lookup", "input": {"key": "a"}}
    cut = {"type": "tool_use", "id": "toolu_b", "name": "lookup", "input": {}}
    agent, _script, _ = agent_on(Raw(first, cut, stop="max_tokens"), t.reply("ok"), tools=[lookup])
    run(agent.run("x"))
    answer = agent.state.messages[-1]["content"][0]
    assert answer["tool_use_id"] == "toolu_a"
    assert "before its arguments were complete" not in str(answer["content"])
