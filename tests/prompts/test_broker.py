"""The prompt broker alone (no widget, no Jupyter): answers, timeouts, policies, acks, presence."""

import asyncio

import pytest

import notebook_tools as nt
from notebook_tools.events import AnswerRefused, PromptAnswer, PromptChanged
from notebook_tools.prompts import PromptBroker
from notebook_tools.session import PendingFrontendTool


def call(tool_use_id, name="user_confirm", timeout=5.0, **arguments):
    arguments = arguments or {"message": "Go?"}
    return PendingFrontendTool(tool_use_id=tool_use_id, name=name, input=arguments, timeout=timeout)


def broker(**kwargs):
    tools = {tool.name: tool for tool in (nt.user_confirm, nt.ask_text, nt.select_option)}
    made = PromptBroker(tools, **kwargs)
    recorder = nt.EventRecorder()
    made.events.subscribe(recorder)
    return made, recorder


async def soon(fn, *args, delay=0.01):
    await asyncio.sleep(delay)
    fn(*args)


def test_answers_by_id_first_valid_wins_and_every_outcome_is_an_event():
    b, rec = broker()
    b.seen("test")

    async def main():
        waiting = asyncio.ensure_future(b.collect([call("c1"), call("t1", "ask_text", prompt="Name?")]))
        await asyncio.sleep(0.01)
        assert {p.status for p in b.prompts.values()} == {"pending"}
        b.answer("c1", {"value": "maybe"})  # wrong for a confirm: refused, stays open
        assert b.prompts["c1"].status == "pending" and "yes' or 'no'" in b.prompts["c1"].error
        b.answer("nope", {"value": "yes"})  # unknown id
        b.answer("c1", {"value": "yes"})
        b.answer("c1", {"value": "no"})  # a second answer: ignored
        b.answer("t1", {"value": "Ada"})
        return await waiting

    results = asyncio.run(main())
    assert [(r.tool_use_id, r.content) for r in results] == [("c1", "yes"), ("t1", "Ada")]
    assert [e.answer for e in rec.of_type("prompt_answer")] == [
        {"value": "maybe"},
        {"value": "yes"},
        {"value": "yes"},
        {"value": "no"},
        {"value": "Ada"},
    ]
    refused = [e.reason for e in rec.of_type("answer_refused")]
    assert len(refused) == 3
    assert "refused" in refused[0] and "'nope'" in refused[1] and "already answered" in refused[2]
    assert b.prompts["c1"].status == "answered" and b.acks["c1"].status == "success"
    assert b.acks["t1"].output == "Ada"
    assert all(isinstance(e, (PromptChanged, PromptAnswer, AnswerRefused)) for e in rec.events)


def test_an_answer_after_the_timeout_closed_the_prompt_is_reported_and_a_stale_ack_is_not():
    # Was "ignored quietly": a person whose answer came too late now hears why it was not used.
    b, _ = broker()
    b.seen("test")

    async def main():
        [result] = await b.collect([call("c1", timeout=0.05)])
        assert (
            b.answer("c1", {"status": "timeout"})
            == "the answer for 'c1' was ignored: that prompt is timed out"
        )
        assert b.errors == []  # a stale card's own timer: logged, not shown as an error
        assert "came too late" in b.answer("c1", {"value": "yes"})
        return result

    result = asyncio.run(main())
    assert result.is_error and result.content == "The user did not answer within 0.05 seconds."
    assert b.prompts["c1"].status == "timed_out" and b.acks["c1"].status == "timeout"
    assert len(b.errors) == 1 and "its 0.05 s had run out" in b.errors[0]
    assert "model was told nobody answered. Tell it in a message instead." in b.errors[0]


def test_a_double_submit_and_a_stale_ack_after_stop_show_no_error_but_another_answer_does():
    b, rec = broker()
    b.seen("test")

    async def main():
        waiting = asyncio.ensure_future(b.collect([call("c1"), call("c2")]))
        await asyncio.sleep(0.01)
        b.answer("c1", {"value": "yes", "at": 1.0})
        b.answer("c1", {"value": "yes", "at": 2.0})  # a double click: the same answer, a fresh stamp
        assert b.errors == []
        b.cancel_open()  # Stop
        b.answer("c2", {"status": "timeout", "at": 3.0})  # the card's own timer, after Stop
        assert b.errors == []
        b.answer("c1", {"value": "no", "at": 4.0})  # a different answer: reported
        waiting.cancel()

    asyncio.run(main())
    assert len(b.errors) == 1 and "second answer for 'c1' was ignored" in b.errors[0]
    assert len(rec.of_type("answer_refused")) == 1


