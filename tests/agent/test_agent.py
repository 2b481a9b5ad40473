import asyncio

import pytest

import notebook_tools as nt
from notebook_tools import testing as t


def run(coro):
    return asyncio.run(coro)


def last_user(script, request=-1):
    return script.requests[request]["messages"][-1]


def assert_history_valid(messages):
    """Every tool_use is answered exactly once, in the next (user) message, and roles alternate."""
    for i, message in enumerate(messages):
        assert message["role"] == ("user" if i % 2 == 0 else "assistant"), f"roles do not alternate at {i}"
        if message["role"] != "assistant":
            continue
        ids = [b["id"] for b in message["content"] if b["type"] == "tool_use"]
        if not ids:
            continue
        assert i + 1 < len(messages), "a tool_use is the last message"
        answer = messages[i + 1]
        answered = [b["tool_use_id"] for b in answer["content"] if b["type"] == "tool_result"]
        assert answered == ids


def test_text_streams_as_events_and_the_turn_ends(make_agent):
    hello = t.reply("Hello! How can I help with your data today?")
    hello.input_tokens = 25  # a turn's explicit count wins over the scripted API's estimate
    agent, script = make_agent(hello, system="Be brief.")
    recorder = nt.EventRecorder()
    agent.events.subscribe(recorder)
    result = run(agent.run("hi"))
    assert result.stop_reason == "end_turn"
    assert result.text == "Hello! How can I help with your data today?"
    deltas = recorder.of_type("text_delta")
    assert len(deltas) > 3 and "".join(d.text for d in deltas) == result.text
    assert recorder.types()[-1] == "status" and recorder.events[-1].state == "idle"
    assert result.usage.input_tokens == 25 and result.usage.requests == 1
    body = script.requests[0]
    assert body["stream"] is True and body["model"] == "claude-test"
    # prompt caching on the system prompt and (one breakpoint after) the tools
    assert body["system"] == [{"type": "text", "text": "Be brief.", "cache_control": {"type": "ephemeral"}}]
    assert body["tools"][-1]["cache_control"] == {"type": "ephemeral"}
    assert all("cache_control" not in tool for tool in body["tools"][:-1])
    assert [tool["name"] for tool in body["tools"]] == [
        "add",
        "user_confirm",
        "ask_text",
        "select_option",
        "pick_file",
    ]


def test_backend_tools_run_and_parallel_results_share_one_message(make_agent):
    agent, script = make_agent(
        t.turn("Adding.", t.tool_use("add", {"a": 1, "b": 2}), t.tool_use("add", {"a": 5, "b": 5})),
        t.reply("3 and 10."),
    )
    result = run(agent.run("add things"))
    assert result.stop_reason == "end_turn" and result.text == "3 and 10."
    message = last_user(script)
    assert [(b["type"], b["content"]) for b in message["content"]] == [
        ("tool_result", "3"),
        ("tool_result", "10"),
    ]
    assert_history_valid(agent.state.messages)


def test_mixed_turn_pauses_holds_backend_results_and_resume_answers_all_in_one_message(make_agent):
    agent, script = make_agent(
        t.turn(
            "I'll add and ask.",
            t.tool_use("add", {"a": 2, "b": 2}, id="toolu_add"),
            t.tool_use("user_confirm", {"message": "Drop 3 rows?"}, id="toolu_confirm"),
            t.tool_use("ask_text", {"prompt": "New column name?"}, id="toolu_text"),
        ),
        t.reply("Done."),
    )
    recorder = nt.EventRecorder()
    agent.events.subscribe(recorder)
    paused = run(agent.run("clean"))
    assert paused.stop_reason == "awaiting_frontend_tools"
    assert [(p.tool_use_id, p.name) for p in paused.pending_frontend_tools] == [
        ("toolu_confirm", "user_confirm"),
        ("toolu_text", "ask_text"),
    ]
    assert paused.pending_frontend_tools[0].input == {"message": "Drop 3 rows?"}
    assert paused.pending_frontend_tools[0].timeout is None  # no timeout by default
    # the backend tool already ran; its result is held, not sent
    assert [r.tool_use_id for r in agent.state.held_results] == ["toolu_add"]
    assert len(script.requests) == 1
    assert "awaiting_frontend_tools" in recorder.types()
    assert agent.store.load(agent.agent_uuid) == agent.state  # saved at the pause

    done = run(
        agent.resume(
            [
                nt.ToolResult(tool_use_id="toolu_text", content="price_eur"),
                {"tool_use_id": "toolu_confirm", "content": "yes"},
            ]
        )
    )
    assert done.stop_reason == "end_turn" and done.text == "Done."
    message = last_user(script)
    assert message["role"] == "user"
    assert [(b["tool_use_id"], b["content"]) for b in message["content"]] == [
        ("toolu_add", "4"),
        ("toolu_confirm", "yes"),
        ("toolu_text", "price_eur"),
    ]
    assert agent.state.pending_frontend_tools == [] and agent.state.held_results == []
    assert_history_valid(agent.state.messages)


