"""Timeouts as a person lives them, on a fake clock: none by default, an author's when asked for,
a headless run that still ends, and late answers taken while the turn has not moved on."""

import asyncio
import io

import notebook_tools as nt
from notebook_tools import testing as t
from notebook_tools.events import Prompt
from notebook_tools.prompts import FakeClock
from notebook_tools.terminal._countdown import count_down, until_text
from notebook_tools.terminal._render import Screen, make_console
from tests.support.browser_double import FakeView, pending_ids, until
from tests.support.readiness import CEILING

HOUR = 3600.0


def broker_waits(chat):
    """The broker waits on every pending prompt (the widget may show one a moment before it does)."""
    ids = pending_ids(chat)
    return bool(ids) and all(i in chat.broker._waiting for i in ids)


@nt.tool(executor="frontend", timeout=30, display={"prompt": "confirm"})
def timed_confirm(message: str) -> str:
    """Ask a yes/no question the author gave 30 s."""


def chat_on(make_agent, clock, *calls, **chat_kwargs):
    agent, script = make_agent(
        t.turn("Question:", *calls),
        t.reply("ok"),
        frontend_tools=[nt.user_confirm, nt.ask_text, timed_confirm],
    )
    chat = nt.Chat(agent, clock=clock, **chat_kwargs)
    return chat, FakeView(chat), script


def results(script):
    return {b["tool_use_id"]: b for b in script.requests[-1]["messages"][-1]["content"]}


async def live_for(view, clock, seconds, step=5.0):
    """Let `seconds` of fake time pass while the view pings every `step` s, as an open tab does."""
    for _ in range(int(seconds / step)):
        clock.advance(step)
        view.custom({"type": "ping", "view_id": "tab"})
        await asyncio.sleep(0)


def test_a_prompt_without_a_timeout_waits_an_hour_for_a_person_with_the_tab_open(make_agent):
    clock = FakeClock()
    chat, view, script = chat_on(make_agent, clock, t.tool_use("user_confirm", {"message": "Go?"}, id="c1"))
    view.custom({"type": "hello", "view_id": "tab"})

    async def main():
        task = chat.send_nowait("go")
        await until(lambda: broker_waits(chat))
        assert chat.prompts["c1"]["timeout"] is None  # no countdown to show
        await live_for(view, clock, HOUR + 60)
        await asyncio.sleep(0.05)
        assert pending_ids(chat) == ["c1"] and not task.done()  # still waiting after an hour
        view.answer("c1", {"value": "yes"})
        return await task

    result = asyncio.run(main())
    assert result.stop_reason == "end_turn" and clock.offset >= HOUR
    assert results(script)["c1"]["content"] == "yes" and chat.acks["c1"].status == "success"


def test_with_no_view_attached_the_no_frontend_grace_still_ends_the_prompt(make_agent):
    clock = FakeClock()
    chat, _view, script = chat_on(make_agent, clock, t.tool_use("ask_text", {"prompt": "Name?"}, id="t1"))

    async def main():  # nbval, nbconvert: no view ever announces itself
        task = chat.send_nowait("go")
        await until(lambda: broker_waits(chat))
        clock.advance(59)
        await asyncio.sleep(0.05)
        assert pending_ids(chat) == ["t1"]  # the grace (60 s) has not passed yet
        clock.advance(2)
        return await asyncio.wait_for(task, CEILING)

    asyncio.run(main())
    assert results(script)["t1"] == {
        "type": "tool_result",
        "tool_use_id": "t1",
        "content": "Frontend disconnected. Tool 'ask_text' unavailable.",
        "is_error": True,
    }
    assert chat.acks["t1"].status == "failed" and chat.prompts["t1"]["status"] == "failed"


def test_a_closed_tab_ends_the_prompt_after_the_view_expires_and_the_grace(make_agent):
    clock = FakeClock()
    chat, view, script = chat_on(
        make_agent, clock, t.tool_use("user_confirm", {"message": "Go?"}, id="c1"), no_frontend_grace=120
    )
    view.custom({"type": "hello", "view_id": "tab"})

    async def main():
        task = chat.send_nowait("go")
        await until(lambda: broker_waits(chat))
        await live_for(view, clock, 600)  # ten minutes with the tab open
        clock.advance(15 + 119)  # the tab closed: no ping; the view expires after 15 s, then the grace
        await asyncio.sleep(0.05)
        assert not task.done()
        clock.advance(2)
        return await asyncio.wait_for(task, CEILING)

    asyncio.run(main())
    assert results(script)["c1"]["is_error"] and chat.acks["c1"].status == "failed"


