"""The Chat widget without a browser: inject what the front end sends, assert on state and replies."""

import asyncio
import json
import os

import pytest

import notebook_tools as nt
from notebook_tools import testing as t
from tests.support.browser_double import FakeView, pending_ids, until


def chat_for(make_agent, *steps, **kwargs):
    chat_kwargs = {k: kwargs.pop(k) for k in ("root", "upload_dir", "max_upload_bytes") if k in kwargs}
    agent, script = make_agent(*steps, **kwargs)
    chat = nt.Chat(agent, **chat_kwargs)
    return chat, FakeView(chat), agent, script


def ask_turn(*calls):
    return t.turn("Question:", *calls)


async def run_until_pending(chat, text="go"):
    task = asyncio.ensure_future(chat.send(text))
    await until(lambda: pending_ids(chat) or task.done())
    return task


def last_results(script):
    return {b["tool_use_id"]: b for b in script.requests[-1]["messages"][-1]["content"]}


def test_confirm_answer_resumes_the_loop_and_reaches_the_model(make_agent):
    chat, view, _agent, script = chat_for(
        make_agent,
        ask_turn(
            t.tool_use(
                "user_confirm",
                {"message": "Drop rows?", "confirm_label": "Drop", "deny_label": "Keep"},
                id="c1",
            )
        ),
        t.reply("Dropped."),
    )

    async def main():
        task = await run_until_pending(chat)
        prompt = chat.prompts["c1"]
        assert (prompt["kind"], prompt["status"], prompt["input"]["confirm_label"]) == (
            "confirm",
            "pending",
            "Drop",
        )
        assert chat.busy
        view.answer("c1", {"value": "yes"})
        return await task

    result = asyncio.run(main())
    assert result.text == "Dropped."
    assert last_results(script)["c1"]["content"] == "yes"
    assert chat.prompts["c1"]["status"] == "answered" and chat.prompts["c1"]["answer"] == "Drop"
    assert not chat.busy and chat.errors == []


def test_text_select_and_multi_select_answers(make_agent):
    chat, view, _, script = chat_for(
        make_agent,
        ask_turn(
            t.tool_use("ask_text", {"prompt": "Name?", "multiline": True}, id="t1"),
            t.tool_use("select_option", {"prompt": "Column?", "options": ["price", "qty"]}, id="s1"),
            t.tool_use(
                "select_option", {"prompt": "Drop?", "options": ["a", "b", "c"], "multiple": True}, id="s2"
            ),
        ),
        t.reply("ok"),
    )

    async def main():
        task = await run_until_pending(chat)
        assert sorted(pending_ids(chat)) == ["s1", "s2", "t1"]
        view.answer("t1", {"value": "line one\nline two"})
        view.answer_by_trait("s1", {"value": ["qty"]})  # both ways in reach the same checks
        view.answer_by_trait("s2", {"value": ["a", "c"]})
        return await task

    asyncio.run(main())
    results = last_results(script)
    assert results["t1"]["content"] == "line one\nline two"
    assert results["s1"]["content"] == "qty"
    assert json.loads(results["s2"]["content"]) == ["a", "c"]


def test_skip_gives_an_explicit_error_result(make_agent):
    chat, view, _, script = chat_for(
        make_agent, ask_turn(t.tool_use("ask_text", {"prompt": "?"}, id="t1")), t.reply("ok")
    )

    async def main():
        task = await run_until_pending(chat)
        view.answer("t1", {"skip": True})
        await task

    asyncio.run(main())
    block = last_results(script)["t1"]
    assert block["is_error"] is True and "Skipped by the user" in block["content"]
    assert chat.prompts["t1"]["status"] == "skipped"


def test_bad_answers_are_refused_shown_and_the_prompt_stays_pending(make_agent):
    chat, view, agent, script = chat_for(
        make_agent,
        ask_turn(
            t.tool_use("user_confirm", {"message": "?"}, id="c1"),
            t.tool_use("select_option", {"prompt": "?", "options": ["x", "y"]}, id="s1"),
        ),
        t.reply("ok"),
    )

    async def main():
        task = await run_until_pending(chat)
        before = agent.state.model_dump_json()
        requests = len(script.requests)
        view.answer("c1", {"value": "maybe"})
        view.answer_by_trait("s1", {"value": ["z"]})
        view.update(answers=["not", "a", "dict"])
        view.update(answers={"c1": "yes"})
        view.answer("s1", ["y"])  # not an object
        view.custom({"type": "answer", "answer": {"value": "yes"}})  # no tool_use_id
        assert agent.state.model_dump_json() == before and len(script.requests) == requests
        assert pending_ids(chat) == ["c1", "s1"]
        assert chat.prompts["c1"]["error"] == "an answer must be an object with 'value' or 'skip'"
        assert chat.prompts["s1"]["error"] == "an answer must be an object with 'value' or 'skip'"
        assert len(chat.errors) == 6 and chat.error == chat.errors[-1]
        assert chat.errors[-1] == "answer: 'tool_use_id' must be a non-empty string"
        # a corrected answer is accepted
        view.update(answers={"c1": {"value": "no"}, "s1": {"value": ["y"]}})
        return await task

    asyncio.run(main())
    results = last_results(script)
    assert (results["c1"]["content"], results["s1"]["content"]) == ("no", "y")