def _paused(make_agent, **kwargs):
    agent, script = make_agent(
        t.turn(
            t.tool_use("add", {"a": 1, "b": 1}, id="toolu_add"),
            t.tool_use("user_confirm", {"message": "Go?"}, id="toolu_a"),
            t.tool_use("ask_text", {"prompt": "Name?"}, id="toolu_b"),
        ),
        t.reply("ok"),
        **kwargs,
    )
    assert run(agent.run("go")).stop_reason == "awaiting_frontend_tools"
    return agent, script


def _refused(agent, script, results, error, match):
    before = agent.state.model_dump_json()
    stored = agent.store.load(agent.agent_uuid).model_dump_json()
    sent = len(script.requests)
    with pytest.raises(error, match=match) as info:
        run(agent.resume(results))
    assert agent.state.model_dump_json() == before
    assert agent.store.load(agent.agent_uuid).model_dump_json() == stored
    assert len(script.requests) == sent
    return info.value


def test_resume_refuses_missing_ids(make_agent):
    agent, script = _paused(make_agent)
    err = _refused(
        agent, script, [nt.ToolResult(tool_use_id="toolu_a", content="yes")], nt.ToolResultIdsError, "toolu_b"
    )
    assert err.missing == ["toolu_b"] and isinstance(err, ValueError)


def test_resume_refuses_unknown_extra_ids(make_agent):
    agent, script = _paused(make_agent)
    results = [
        nt.ToolResult(tool_use_id="toolu_a", content="yes"),
        nt.ToolResult(tool_use_id="toolu_b", content="x"),
        nt.ToolResult(tool_use_id="toolu_zzz", content="x"),
    ]
    err = _refused(agent, script, results, nt.ToolResultIdsError, "unknown ids 'toolu_zzz'")
    assert err.unknown == ["toolu_zzz"]


def test_resume_refuses_answers_for_calls_that_are_not_pending(make_agent):
    agent, script = _paused(make_agent)
    results = [
        nt.ToolResult(tool_use_id="toolu_a", content="yes"),
        nt.ToolResult(tool_use_id="toolu_b", content="x"),
        nt.ToolResult(tool_use_id="toolu_add", content="99"),
    ]
    err = _refused(agent, script, results, nt.ToolResultIdsError, "not pending")
    assert err.not_pending == ["toolu_add"]


def test_resume_refuses_duplicate_ids(make_agent):
    agent, script = _paused(make_agent)
    results = [
        nt.ToolResult(tool_use_id="toolu_a", content="yes"),
        nt.ToolResult(tool_use_id="toolu_a", content="no"),
        nt.ToolResult(tool_use_id="toolu_b", content="x"),
    ]
    err = _refused(agent, script, results, nt.ToolResultIdsError, "duplicate results for ids 'toolu_a'")
    assert err.duplicate == ["toolu_a"]


def test_resume_refuses_content_of_the_wrong_type(make_agent):
    agent, script = _paused(make_agent)
    results = [{"tool_use_id": "toolu_a", "content": 42}, {"tool_use_id": "toolu_b", "content": "x"}]
    _refused(agent, script, results, nt.InvalidToolResultError, "'toolu_a'.*not a valid tool result")
    bad_block = [
        {"tool_use_id": "toolu_a", "content": [{"type": "text"}]},
        {"tool_use_id": "toolu_b", "content": "x"},
    ]
    _refused(agent, script, bad_block, nt.InvalidToolResultError, "toolu_a")
    with pytest.raises(ValueError):
        nt.ToolResult(tool_use_id="toolu_a", content=42)