@pytest.mark.parametrize("policy", ["wait", "fallback", "retry", "fail"])
def test_no_frontend_policies(policy):
    b, _ = broker(on_no_frontend=policy, max_retries=2, fallback_message="Nobody there for {name}.")
    timeout = 0.2 if policy == "wait" else 30.0  # only "wait" waits it out

    async def main():
        loop = asyncio.get_running_loop()
        started = loop.time()
        if policy == "fail":
            with pytest.raises(nt.NoFrontendError, match="nobody can answer user_confirm"):
                await b.collect([call("c1", timeout=timeout)])
            return None, loop.time() - started
        [result] = await b.collect([call("c1", timeout=timeout)])
        return result, loop.time() - started

    result, took = asyncio.run(main())
    if policy == "fail":
        assert b.prompts["c1"].status == "pending"  # the session stays paused: continue_turn() later
        return
    assert result.is_error and result.content == "Nobody there for user_confirm."
    assert b.acks["c1"].status == "failed"
    expected = {"wait": 0.2, "fallback": 0.0, "retry": 1.5}[policy]  # retry: 0.5 + 1.0 s of backoff
    # load only delays, so the lower bound holds; above: wait ends 150x inside 30 s, fallback before the
    # 30 s timeout it must not wait out, retry before the default max_retries' four backoffs end (7.5 s)
    upper = {"wait": 30.0, "fallback": timeout, "retry": 0.5 + 1 + 2 + 4}[policy]
    assert expected - 0.05 <= took < upper, took


def test_presence_expires_and_an_answer_during_a_retry_backoff_is_kept():
    b, _ = broker(on_no_frontend="retry", max_retries=3)
    b.frontend_ttl = 0.5
    b.seen("tab")
    assert b.attached

    async def main():
        await asyncio.sleep(0.6)
        assert not b.attached  # the view stopped pinging
        waiting = asyncio.ensure_future(b.collect([call("c1")]))
        await asyncio.sleep(0.1)  # inside the first backoff
        b.seen("tab")
        b.answer("c1", {"value": "no"})
        return await waiting

    [result] = asyncio.run(main())
    assert result.content == "no"
    b.gone("tab")
    assert not b.attached


def test_ack_forms_skip_failed_and_timeout_from_the_front_end():
    b, _ = broker()
    b.seen("test")
    calls = [call("a"), call("b"), call("c"), call("d")]

    async def main():
        waiting = asyncio.ensure_future(b.collect(calls))
        await asyncio.sleep(0.01)
        b.answer("a", {"skip": True})
        b.answer("b", {"status": "failed", "error_text": "the renderer crashed"})
        b.answer("c", {"status": "timeout"})
        b.answer("d", {"status": "success", "output": "yes"})
        return await waiting

    results = {r.tool_use_id: r for r in asyncio.run(main())}
    assert results["a"].is_error and "Skipped by the user" in results["a"].content
    assert results["b"].content == "The frontend could not run 'user_confirm': the renderer crashed"
    assert results["c"].is_error and results["d"].content == "yes"
    assert [b.acks[i].status for i in "abcd"] == ["success", "failed", "timeout", "success"]


def test_an_answer_for_an_id_not_open_yet_does_not_block_the_real_one_later():
    b, _ = broker()
    b.seen("test")

    async def main():
        assert b.answer("c9", {"value": "yes"}).endswith("that prompt is unknown")
        waiting = asyncio.ensure_future(b.collect([call("c9")]))
        await asyncio.sleep(0.01)
        assert b.answer("c9", {"value": "no"}) is None  # the real answer, once the prompt is open
        return await waiting

    [result] = asyncio.run(main())
    assert result.content == "no"
    b.clear()
    assert b.prompts == {} and b.answer("c9", {"value": "yes"}).endswith("unknown")


def test_an_answer_arriving_while_the_timeout_result_is_being_saved_is_refused_not_taken():
    # The window between the timeout and the agent saving its "did not answer" result: an answer there
    # used to be taken (the front end heard "ok") while the model was told nobody answered.
    b, _ = broker()
    b.seen("test")
    during: list = []

    async def accept(result):
        during.append(b.answer("c1", {"value": "yes"}))  # arrives while the agent saves the timeout
        await asyncio.sleep(0)

    async def main():  # what a FrontendSession does with each answer: hand it on, then settle it
        waiting = call("c1", timeout=0.05)
        b.open([waiting])
        taken = await b.next_answer(waiting)
        await accept(taken.result)
        return [b.settle("c1", taken)]

    [result] = asyncio.run(main())
    assert result.is_error and "did not answer" in str(result.content)
    assert len(during) == 1 and "came too late" in during[0]  # refused, and the person is told why
    assert b.prompts["c1"].status == "timed_out" and b.acks["c1"].status == "timeout"