def test_double_submit_and_stale_answers_are_ignored(make_agent):
    chat, view, _, script = chat_for(
        make_agent,
        ask_turn(t.tool_use("user_confirm", {"message": "?"}, id="c1")),
        t.reply("ok"),
    )

    async def main():
        task = await run_until_pending(chat)
        view.answer("c1", {"value": "yes"})
        view.answer("c1", {"value": "no"})  # double submit with another value
        view.answer("ghost", {"value": "yes"})  # stale / unknown id
        return await task

    asyncio.run(main())
    assert last_results(script)["c1"]["content"] == "yes"
    assert len(script.requests) == 2
    assert any("second answer for 'c1' was ignored" in e for e in chat.errors)
    assert any("'ghost' was ignored: that prompt is unknown" in e for e in chat.errors)
    # an answer arriving after the turn ended changes nothing either
    view.answer("c1", {"value": "no"})
    assert chat.prompts["c1"]["answer"] == "Yes"


def test_malformed_custom_messages_never_raise(make_agent):
    chat, view, agent, _ = chat_for(make_agent, t.reply("hi"))
    before = agent.state.model_dump_json()
    view.custom("just a string")
    view.custom({"type": 42})
    view.custom({"type": "launch_missiles"})
    view.custom({"type": "send", "text": ""})
    view.custom({"type": "upload_start", "upload_id": "u", "tool_use_id": "nope", "name": "a", "size": 1})
    view.custom({"type": "upload_chunk", "upload_id": "u", "seq": "0"}, [b"x"])
    view.custom({"type": "list_dir", "request_id": "r", "path": "../../etc"})
    assert len(chat.errors) == 7
    assert "unknown message type 'launch_missiles'" in chat.errors[2]
    assert view.of_type("upload_ack")[0]["ok"] is False
    assert "outside the folder" in view.of_type("listing")[0]["error"]
    assert agent.state.model_dump_json() == before


def test_file_upload_in_chunks_with_acks_and_size_cap(make_agent, tmp_path):
    csv = b"city,price\n" + b"".join(b"Paris,%d\n" % i for i in range(40))
    chat, view, _, script = chat_for(
        make_agent,
        ask_turn(t.tool_use("pick_file", {"prompt": "Data?", "accept": ".csv"}, id="f1")),
        t.reply("ok"),
        upload_dir=tmp_path / "up",
        max_upload_bytes=1000,
    )

    async def main():
        task = await run_until_pending(chat)
        # over the cap: refused before any byte is sent
        view.custom(
            {"type": "upload_start", "upload_id": "big", "tool_use_id": "f1", "name": "big.csv", "size": 5000}
        )
        assert view.of_type("upload_ack")[-1] == {
            "type": "upload_ack",
            "upload_id": "big",
            "received": 0,
            "ok": False,
            "error": "big.csv is 5,000 bytes; the limit is 1,000 bytes",
        }
        view.custom(
            {
                "type": "upload_start",
                "upload_id": "u1",
                "tool_use_id": "f1",
                "name": "../sales.csv",
                "size": len(csv),
            }
        )
        half = len(csv) // 2
        view.custom({"type": "upload_chunk", "upload_id": "u1", "seq": 0}, [csv[:half]])
        view.custom(
            {"type": "upload_chunk", "upload_id": "u1", "seq": 0}, [csv[:half]]
        )  # resent chunk: ignored
        # answering before the upload completes is refused
        view.answer("f1", {"value": {"uploads": ["u1"]}})
        assert "incomplete" in chat.prompts["f1"]["error"]
        view.custom({"type": "upload_chunk", "upload_id": "u1", "seq": 1}, [csv[half:]])
        acks = view.of_type("upload_ack")
        assert [a["received"] for a in acks[1:]] == [0, half, half, len(csv)]
        assert acks[-1]["done"] is True
        # the same answer submitted again (a new attempt carries a new "at") now succeeds
        view.update(answers={"f1": {"value": {"uploads": ["u1"]}, "at": 2}})
        return await task

    asyncio.run(main())
    assert chat.files["sales.csv"] == csv
    assert (tmp_path / "up" / "sales.csv").read_bytes() == csv
    content = last_results(script)["f1"]["content"]
    meta = json.loads(content[0]["text"])
    assert meta == [
        {
            "name": "sales.csv",
            "path": str(tmp_path / "up" / "sales.csv"),
            "size": len(csv),
            "media_type": "text/csv",
        }
    ]
    assert "(41 lines) is saved at" in content[1]["text"] and "Paris,0" in content[1]["text"]
    assert "[26 more lines]" in content[1]["text"]