def test_resume_refuses_content_over_the_limit(make_agent):
    agent, script = _paused(make_agent, max_result_chars=50)
    results = [
        nt.ToolResult(tool_use_id="toolu_a", content="yes"),
        nt.ToolResult(tool_use_id="toolu_b", content="x" * 51),
    ]
    _refused(
        agent, script, results, nt.InvalidToolResultError, "'toolu_b'.*51 characters is over the limit of 50"
    )
    # the default limit is 100,000 characters
    agent, script = _paused(make_agent)
    results = [
        nt.ToolResult(tool_use_id="toolu_a", content="yes"),
        nt.ToolResult(tool_use_id="toolu_b", content="x" * 100_001),
    ]
    _refused(agent, script, results, nt.InvalidToolResultError, "over the limit of 100000")


def test_resume_checks_the_output_schema(make_agent):
    agent, script = _paused(make_agent)
    results = [
        nt.ToolResult(tool_use_id="toolu_a", content="maybe"),
        nt.ToolResult(tool_use_id="toolu_b", content="x"),
    ]
    _refused(agent, script, results, nt.InvalidToolResultError, "'toolu_a'.*'maybe' is not one of")
    # an explicit error result (e.g. skipped) needs no schema match
    done = run(
        agent.resume(
            [
                nt.ToolResult(tool_use_id="toolu_a", content="skipped by the user", is_error=True),
                nt.ToolResult(tool_use_id="toolu_b", content="x"),
            ]
        )
    )
    assert done.stop_reason == "end_turn"
    assert last_user(script)["content"][1] == {
        "type": "tool_result",
        "tool_use_id": "toolu_a",
        "content": "skipped by the user",
        "is_error": True,
    }


def test_resume_with_nothing_pending_is_refused(make_agent):
    agent, _ = make_agent(t.reply("hi"))
    run(agent.run("hi"))
    with pytest.raises(nt.ToolResultIdsError, match="no frontend tool call is pending"):
        run(agent.resume([nt.ToolResult(tool_use_id="x", content="y")]))


def test_run_while_paused_is_refused(make_agent):
    agent, _script = _paused(make_agent)
    before = agent.state.model_dump_json()
    with pytest.raises(nt.AgentBusyError, match="toolu_a, toolu_b"):
        run(agent.run("another message"))
    assert agent.state.model_dump_json() == before


def test_tool_failures_become_error_results_the_model_can_act_on(make_agent):
    @nt.tool
    def explode(x: int) -> str:
        """Always fails."""
        raise RuntimeError(f"disk full at {x}")

    agent, script = make_agent(
        t.turn(
            t.tool_use("nope", {}, id="u1"),
            t.tool_use("add", {"a": "one", "b": 2}, id="u2"),
            t.tool_use("explode", {"x": 7}, id="u3"),
            t.tool_use("user_confirm", {"text": "wrong field"}, id="u4"),
        ),
        t.reply("Sorry."),
        tools=[add_tool(), explode],
    )
    recorder = nt.EventRecorder()
    agent.events.subscribe(recorder)
    result = run(agent.run("go"))
    assert result.stop_reason == "end_turn"  # an invalid frontend call never reaches the person
    blocks = {b["tool_use_id"]: b for b in last_user(script)["content"]}
    assert all(b["is_error"] for b in blocks.values())
    assert "Unknown tool 'nope'. Available tools: add, explode" in blocks["u1"]["content"]
    assert "Invalid input for tool 'add': a: 'one' is not of type 'integer'" in blocks["u2"]["content"]
    assert blocks["u3"]["content"] == "Tool 'explode' failed: RuntimeError: disk full at 7"
    assert "'message' is a required property" in blocks["u4"]["content"]
    assert len(recorder.of_type("tool_error")) == 4


def add_tool():
    from tests.conftest import add

    return add


