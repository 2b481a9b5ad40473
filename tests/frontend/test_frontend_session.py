"""FrontendSession: the agent and the prompts of one chat, joined as every front end holds them.

An answer the agent refuses reopens its prompt with the reason; a Stop ends a paused turn and the
next message carries on; a recorded session replays into a fresh front end.
"""

import asyncio

import notebook_tools as nt
from notebook_tools import testing as t
from notebook_tools.frontend import FrontendSession
from notebook_tools.prompts import PromptBroker
from tests.support.browser_double import until


def test_an_answer_the_agent_refuses_reopens_the_prompt_with_the_reason(make_agent):
    agent, script = make_agent(
        t.turn(t.tool_use("ask_text", {"prompt": "Name?"}, id="t1")), t.reply("ok"), max_result_chars=10
    )
    driver = FrontendSession(agent)
    b = driver.broker
    b.seen("test")

    async def main():
        turn = asyncio.ensure_future(driver.turn(agent.run("go")))
        await until(lambda: "t1" in b.prompts)
        b.answer("t1", {"value": "x" * 11})
        await until(lambda: b.prompts["t1"].error)
        assert b.prompts["t1"].status == "pending" and "over the limit of 10" in b.prompts["t1"].error
        b.answer("t1", {"value": "Ada"})
        return await turn

    assert asyncio.run(main()).text == "ok"
    assert script.requests[-1]["messages"][-1]["content"][0]["content"] == "Ada"
    assert agent.store.load(agent.agent_uuid) == agent.state


def test_the_driver_stops_a_paused_turn_and_the_next_message_carries_on(make_agent):
    agent, script = make_agent(
        t.turn(t.tool_use("user_confirm", {"message": "Go?"}, id="c1")), t.reply("carried on")
    )
    stopped = []
    driver = FrontendSession(agent, on_stopped=lambda: stopped.append(True))
    b = driver.broker
    rec = nt.EventRecorder()
    agent.events.subscribe(rec)

    async def main():
        task = driver.start(agent.run("go"))
        await until(lambda: "c1" in b.prompts)
        driver.stop()
        assert (await task).stop_reason == "stopped"  # a Stop ends the turn; it is not an error
        return await driver.turn(agent.run("next"))

    assert asyncio.run(main()).text == "carried on"
    assert stopped == [True] and b.prompts["c1"].status == "cancelled"
    assert "stopped" in [e.state for e in rec.of_type("status")]
    closed = script.requests[-1]["messages"][2]["content"][0]
    assert closed["is_error"] and closed["content"] == "Interrupted by the user before answering."
    assert script.refused == []


def test_a_recorded_session_replays_into_a_fresh_front_end(make_agent, tmp_path):
    agent, _ = make_agent(
        t.turn("Asking.", t.tool_use("user_confirm", {"message": "Go?"}, id="c1")), t.reply("Done.")
    )
    driver = FrontendSession(agent)
    b = driver.broker
    rec = nt.EventRecorder()
    agent.events.subscribe(rec)
    b.seen("test")

    async def main():
        task = driver.start(agent.run("go"))
        await until(lambda: "c1" in b.prompts)
        b.answer("c1", {"value": "yes"})
        await task

    asyncio.run(main())
    rec.save(tmp_path / "session.ndjson")
    lines = (tmp_path / "session.ndjson").read_text().splitlines()
    assert len(lines) == len(rec.events) and all(line.startswith("{") for line in lines)
    loaded = nt.EventRecorder.load(tmp_path / "session.ndjson")
    assert loaded.types() == rec.types()

    fresh = PromptBroker(agent.tools)  # another front end's view of the same session
    seen = nt.EventRecorder()
    fresh.events.subscribe(seen)
    count = asyncio.run(loaded.replay(fresh.events))
    assert count == len(rec.events) and seen.types() == rec.types()
    assert [e.prompt.status for e in seen.of_type("prompt_changed")][-1] == "answered"