def test_pick_from_the_working_directory_is_confined_to_the_root(make_agent, tmp_path):
    root = tmp_path / "work"
    (root / "data").mkdir(parents=True)
    (root / "data" / "notes.txt").write_text("hello notes")
    (root / "pic.png").write_bytes(b"\x89PNG\r\n\x1a\n" + b"0" * 20)
    secret = tmp_path / "secret.txt"
    secret.write_text("top secret")
    os.symlink(secret, root / "link.txt")
    chat, view, _, script = chat_for(
        make_agent,
        ask_turn(t.tool_use("pick_file", {"prompt": "Which?", "multiple": True}, id="f1")),
        t.reply("ok"),
        root=root,
    )

    async def main():
        task = await run_until_pending(chat)
        view.custom({"type": "list_dir", "request_id": "r1", "path": ""})
        listing = view.of_type("listing")[-1]
        assert [e["name"] for e in listing["entries"]] == [
            "data",
            "pic.png",
        ]  # the escaping symlink is not offered
        view.answer("f1", {"value": {"paths": ["../secret.txt"]}})
        assert "outside the folder" in chat.prompts["f1"]["error"]
        view.update(answers={"f1": {"value": {"paths": ["link.txt"]}}})
        assert "outside the folder" in chat.prompts["f1"]["error"]
        view.update(answers={"f1": {"value": {"paths": ["data/notes.txt", "pic.png"]}}})
        return await task

    asyncio.run(main())
    content = last_results(script)["f1"]["content"]
    assert [b["type"] for b in content] == ["text", "text", "text", "image"]
    assert content[1]["text"] == "Contents of notes.txt:\nhello notes"
    assert content[3]["source"]["media_type"] == "image/png"
    assert "top secret" not in json.dumps(script.requests)


def test_a_frontend_tool_without_renderer_gets_a_validated_text_box(make_agent):
    @nt.tool(
        executor="frontend",
        output_schema={"type": "object", "properties": {"hex": {"type": "string"}}, "required": ["hex"]},
    )
    def pick_color() -> str:
        """Ask the user to pick a color. Returns: JSON {"hex": "#RRGGBB"}"""

    chat, view, _, script = chat_for(
        make_agent,
        ask_turn(t.tool_use("pick_color", {}, id="p1")),
        t.reply("ok"),
        frontend_tools=[pick_color],
    )

    async def main():
        task = await run_until_pending(chat)
        assert chat.prompts["p1"]["kind"] == "generic"
        assert chat.prompts["p1"]["output_schema"]["required"] == ["hex"]
        # the person sees the summary, not the return contract written for the model
        assert chat.prompts["p1"]["description"] == "Ask the user to pick a color."
        view.answer("p1", {"value": "red"})
        assert chat.prompts["p1"]["error"].startswith(
            "this is not JSON (Expecting value at line 1, column 1)"
        )
        assert chat.view.error == ""  # the card shows why; no banner with internal ids
        view.update(answers={"p1": {"value": '{"hex": "#ff0000"}'}})
        return await task

    asyncio.run(main())
    assert last_results(script)["p1"]["content"] == '{"hex": "#ff0000"}'


@nt.tool(executor="frontend", timeout=0.2, display={"prompt": "text"})
def quick(prompt: str) -> str:
    """Quick question."""


@nt.tool(executor="frontend", timeout=30, display={"prompt": "text"})
def patient(prompt: str) -> str:
    """A question with time to answer."""


def test_unanswered_prompt_times_out_with_an_explicit_result(make_agent):
    chat, view, _, script = chat_for(
        make_agent,
        ask_turn(t.tool_use("quick", {"prompt": "?"}, id="q1")),
        t.reply("ok"),
        frontend_tools=[quick],
    )
    view.custom({"type": "hello", "view_id": "v1"})  # a view is attached, but nobody answers
    asyncio.run(chat.send("go"))
    block = last_results(script)["q1"]
    assert block["is_error"] and block["content"] == "The user did not answer within 0.2 seconds."
    assert chat.prompts["q1"]["status"] == "timed_out"
    ack = chat.acks["q1"]
    assert (ack.status, ack.error_text) == ("timeout", "The user did not answer within 0.2 seconds.")
    # the turn moved on: a late answer is not used, and the person is told so (was: ignored quietly)
    view.answer("q1", {"value": "too late"})
    assert chat.prompts["q1"]["status"] == "timed_out"
    assert len(chat.errors) == 1 and "came too late" in chat.errors[0] and "in a message" in chat.view.error
    assert len(script.requests) == 2


@pytest.mark.parametrize("policy", ["wait", "fallback", "retry", "fail"])
def test_no_frontend_policies(make_agent, policy):
    # "wait" waits out the tool's timeout; the others must answer well before a 30 s one.
    tool = quick if policy == "wait" else patient
    chat, _view, agent, script = chat_for(
        make_agent,
        ask_turn(t.tool_use(tool.name, {"prompt": "?"}, id="q1")),
        t.reply("ok"),
        frontend_tools=[tool],
    )
    chat.on_no_frontend = policy
    chat.max_retries = 2
    chat.fallback_message = "No browser: '{name}' cannot be asked."

    async def main():
        loop = asyncio.get_running_loop()
        started = loop.time()
        if policy == "fail":
            with pytest.raises(
                nt.NoFrontendError, match="No front end is attached, so nobody can answer patient"
            ):
                await chat.send("go")
            return loop.time() - started
        await chat.send("go")
        return loop.time() - started

    elapsed = asyncio.run(main())
    if policy == "fail":
        assert agent.state.pending_frontend_tools[0].tool_use_id == "q1"  # still paused, nothing lost
        # raised at once, not after the 30 s timeout: a bound at that timeout needs no load margin
        assert elapsed < patient.timeout and len(script.requests) == 1
        return
    block = last_results(script)["q1"]
    assert block == {
        "type": "tool_result",
        "tool_use_id": "q1",
        "content": f"No browser: '{tool.name}' cannot be asked.",
        "is_error": True,
    }
    assert chat.acks["q1"].status == "failed" and chat.prompts["q1"]["status"] == "failed"
    # retry waits 0.5 s + 1 s for a view, then falls back; all of them long before the 30 s timeout
    # (wait: its 0.2 s one, 150x over; the others: below the 30 s one they must not wait out)
    low = {"wait": 0.2, "fallback": 0.0, "retry": 1.4}[policy]
    assert low <= elapsed < patient.timeout, elapsed