def test_backend_results_are_serialized_and_truncated(make_agent):
    @nt.tool
    def info() -> dict:
        """Info."""
        return {"rows": 3, "columns": ["a", "b"]}

    @nt.tool
    def big() -> str:
        """Big."""
        return "y" * 500

    @nt.tool
    def nothing() -> None:
        """Nothing."""

    agent, script = make_agent(
        t.turn(t.tool_use("info", id="a"), t.tool_use("big", id="b"), t.tool_use("nothing", id="c")),
        t.reply("ok"),
        tools=[info, big, nothing],
        max_result_chars=100,
    )
    run(agent.run("go"))
    content = [b["content"] for b in last_user(script)["content"]]
    assert content[0] == '{"rows":3,"columns":["a","b"]}'
    assert content[1].startswith("y" * 100) and content[1].endswith(
        "[truncated: showing 100 of 500 characters]"
    )
    assert content[2] == "(the tool returned no value)"


def test_529_then_success_completes(make_agent):
    agent, script = make_agent(t.HTTPFault(529), t.HTTPFault(429), t.reply("made it"))
    result = run(agent.run("hi"))
    assert result.text == "made it"
    assert len(script.requests) == 3
    assert script.requests[0] == script.requests[2]


def test_dropped_stream_leaves_no_partial_message_and_the_retry_completes(make_agent):
    agent, script = make_agent(t.DropStream(after_events=4), t.reply("complete answer"), retry_delay=0.01)
    recorder = nt.EventRecorder()
    agent.events.subscribe(recorder)
    result = run(agent.run("hi"))
    assert result.text == "complete answer"
    assert len(script.requests) == 2 and script.requests[0] == script.requests[1]
    assert [m["role"] for m in agent.state.messages] == ["user", "assistant"]
    assert agent.state.messages[1]["content"] == [{"type": "text", "text": "complete answer"}]
    retrying = [e for e in recorder.of_type("status") if e.state == "retrying"]
    assert len(retrying) == 1 and "cut off" in retrying[0].detail
    # text from the cut-off response is tagged with its own request number, so a UI can drop it
    requests = {d.request for d in recorder.of_type("text_delta")}
    assert len(requests) == 2


def test_exhausted_failures_raise_keep_history_valid_and_retry_finishes(make_agent):
    agent, _script = make_agent(
        t.turn(t.tool_use("add", {"a": 1, "b": 2}, id="u1")),
        t.HTTPFault(500),
        t.HTTPFault(500),
        t.HTTPFault(500),
        t.reply("three"),
    )
    with pytest.raises(Exception, match="scripted fault"):
        run(agent.run("add"))
    messages = agent.state.messages
    assert messages[-1]["role"] == "user" and messages[-1]["content"][0]["tool_use_id"] == "u1"
    assert agent.store.load(agent.agent_uuid) == agent.state
    result = run(agent.retry())
    assert result.text == "three"
    assert_history_valid(agent.state.messages)
    # nothing was duplicated by the retry
    assert sum(1 for m in agent.state.messages if m["role"] == "assistant") == 2


def test_a_new_message_after_a_failed_request_keeps_roles_alternating(make_agent):
    agent, script = make_agent(t.HTTPFault(400, "bad"), t.reply("fine"))
    with pytest.raises(Exception, match="bad"):
        run(agent.run("first"))
    result = run(agent.run("second"))
    assert result.text == "fine"
    assert script.requests[-1]["messages"] == [
        {"role": "user", "content": [{"type": "text", "text": "first"}, {"type": "text", "text": "second"}]}
    ]


def test_max_turns_stops_with_a_valid_history(make_agent):
    loop = [t.turn(t.tool_use("add", {"a": i, "b": 0})) for i in range(5)]
    agent, script = make_agent(*loop, max_turns=3)
    result = run(agent.run("loop"))
    assert result.stop_reason == "max_turns" and len(script.requests) == 3
    assert_history_valid(agent.state.messages)


def test_other_stop_reasons_are_reported(make_agent):
    agent, _ = make_agent(t.reply("I can't help with that.", stop_reason="refusal"))
    assert run(agent.run("x")).stop_reason == "refusal"
    agent, _ = make_agent(t.reply("cut", stop_reason="max_tokens"))
    assert run(agent.run("x")).stop_reason == "max_tokens"