def test_an_authors_timeout_counts_down_times_out_and_a_late_answer_is_reported(make_agent):
    clock = FakeClock()
    chat, view, script = chat_on(make_agent, clock, t.tool_use("timed_confirm", {"message": "Go?"}, id="q1"))
    view.custom({"type": "hello", "view_id": "tab"})

    async def main():
        task = chat.send_nowait("go")
        await until(lambda: broker_waits(chat))
        shown = chat.view.prompts["q1"]  # what the view counts down from
        assert shown["timeout"] == 30 and abs(shown["requested_at"] - clock.time()) < 1
        await live_for(view, clock, 25)
        assert pending_ids(chat) == ["q1"]
        await live_for(view, clock, 10)
        await asyncio.wait_for(task, CEILING)
        view.answer("q1", {"value": "yes"})  # the model was already told: not used, and said so

    asyncio.run(main())
    assert results(script)["q1"]["content"] == "The user did not answer within 30 seconds."
    assert chat.prompts["q1"]["status"] == "timed_out" and chat.acks["q1"].status == "timeout"
    assert len(chat.errors) == 1 and "came too late" in chat.view.error
    assert len(script.requests) == 2


def test_a_timed_out_prompt_still_takes_an_answer_while_its_turn_waits_for_another(make_agent):
    clock = FakeClock()
    calls = (
        t.tool_use("timed_confirm", {"message": "Quick?"}, id="q1"),
        t.tool_use("ask_text", {"prompt": "Name?"}, id="t1"),
        t.tool_use("timed_confirm", {"message": "And this?"}, id="q2"),
    )
    chat, view, script = chat_on(make_agent, clock, *calls)
    view.custom({"type": "hello", "view_id": "tab"})

    async def main():
        task = chat.send_nowait("go")
        await until(lambda: len(pending_ids(chat)) == 3)
        await live_for(view, clock, 60)  # both 30 s timeouts passed; ask_text has none
        await asyncio.sleep(0.05)
        assert sorted(pending_ids(chat)) == ["q1", "q2", "t1"]  # the turn has not moved on
        view.answer("q1", {"value": "no"})  # late, but in time for the turn: taken
        await until(lambda: chat.prompts["q1"]["status"] == "answered")
        assert chat.errors == []
        view.answer("t1", {"value": "Ada"})  # the last open one: the turn moves on
        await asyncio.wait_for(task, CEILING)
        view.answer("q2", {"value": "yes"})  # now too late: reported

    asyncio.run(main())
    got = results(script)
    assert got["q1"]["content"] == "no" and got["t1"]["content"] == "Ada"
    assert got["q2"]["content"] == "The user did not answer within 30 seconds." and got["q2"]["is_error"]
    assert [chat.acks[i].status for i in ("q1", "t1", "q2")] == ["success", "success", "timeout"]
    assert len(chat.errors) == 1 and "'q2' came too late" in chat.errors[0]


def test_the_terminal_says_the_time_left_and_when_it_ends():
    clock = FakeClock()
    out = io.StringIO()
    screen = Screen(make_console(out, width=100))
    prompt = Prompt(
        tool_use_id="q1",
        name="timed_confirm",
        kind="confirm",
        input={},
        timeout=90,
        requested_at=clock.time(),
    )
    assert until_text(prompt, clock).startswith(" · answer within 1 min 30 s (until ")
    assert until_text(prompt.model_copy(update={"timeout": None}), clock) == ""

    async def main():
        ticking = asyncio.ensure_future(count_down(prompt, clock, screen, lambda: True))
        for _ in range(10):
            clock.advance(10)
            await asyncio.sleep(0.01)
        await asyncio.wait_for(ticking, CEILING)

    asyncio.run(main())
    assert out.getvalue().splitlines() == [
        "  ⏱ 1 min left to answer",
        "  ⏱ 30 s left to answer",
        "  ⏱ 10 s left to answer",
        "  ⏱ time is up (an answer still counts while other questions of this turn are open)",
    ]