def test_retry_policy_picks_up_a_view_that_attaches(make_agent):
    chat, view, _, script = chat_for(
        make_agent,
        ask_turn(t.tool_use("ask_text", {"prompt": "?"}, id="t1")),
        t.reply("ok"),
        frontend_tools=[nt.ask_text],
    )
    chat.on_no_frontend = "retry"

    async def main():
        task = asyncio.ensure_future(chat.send("go"))
        await until(lambda: pending_ids(chat))  # the call waits with no view: the view comes late
        view.custom({"type": "hello", "view_id": "late"})
        await until(lambda: pending_ids(chat) and chat.attached)
        view.answer("t1", {"value": "hi"})
        return await task

    asyncio.run(main())
    assert last_results(script)["t1"]["content"] == "hi"


def test_views_announce_themselves_and_leave(make_agent):
    chat, view, _, _ = chat_for(make_agent, t.reply("hi"))
    assert not chat.attached
    view.custom({"type": "hello", "view_id": "a"})
    assert chat.attached
    view.custom({"type": "bye", "view_id": "a"})
    assert not chat.attached
    view.custom({"type": "ping", "view_id": "b"})
    chat.view_ttl = 0.0  # a view that stops pinging expires
    assert not chat.attached


def test_acks_in_long_form(make_agent):
    chat, view, _, script = chat_for(
        make_agent,
        ask_turn(
            t.tool_use("ask_text", {"prompt": "?"}, id="a1"),
            t.tool_use("ask_text", {"prompt": "?"}, id="a2"),
            t.tool_use("ask_text", {"prompt": "?"}, id="a3"),
        ),
        t.reply("ok"),
    )

    async def main():
        task = await run_until_pending(chat)
        view.answer("a1", {"status": "success", "output": "fine"})
        view.answer("a2", {"status": "failed", "error_text": "the renderer crashed"})
        view.answer("a3", {"status": "bogus"})
        assert "unknown ack status 'bogus'" in chat.prompts["a3"]["error"]
        view.answer("a3", {"status": "timeout"})
        return await task

    asyncio.run(main())
    results = last_results(script)
    assert results["a1"]["content"] == "fine"
    assert results["a2"] == {
        "type": "tool_result",
        "tool_use_id": "a2",
        "content": "The frontend could not run 'ask_text': the renderer crashed",
        "is_error": True,
    }
    assert (
        # no timeout of its own (none by default): the front end's timer ran out
        results["a3"]["is_error"] and results["a3"]["content"] == "The user did not answer in time."
    )
    assert [chat.acks[i].status for i in ("a1", "a2", "a3")] == ["success", "failed", "timeout"]
    assert all(a.requested_at <= a.answered_at for a in chat.acks.values())


def test_api_errors_exhausted_show_a_retry_and_retry_finishes(make_agent):
    chat, view, agent, script = chat_for(
        make_agent, t.HTTPFault(529), t.HTTPFault(529), t.HTTPFault(529), t.reply("back online")
    )

    async def main():
        with pytest.raises(Exception, match="scripted fault"):
            await chat.send("hello")
        notices = [i for i in chat.transcript.items.values() if i.get("kind") == "notice"]
        assert notices[-1]["retry"] is True and "OverloadedError" in notices[-1]["details"]
        assert notices[-1]["text"] == "The API is overloaded right now: wait a moment, then Retry."
        view.custom({"type": "retry"})  # the Retry button
        await until(lambda: chat.driver.task is not None and chat.driver.task.done())
        return chat.driver.task.result(), notices[-1]["id"]

    result, notice_id = asyncio.run(main())
    assert result.text == "back online"
    assert chat.transcript.items[notice_id]["retry"] is False
    assert [m["role"] for m in agent.state.messages] == ["user", "assistant"]
    assert script.requests[-1]["messages"] == [
        {"role": "user", "content": [{"type": "text", "text": "hello"}]}
    ]


def test_retry_with_nothing_to_retry_is_refused_in_words_and_starts_no_turn(make_agent):
    chat, view, agent, script = chat_for(make_agent, t.reply("done"))

    async def main():
        await chat.send("hello")
        before = agent.state.model_dump_json()
        view.custom({"type": "retry"})  # a stale Retry button, or a forged message
        for _ in range(10):
            await asyncio.sleep(0)
        return before

    before = asyncio.run(main())
    assert (
        chat.errors[-1]
        == "nothing to retry: the last turn ended with the model's reply; send a message to go on"
    )
    assert agent.state.model_dump_json() == before and len(script.requests) == 1


def test_transcript_updates_do_not_grow_with_history(make_agent):
    steps = [t.reply(f"Answer number {i:04d}.") for i in range(120)]
    chat, view, _, _ = chat_for(make_agent, *steps)

    async def main():
        sizes = []
        for i in range(120):
            before = view.bytes_sent()
            await chat.send(f"question {i:04d}")
            sizes.append(view.bytes_sent() - before)
        return sizes

    sizes = asyncio.run(main())
    assert max(sizes[100:]) <= 1.1 * max(sizes[5:15])