def test_cancelling_a_running_tool_answers_every_call(make_agent):
    started = asyncio.Event()

    @nt.tool
    async def slow() -> str:
        """Slow."""
        started.set()
        await asyncio.sleep(30)
        return "never"

    agent, _ = make_agent(
        t.turn(t.tool_use("slow", id="s1"), t.tool_use("user_confirm", {"message": "x"}, id="s2")),
        tools=[slow],
    )

    async def main():
        task = asyncio.ensure_future(agent.run("go"))
        await started.wait()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    run(main())
    assert_history_valid(agent.state.messages)
    assert [b["content"] for b in agent.state.messages[-1]["content"]] == [
        "Interrupted by the user before this call finished.",
        "Interrupted by the user before answering.",  # the prompt never opened
    ]
    assert agent.store.load(agent.agent_uuid) == agent.state
    assert agent.state.pending_frontend_tools == []


def test_only_one_call_runs_at_a_time(make_agent):
    agent, _ = make_agent(t.reply("one"), t.reply("two"))

    async def main():
        first = asyncio.ensure_future(agent.run("a"))
        await asyncio.sleep(0)
        with pytest.raises(nt.AgentBusyError, match="already running"):
            await agent.run("b")
        return await first

    assert run(main()).text == "one"


def test_resume_by_agent_uuid_loads_from_the_store(make_agent):
    store = nt.InMemoryStore()
    agent, script = _paused(make_agent, store=store)
    uuid = agent.agent_uuid
    fresh = nt.Agent(
        client=script.client(),
        model="claude-test",
        tools=[add_tool()],
        frontend_tools=[nt.user_confirm, nt.ask_text],
        store=store,
    )
    assert fresh.agent_uuid != uuid
    result = run(
        fresh.resume(
            [{"tool_use_id": "toolu_a", "content": "no"}, {"tool_use_id": "toolu_b", "content": "n"}],
            agent_uuid=uuid,
        )
    )
    assert result.stop_reason == "end_turn" and result.agent_uuid == uuid
    with pytest.raises(nt.SessionNotFoundError, match="nope"):
        run(fresh.resume([], agent_uuid="nope"))


def test_duplicate_or_misplaced_tools_are_refused():
    with pytest.raises(nt.ToolDefinitionError, match="two tools"):
        nt.Agent(client=t.ScriptedTransport().client(), tools=[add_tool(), add_tool()])
    with pytest.raises(nt.ToolDefinitionError, match="frontend tool but was given in tools"):
        nt.Agent(client=t.ScriptedTransport().client(), tools=[nt.user_confirm])


def test_manual_tools_are_not_sent_to_the_model(make_agent):
    @nt.tool(mode="manual")
    def reset() -> str:
        """Reset."""
        return "reset"

    agent, script = make_agent(t.turn(t.tool_use("reset", id="r")), t.reply("ok"), tools=[reset])
    run(agent.run("x"))
    assert "reset" not in [tool["name"] for tool in script.requests[0].get("tools", [])]
    assert last_user(script)["content"][0]["is_error"] is True


def test_cancel_pending_answers_every_call_without_a_request(make_agent):
    agent, script = _paused(make_agent)
    sent = len(script.requests)
    results = agent.cancel_pending("Stopped by the user.")
    assert [r.tool_use_id for r in results] == ["toolu_a", "toolu_b"]
    assert len(script.requests) == sent and agent.state.pending_frontend_tools == []
    assert_history_valid([*agent.state.messages, {"role": "assistant", "content": []}])
    assert [b["tool_use_id"] for b in agent.state.messages[-1]["content"]] == [
        "toolu_add",
        "toolu_a",
        "toolu_b",
    ]
    assert agent.store.load(agent.agent_uuid) == agent.state
    assert run(agent.run("next")).text == "ok"


