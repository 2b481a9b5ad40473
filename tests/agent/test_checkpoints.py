"""`nt.checkpoint()`: a running backend call saves its progress with the session, and a run of the same
call after a crash reads it back; outside an agent's call it keeps nothing; a checkpoint must be JSON."""

import asyncio
import math

import pytest

import notebook_tools as nt
from notebook_tools import testing as t


def run(coro):
    return asyncio.run(coro)


def test_a_checkpoint_is_saved_with_the_queued_call_and_read_back_when_it_runs_again(make_agent, tmp_path):
    store = nt.SQLiteStore(tmp_path / "s.sqlite")
    seen, stored, session = [], [], []

    @nt.tool
    async def slow_job(steps: int) -> str:
        """Works in steps, saving each one."""
        kept = nt.checkpoint()
        start = (kept.saved or {}).get("done", 0)
        seen.append(start)
        for done in range(start + 1, steps + 1):
            await kept.save({"done": done, "note": "ü✓"})
            stored.append(store.load(session[-1]).queued_calls[0].checkpoint)
        return f"from {start}"

    agent, _ = make_agent(
        t.turn(t.tool_use("slow_job", {"steps": 2}, id="job")), t.reply("ok"), tools=[slow_job], store=store
    )
    session.append(agent.agent_uuid)
    run(agent.run("go"))
    assert seen == [0] and stored == [{"done": 1, "note": "ü✓"}, {"done": 2, "note": "ü✓"}]
    assert agent.state.queued_calls == []  # finished: the call and its checkpoint are gone
    # A crash after the first step: the stored call holds its checkpoint; the run after it starts there.
    state = store.load(agent.agent_uuid)
    crashed = nt.QueuedCall(tool_use_id="job", name="slow_job", input={"steps": 3}, checkpoint={"done": 1})
    replay = state.model_copy(
        update={"messages": state.messages[:2], "queued_calls": [crashed], "revision": 0, "agent_uuid": "c"}
    )
    store.save(replay)
    assert store.load("c").queued_calls[0].checkpoint == {"done": 1}
    again, script = make_agent(t.reply("done again"), tools=[slow_job], store=store)
    again.load("c")
    session.append("c")
    assert run(again.continue_turn()).text == "done again"
    assert seen == [0, 1] and stored[-2:] == [{"done": 2, "note": "ü✓"}, {"done": 3, "note": "ü✓"}]
    assert script.requests[0]["messages"][-1]["content"][0]["content"] == "from 1"


def test_outside_an_agents_call_a_checkpoint_keeps_nothing_and_must_be_json():
    kept = nt.checkpoint()
    assert kept.saved is None and kept.kept is False
    run(kept.save({"a": [1]}))
    assert nt.checkpoint().saved is None  # nothing kept between calls outside an agent
    for bad in ({"x": object()}, {"x": math.nan}, [1, 2]):
        with pytest.raises(nt.ToolDefinitionError, match="checkpoint"):
            run(kept.save(bad))


def test_a_checkpoint_that_is_not_json_is_the_calls_error_and_a_run_by_hand_keeps_none(make_agent):
    @nt.tool(mode="both")
    async def bad() -> str:
        """Saves something that is not JSON."""
        kept = nt.checkpoint()
        if kept.kept:
            await kept.save({"when": object()})
        return f"kept={kept.kept}"

    agent, script = make_agent(t.turn(t.tool_use("bad", id="b")), t.reply("ok"), tools=[bad])
    run(agent.run("go"))
    [block] = script.requests[1]["messages"][-1]["content"]
    assert block["is_error"] is True and "checkpoint must be JSON" in str(block["content"])
    assert run(agent.manual.run("bad", {})).content == "kept=False"


def test_a_call_without_a_checkpoint_is_saved_as_before_so_older_sessions_load_unchanged():
    plain = nt.QueuedCall(tool_use_id="a", name="b", input={})
    assert "checkpoint" not in plain.model_dump_json()  # no schema bump: the field is only written when set
    old = '{"kind": "queued_call", "tool_use_id": "a", "name": "b", "input": {}, "original_input": null}'
    assert nt.QueuedCall.model_validate_json(old) == plain
    kept = plain.model_copy(update={"checkpoint": {"mcp": {"request_state": "é" * 5}}})
    assert nt.QueuedCall.model_validate_json(kept.model_dump_json()) == kept