def test_streamed_text_is_coalesced(make_agent):
    text = "word " * 5000
    chat, view, _agent, script = chat_for(make_agent, t.reply(text))
    script.text_chunk = 1  # 25,000 deltas, as fast as the transport gives them
    start = asyncio.run(_timed(chat.send("go")))
    deltas = view.of_type("delta")
    first = [i["text"] for m in view.of_type("items") for i in m["items"] if i["id"] == "r1"]
    assert first[0] + "".join(d["text"] for d in deltas) == text  # the first piece rides with the new item
    assert len(deltas) <= 20 * start + 2, (len(deltas), start)
    assert chat.transcript.items["r1"]["text"] == text


async def _timed(coro):
    loop = asyncio.get_running_loop()
    t0 = loop.time()
    await coro
    return loop.time() - t0


def test_hello_gets_a_snapshot_and_answered_prompts_stay_answered(make_agent):
    chat, view, _agent, _ = chat_for(
        make_agent, ask_turn(t.tool_use("user_confirm", {"message": "?"}, id="c1")), t.reply("fine")
    )

    async def main():
        task = await run_until_pending(chat)
        view.answer("c1", {"value": "yes"})
        await task

    asyncio.run(main())
    view.custom({"type": "hello"})  # a reloaded page announces itself
    [snapshot] = view.of_type("snapshot")
    kinds = [(i["kind"], i.get("text", i.get("name"))) for i in snapshot["items"]]
    assert kinds == [
        ("user", "go"),
        ("assistant", "Question:"),
        ("tool", "user_confirm"),
        ("assistant", "fine"),
    ]
    # a reloaded view shows the answer from the snapshot; the synced (saved) state holds open prompts only
    [tool] = [i for i in snapshot["items"] if i["id"] == "c1"]
    assert (tool["prompt"]["status"], tool["prompt"]["answer"]) == ("answered", "Yes")
    assert chat.view.get_state()["prompts"] == {}


def test_a_chat_rebuilt_from_a_saved_session_shows_its_history(make_agent):
    store = nt.InMemoryStore()
    _chat, _view, agent, script = chat_for(
        make_agent, ask_turn(t.tool_use("user_confirm", {"message": "Go?"}, id="c1")), store=store
    )
    paused = asyncio.run(agent.run("start"))
    assert paused.stop_reason == "awaiting_frontend_tools"
    again = nt.Agent(client=script.client(), frontend_tools=[nt.user_confirm], store=store)
    again.load(agent.agent_uuid)
    rebuilt = nt.Chat(again)
    assert [i["kind"] for i in rebuilt.transcript.items.values()] == ["user", "assistant", "tool"]
    assert rebuilt.prompts["c1"]["status"] == "pending"


def test_no_secret_enters_synced_state(make_agent):
    chat, view, _agent, _ = chat_for(make_agent, t.reply("hi"))
    asyncio.run(chat.send("hello"))
    state = json.dumps(chat.view.get_state(), default=str)
    assert "scripted-no-key" not in state and "api_key" not in state
    assert "scripted-no-key" not in json.dumps([p["data"] for p in view.published], default=str)


def test_stable_repr_and_independent_chats(make_agent):
    chat1, _view1, _, _ = chat_for(make_agent, t.reply("one"))
    chat2, view2, _, _ = chat_for(make_agent, t.reply("two"))
    assert repr(chat1) == "<notebook_tools.Chat: 0 items, 0 prompts, idle>"
    asyncio.run(chat1.send("a"))
    assert len(chat1.transcript) == 2 and len(chat2.transcript) == 0
    assert not view2.sent


def test_send_nowait_runs_in_the_background_and_the_input_box_sends(make_agent):
    chat, view, _, script = chat_for(make_agent, t.reply("first"), t.reply("second"))

    async def main():
        task = chat.send_nowait("typed in a cell")
        with pytest.raises(RuntimeError, match="already running"):
            chat.send_nowait("again")
        await task
        view.custom({"type": "send", "text": "typed in the widget"})
        await until(lambda: len(script.requests) == 2 and not chat.busy)
        await chat.driver.task

    asyncio.run(main())
    assert [m["content"][0]["text"] for m in script.requests[1]["messages"] if m["role"] == "user"] == [
        "typed in a cell",
        "typed in the widget",
    ]


def test_ask_prompts_without_an_agent():
    async def main():
        task = asyncio.ensure_future(nt.ask.select("Pick", ["a", "b", "c"], multiple=True))
        await until(lambda: nt.ask.last is not None and pending_ids(nt.ask.last))
        widget = nt.ask.last
        assert widget.view.mode == "ask"
        FakeView(widget).answer(pending_ids(widget)[0], {"value": ["b", "c"]})
        chosen = await task
        task = asyncio.ensure_future(nt.ask.confirm("Overwrite?"))
        await until(lambda: nt.ask.last is not widget and pending_ids(nt.ask.last))
        FakeView(nt.ask.last).answer(pending_ids(nt.ask.last)[0], {"skip": True})
        with pytest.raises(nt.PromptNotAnswered, match="Skipped"):
            await task
        return chosen

    assert asyncio.run(main()) == ["b", "c"]