def test_a_tool_knows_its_call_id_and_it_is_the_same_when_the_call_runs_again(make_agent, tmp_path):
    seen = []

    @nt.tool
    def record() -> str:
        """Record the call id (sync: runs in a worker thread)."""
        seen.append(nt.current_tool_use_id())
        return "ok"

    store = nt.SQLiteStore(tmp_path / "s.sqlite")
    agent, _ = make_agent(
        t.turn(t.tool_use("record", id="toolu_rec")), t.reply("done"), tools=[record], store=store
    )
    assert nt.current_tool_use_id() is None
    run(agent.run("go"))
    assert seen == ["toolu_rec"] and nt.current_tool_use_id() is None
    # A crash while it ran: the stored session still has the call queued; it runs again with the same id.
    state = store.load(agent.agent_uuid)
    replay = state.model_copy(
        update={
            "messages": state.messages[:2],
            "queued_calls": [nt.QueuedCall(tool_use_id="toolu_rec", name="record", input={})],
            "revision": 0,
            "agent_uuid": "crashed",
        }
    )
    store.save(replay)
    again, _ = make_agent(t.reply("done again"), tools=[record], store=store)
    again.load("crashed")
    assert again.state.status == "running"
    assert run(again.continue_turn()).text == "done again"
    assert seen == ["toolu_rec", "toolu_rec"]


def test_a_new_scripted_transport_never_reuses_an_id_the_history_holds(make_agent):
    store = nt.InMemoryStore()
    agent, _ = make_agent(t.turn(t.tool_use("user_confirm", {"message": "Go?"})), store=store)
    paused = run(agent.run("go"))
    again, script = make_agent(
        t.turn(t.tool_use("user_confirm", {"message": "Again?"})), t.reply("ok"), store=store
    )
    again.load(paused.agent_uuid)
    second = run(
        again.resume([{"tool_use_id": paused.pending_frontend_tools[0].tool_use_id, "content": "yes"}])
    )
    assert second.pending_frontend_tools[0].tool_use_id != paused.pending_frontend_tools[0].tool_use_id
    assert script.refused == []


def test_prompts_wait_for_the_person_unless_the_tool_sets_a_timeout(make_agent):
    # Was: prompts opened together got 60, 90, 120 s (a 60 s default). Now nothing has a default.
    @nt.tool(executor="frontend", timeout=5)
    def quick_check(prompt: str) -> str:
        """A question with its own timeout."""

    calls = [
        t.tool_use("user_confirm", {"message": "One?"}, id="a"),
        t.tool_use("ask_text", {"prompt": "Two?"}, id="b"),
        t.tool_use("quick_check", {"prompt": "Mine?"}, id="c"),
        t.tool_use("select_option", {"prompt": "Three?", "options": ["x", "y"]}, id="d"),
        t.tool_use("pick_file", {"prompt": "Four?"}, id="e"),
    ]
    agent, _ = make_agent(
        t.turn(*calls),
        frontend_tools=[nt.user_confirm, nt.ask_text, nt.select_option, nt.pick_file, quick_check],
    )
    result = asyncio.run(agent.run("go"))
    timeouts = {p.tool_use_id: p.timeout for p in result.pending_frontend_tools}
    assert timeouts == {"a": None, "b": None, "c": 5.0, "d": None, "e": None}
    assert agent.store.load(agent.agent_uuid) == agent.state  # saved as shown: a restart keeps them


def test_a_stopped_retry_stays_retryable_and_one_stopped_after_its_reply_says_nothing_is_left(make_agent):
    """Stop mid-stream during a retry: the failed turn is still there to retry. Stop once the reply is
    whole: nothing failed, and retry says so with an error that is not "busy"."""
    agent, _script = make_agent(
        t.HTTPFault(500),
        t.HTTPFault(500),
        t.HTTPFault(500),
        t.reply("a long answer " * 20),
        t.reply("three"),
        t.reply("four"),
    )
    with pytest.raises(Exception, match="scripted fault"):
        run(agent.run("add"))
    stop_on = {"text_delta"}

    def stop(event: nt.Event) -> None:
        if event.type in stop_on:
            stop_on.clear()
            agent.interrupt()

    agent.events.subscribe(stop)
    with pytest.raises(asyncio.CancelledError):
        run(agent.retry())
    assert agent.retryable and [m["role"] for m in agent.state.messages] == ["user"]
    stop_on.add("message")  # the reply is whole and recorded when the Stop comes
    run(agent.retry())
    assert [m["role"] for m in agent.state.messages] == ["user", "assistant"]
    assert not agent.retryable
    with pytest.raises(nt.NothingToRetryError, match="nothing to retry: the last turn ended") as caught:
        run(agent.retry())
    assert not isinstance(caught.value, nt.AgentBusyError)
    assert agent.state.status == "idle"
    assert run(agent.run("and again?")).text == "four"