def test_stop_cancels_the_turn_and_the_next_message_works(make_agent):
    chat, view, _agent, script = chat_for(
        make_agent,
        ask_turn(t.tool_use("user_confirm", {"message": "?"}, id="c1")),
        t.reply("Understood, stopping."),
    )

    async def main():
        task = chat.send_nowait("go")
        await until(lambda: pending_ids(chat))
        view.custom({"type": "stop"})
        assert (await task).stop_reason == "stopped"
        assert chat.prompts["c1"]["status"] == "cancelled" and not chat.busy and chat.status == "stopped"
        return await chat.send("what happened?")

    result = asyncio.run(main())
    assert result.text == "Understood, stopping."
    last = script.requests[-1]["messages"][-1]["content"]
    assert last[0]["tool_use_id"] == "c1" and last[0]["is_error"] is True
    assert last[1] == {"type": "text", "text": "what happened?"}


def test_await_send_is_refused_where_it_would_deadlock(make_agent, monkeypatch):
    import importlib.metadata
    import sys

    chat, _, _, _ = chat_for(make_agent, t.reply("hi"))
    monkeypatch.setitem(sys.modules, "ipykernel", sys.modules.get("ipykernel") or object())
    monkeypatch.setattr(importlib.metadata, "version", lambda name: "6.29.5")
    with pytest.raises(RuntimeError, match=r"deadlock on ipykernel 6\.29\.5.*send_nowait"):
        asyncio.run(chat.send("hi"))


@nt.tool(needs_approval=lambda args: args["n_rows"] > 100)
def trim_rows(n_rows: int) -> str:
    """Delete rows.

    Args:
        n_rows: How many rows.
    """
    return f"deleted {n_rows}"


def test_approval_cards_approve_deny_edit_and_remember(make_agent):
    chat, view, agent, script = chat_for(
        make_agent,
        t.turn(
            t.tool_use("trim_rows", {"n_rows": 500}, id="a1"),
            t.tool_use("trim_rows", {"n_rows": 900}, id="a2"),
            t.tool_use("trim_rows", {"n_rows": 300}, id="a3"),
        ),
        t.reply("ok"),
        tools=[trim_rows],
    )

    async def main():
        task = await run_until_pending(chat)
        card = chat.prompts["a1"]
        assert card["kind"] == "approval" and card["input_schema"]["required"] == ["n_rows"]
        assert chat.status == "awaiting_approval"
        view.answer("a1", {"value": {"approved": True, "edited_input": {"n_rows": "lots"}}})
        assert (
            chat.prompts["a1"]["error"]
            == "the edited arguments do not fit the tool: n_rows: 'lots' is not of type 'integer'"
        )
        view.answer(
            "a1", {"value": {"approved": True, "edited_input": {"n_rows": 50}, "remember": "tool"}, "at": 2}
        )
        view.answer("a2", {"value": {"approved": False, "reason": "way too many"}})
        view.answer("a3", {"skip": True})
        return await task

    asyncio.run(main())
    results = last_results(script)
    assert 'it ran with {"n_rows": 50}' in results["a1"]["content"]
    assert results["a2"]["content"] == "The user denied this call. Reason: way too many"
    assert results["a3"]["is_error"] and "Skipped by the user" in results["a3"]["content"]
    assert (
        chat.prompts["a1"]["answer"]
        == 'Approved with edits: {"n_rows": 50} (remembered for this session: this tool)'
    )
    assert chat.prompts["a2"]["answer"] == "Denied: way too many"
    assert [r.decision for r in agent.store.audit_log()] == ["edited", "denied", "denied"]
    assert agent.state.approvals[0].tool == "trim_rows"


def test_manual_tools_and_clear_from_the_widget(make_agent):
    @nt.tool(mode="both")
    def refresh(source: str = "disk") -> str:
        """Refresh the data.

        Args:
            source: Where from.
        """
        return f"refreshed from {source}"

    chat, view, agent, script = chat_for(
        make_agent, t.reply("Noted the refresh."), tools=[refresh, trim_rows]
    )
    assert [tool["name"] for tool in chat.view.tools] == ["refresh"]

    async def main():
        view.custom({"type": "manual_tool", "name": "refresh", "input": {"source": "s3"}, "request_id": "m1"})
        await until(lambda: view.of_type("manual_result"))
        view.custom({"type": "manual_tool", "name": "trim_rows", "input": {"n_rows": 1}, "request_id": "m2"})
        await until(lambda: len(view.of_type("manual_result")) == 2)
        await chat.send("what happened?")

    asyncio.run(main())
    ok, refused = view.of_type("manual_result")
    assert ok == {"type": "manual_result", "request_id": "m1", "ok": True, "is_error": False}
    assert refused["ok"] is False and "cannot be run by hand" in refused["error"]
    tool_items = [i for i in chat.transcript.items.values() if i.get("kind") == "tool"]
    assert tool_items[0]["name"] == "refresh" and tool_items[0]["result"] == "refreshed from s3"
    first = script.requests[-1]["messages"][0]["content"][0]["text"]
    assert (
        first
        == '[The user ran the tool `refresh` by hand with {"source": "s3"}; it returned: refreshed from s3]'
    )
    old = agent.agent_uuid
    view.custom({"type": "clear"})
    assert agent.agent_uuid != old and len(chat.transcript) == 0 and view.of_type("cleared")


def test_stop_during_streaming_keeps_the_history_valid(make_agent):
    chat, _view, agent, script = chat_for(make_agent, t.reply("word " * 4000), t.reply("Stopped as asked."))
    script.text_chunk = 1

    deltas = []

    def stop_mid_stream(event):
        if event.type == "text_delta":
            deltas.append(event.text)
            if len(deltas) == 10:
                chat.interrupt()  # the Stop button, while text streams

    agent.events.subscribe(stop_mid_stream)

    async def main():
        task = chat.send_nowait("long answer please")
        assert (await task).stop_reason == "stopped"
        return await chat.send("what happened?")

    result = asyncio.run(main())
    assert result.text == "Stopped as asked."
    assert len(deltas) < 100  # streaming stopped at once, not after the 20,000 deltas
    assert script.requests[-1]["messages"] == [
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "long answer please"},
                {"type": "text", "text": "what happened?"},
            ],
        }
    ]


def test_an_upload_id_never_becomes_a_path(tmp_path):
    from notebook_tools.prompts import FileAccessError, FileInbox

    inbox = FileInbox(root=tmp_path, upload_dir=tmp_path / "up")
    outside = tmp_path / "notes.part"
    outside.write_text("keep me")
    for bad in ["/../../notes", "../notes", "a/b", "", "x" * 65, "é"]:
        with pytest.raises(FileAccessError, match="upload id"):
            inbox.start(bad, "t1", "data.csv", 3)
    inbox.start("good-id_1", "t1", "data.csv", 3)
    inbox.chunk("good-id_1", 0, b"a,b")
    assert outside.read_text() == "keep me"
    assert sorted(p.name for p in (tmp_path / "up").rglob("*") if p.is_file()) == ["data.csv"]


def test_an_edit_into_a_blocked_zone_is_refused_in_the_card_which_stays_open(make_agent, tmp_path):
    zones = nt.PathZones({"data/raw": {"write": "blocked"}}, default="ask", root=str(tmp_path))
    ran = []

    @nt.tool(needs_approval=zones.rule("write", path_arg="path"))
    def save_csv(path: str) -> str:
        """Save the table.

        Args:
            path: Where to.
        """
        ran.append(path)
        return f"saved {path}"

    chat, view, agent, script = chat_for(
        make_agent,
        t.turn(t.tool_use("save_csv", {"path": "scratch/out.csv"}, id="w1")),
        t.reply("ok"),
        tools=[save_csv],
    )

    async def main():
        task = await run_until_pending(chat)
        view.answer("w1", {"value": {"approved": True, "edited_input": {"path": "data/raw/sales.csv"}}})
        await until(lambda: chat.prompts["w1"]["error"])
        assert chat.prompts["w1"]["status"] == "pending" and ran == []
        assert chat.prompts["w1"]["error"] == (  # a sentence naming the blocked folder, not the file
            "That edit is not allowed: write is blocked in the folder 'data/raw'. Change the arguments, "
            "or approve or deny the call as it was."
        )
        view.answer("w1", {"value": {"approved": False, "reason": "fine, not at all"}, "at": 2})
        return await task

    assert asyncio.run(main()).text == "ok"
    block = last_results(script)["w1"]
    assert ran == [] and block["is_error"] and "fine, not at all" in block["content"]
    assert [r.decision for r in agent.store.audit_log(agent.agent_uuid)] == ["denied"]


def test_same_name_files_stay_two_files_and_bytes_are_read_from_disk(tmp_path):
    from notebook_tools.prompts import FileInbox
    from notebook_tools.prompts._file_content import content_for_files

    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    (tmp_path / "a" / "data.txt").write_text("from A")
    (tmp_path / "b" / "data.txt").write_text("from B")
    inbox = FileInbox(root=tmp_path)
    first, second = inbox.workspace_file("a/data.txt"), inbox.workspace_file("b/data.txt")
    assert len(inbox.files) == 0  # chosen files join `files` once the answer stands
    inbox.stage("t1", [first, second])
    inbox.close("t1", "answered")
    blocks = content_for_files([first, second])
    texts = [b["text"] for b in blocks[1:]]
    assert texts == ["Contents of data.txt:\nfrom A", "Contents of data.txt:\nfrom B"]
    assert len(inbox.files) == 2 and inbox.files[str(tmp_path / "b" / "data.txt")] == b"from B"
    with pytest.raises(KeyError, match="names 2 files"):
        inbox.files["data.txt"]
    (tmp_path / "b" / "data.txt").write_text("changed on disk")  # not held in memory: read when asked
    assert inbox.files[str(tmp_path / "b" / "data.txt")] == b"changed on disk"


def test_pick_file_accept_is_enforced_in_the_kernel_and_a_dangling_symlink_is_answered(make_agent, tmp_path):
    (tmp_path / "notes.txt").write_text("hello")
    (tmp_path / "table.csv").write_text("a,b\n1,2\n")
    (tmp_path / "gone").symlink_to(tmp_path / "nowhere")
    chat, view, _, script = chat_for(
        make_agent,
        ask_turn(t.tool_use("pick_file", {"prompt": "A CSV?", "accept": ".csv"}, id="f1")),
        t.reply("ok"),
        root=tmp_path,
    )

    async def main():
        task = await run_until_pending(chat)
        view.custom({"type": "list_dir", "request_id": "r1", "path": ""})
        view.answer("f1", {"value": {"paths": ["notes.txt"]}})
        assert (
            chat.prompts["f1"]["status"] == "pending"
            and "not an accepted type" in chat.prompts["f1"]["error"]
        )
        view.answer("f1", {"value": {"paths": ["table.csv"]}, "at": 2})
        return await task

    assert asyncio.run(main()).text == "ok"
    [listing] = view.of_type("listing")
    assert listing["request_id"] == "r1" and "error" not in listing
    assert sorted(e["name"] for e in listing["entries"]) == [
        "notes.txt",
        "table.csv",
    ]  # the dangling link is left out
    assert "table.csv" in json.dumps(last_results(script)["f1"]["content"])


def test_a_denied_call_ends_in_the_transcript(make_agent):
    chat, view, _agent, _script = chat_for(
        make_agent,
        t.turn(t.tool_use("trim_rows", {"n_rows": 500}, id="d1")),
        t.reply("ok"),
        tools=[trim_rows],
    )

    async def main():
        task = await run_until_pending(chat)
        view.answer("d1", {"value": {"approved": False, "reason": "too many"}})
        return await task

    asyncio.run(main())
    item = chat.transcript.items["d1"]
    assert item["status"] == "error" and "too many" in item["result"]


def test_the_saved_widget_state_holds_open_prompts_only_whatever_the_session_length(
    make_agent, tmp_path, monkeypatch
):
    """What a saved notebook keeps of a chat does not grow with answered prompts, uploads or secrets."""
    monkeypatch.setenv("NT_TEST_ENV_SECRET", "env-value-7f3a9c")
    marker = b"FILE-BYTES-d41d8cd9"
    steps = [t.turn(t.tool_use("pick_file", {"prompt": "Data?"}, id="f0")), t.reply("read it")]
    for i in range(1, 41):
        steps += [t.turn(t.tool_use("user_confirm", {"message": f"Step {i}? " + "x" * 200}, id=f"c{i}"))]
        steps += [t.reply(f"ok {i}")]
    chat, view, _agent, _ = chat_for(make_agent, *steps, upload_dir=tmp_path / "up")

    def saved() -> dict:
        state = chat.view.get_state()
        assert "_css" not in state and len(state.pop("_esm")) < 3_000  # the code reaches a page once
        return state

    empty = len(json.dumps(saved()))

    async def main():
        task = await run_until_pending(chat, "file first")
        view.custom(
            {"type": "upload_start", "upload_id": "u1", "tool_use_id": "f0", "name": "d.bin", "size": 19}
        )
        view.custom({"type": "upload_chunk", "upload_id": "u1", "seq": 0}, [marker])
        view.answer("f0", {"value": {"uploads": ["u1"]}})
        await task
        for i in range(1, 41):
            task = await run_until_pending(chat, f"step {i}")
            assert list(saved()["prompts"]) == [f"c{i}"]  # the open prompt, and only it
            view.answer(f"c{i}", {"value": "yes"})
            await task

    asyncio.run(main())
    state = saved()
    assert state["prompts"] == {}
    text = json.dumps(state, default=str)
    # the token counts only: the session's, this turn's and the context window's fill (issue 27)
    assert len(text) - empty < 320, "the synced state grew with the session"
    for secret in ("FILE-BYTES", "env-value-7f3a9c", "scripted-no-key"):
        assert secret not in text
    # every prompt is still shown answered: on its transcript item, which a (re)loaded view gets
    view.custom({"type": "hello", "view_id": "again"})
    items = {i["id"]: i for i in view.of_type("snapshot")[-1]["items"]}
    assert {items[f"c{i}"]["prompt"]["status"] for i in range(1, 41)} == {"answered"}
    assert items["f0"]["prompt"]["answer"] and chat.prompts["c40"]["answer"] == "Yes"


def test_after_a_stop_each_message_gets_its_own_bubble_in_order_and_no_internal_note(make_agent):
    @nt.tool(mode="both")
    def refresh() -> str:
        """Reload the data."""
        return "reloaded"

    chat, _view, agent, script = chat_for(
        make_agent, t.reply("word " * 4000), t.reply("Fine."), t.reply("Done."), tools=[refresh]
    )
    script.text_chunk = 1
    stop_after = []

    def stop_mid_stream(event):
        if event.type == "text_delta":
            stop_after.append(event)
            if len(stop_after) == 5:
                chat.stop()

    unsubscribe = agent.events.subscribe(stop_mid_stream)

    async def main():
        first = await chat.send("first")
        assert first.stop_reason == "stopped" and chat.status == "stopped"
        unsubscribe()
        await chat.run_tool("refresh", {})
        await chat.send("second")
        await chat.send("third")

    asyncio.run(main())
    shown = [(i["kind"], i.get("text", i.get("name"))) for i in chat.transcript.items.values()]
    users = [text for kind, text in shown if kind == "user"]
    assert users == ["first", "second", "third"]  # own bubbles, in order, no "[The user ran ..." note
    assert shown.index(("notice", "Stopped.")) < shown.index(("user", "second"))
    assert shown[-1] == ("assistant", "Done.") and chat.status == "idle"
    # the model still hears of the manual run, before the message typed after it
    second = script.requests[1]["messages"][0]["content"]
    assert second[0]["text"] == "first" and second[1]["text"].startswith("[The user ran the tool `refresh`")
    assert second[2]["text"] == "second"
    # a chat rebuilt from this history shows the same bubbles
    rebuilt = nt.Chat(agent)
    assert [i["text"] for i in rebuilt.transcript.items.values() if i["kind"] == "user"] == users
