"""The AG-UI endpoint: streams checked by the independent `ag-ui-validate` conformance validator.

Every stream here must have zero errors and zero warnings. As AG-UI 1.0 has it, a run that stops on
client tools completes and names them (`pendingToolCallIds`), and approvals end it with interrupts;
the next run answers with tool messages or a resume, and partial, unknown and duplicate answers are
refused and change nothing in the store. (Frontend calls may still be resumed as `tool_call:<id>`.)
"""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime
from typing import Any

import httpx
import pytest
from ag_ui_validate.pytest_plugin import assert_valid_agui, validate_agui, validate_agui_endpoint
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import notebook_tools as nt
from notebook_tools import testing as t
from notebook_tools.server import create_app
from tests.support.http_helpers import AUTH, TOKEN, live_server
from tests.support.readiness import wait_until

COLOR_TOOL = {
    "name": "pick_color",
    "description": "Pick a color for the chart.",
    "parameters": {"type": "object", "properties": {"hint": {"type": "string"}}, "required": ["hint"]},
}
FAKE_KEY = "sk-ant-api03-" + "Q" * 40
HOSTILE = "</script><img src=x onerror=alert(1)>"


@nt.tool(needs_approval=True)
def drop_rows(count: int) -> str:
    """Drop rows from the table.

    Args:
        count: How many rows.
    """
    return f"dropped {count} rows"


@nt.tool(executor="frontend", timeout=30)
def choose_file(prompt: str) -> str:
    """Ask the person to choose a file.

    Args:
        prompt: What to ask.
    """
    return ""


class Fixture:
    """An app on a scripted model and a store; `post` answers a RunAgentInput."""

    def __init__(
        self,
        *steps: Any,
        tools: tuple[Any, ...] = (drop_rows,),
        frontend: tuple[Any, ...] = (),
        **options: Any,
    ) -> None:
        self.script = t.ScriptedTransport(*steps)
        self.store = nt.InMemoryStore()
        client = self.script.client()

        def make() -> nt.Agent:
            return nt.Agent(
                client=client,
                model="claude-test",
                tools=list(tools),
                frontend_tools=list(frontend),
                **options,
            )

        self.app = create_app(make, store=self.store, token=TOKEN)
        self.runs = 0

    async def post(
        self, thread: str = "thread-1", *, headers: dict[str, str] | None = None, **fields: Any
    ) -> httpx.Response:
        self.runs += 1
        body = {"threadId": thread, "runId": f"run-{self.runs}", "messages": [], **fields}
        transport = httpx.ASGITransport(app=self.app)
        async with httpx.AsyncClient(transport=transport, base_url="http://agui.test") as client:
            return await client.post("/agui", json=body, headers=AUTH if headers is None else headers)

    def saved(self, thread: str = "thread-1") -> Any:
        state = self.store.load(thread)
        return None if state is None else state.model_dump(mode="json")


def user(text: str, id: str = "u1") -> dict[str, Any]:
    return {"id": id, "role": "user", "content": text}


def events(response: httpx.Response) -> list[dict[str, Any]]:
    """The AG-UI events of an SSE body, checked by the validator (zero errors, zero warnings)."""
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("text/event-stream")
    found = [json.loads(line[6:]) for line in response.text.splitlines() if line.startswith("data: ")]
    assert_valid_agui(found, max_warnings=0)
    report = validate_agui(found)
    assert report.summary.info == 0, report.diagnostics  # not even a hint
    return found


def of(found: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [e for e in found if e["type"] == kind]


def outcome(found: list[dict[str, Any]]) -> dict[str, Any]:
    assert found[-1]["type"] == "RUN_FINISHED"
    return found[-1]["outcome"]


def history_valid(messages: list[dict[str, Any]]) -> None:
    """Roles alternate and every tool_use is answered exactly once in the next message."""
    for i, message in enumerate(messages):
        assert message["role"] == ("user" if i % 2 == 0 else "assistant")
        if message["role"] == "assistant":
            ids = [b["id"] for b in message["content"] if b["type"] == "tool_use"]
            if ids:
                answered = [
                    b["tool_use_id"] for b in messages[i + 1]["content"] if b["type"] == "tool_result"
                ]
                assert answered == ids


def test_a_plain_run_streams_text_and_snapshots_and_passes_the_validator():
    fx = Fixture(t.reply("Hello! The table has 12 rows."))
    found = events(asyncio.run(fx.post(messages=[user("hi")])))
    types = [e["type"] for e in found]
    assert types[0] == "RUN_STARTED" and types[-3:] == ["STATE_SNAPSHOT", "MESSAGES_SNAPSHOT", "RUN_FINISHED"]
    assert "".join(e["delta"] for e in of(found, "TEXT_MESSAGE_CONTENT")) == "Hello! The table has 12 rows."
    assert outcome(found) == {"type": "success"} and found[-1]["result"] == {
        "status": "idle",
        "stopReason": "end_turn",
    }
    [usage] = found[-1]["usage"]
    assert usage["provider"] == "anthropic" and usage["model"] == "claude-test"
    assert usage["totalTokens"] == usage["inputTokens"] + usage["outputTokens"] > 0
    [snap] = of(found, "MESSAGES_SNAPSHOT")
    assert [(m["role"], m["content"]) for m in snap["messages"]] == [
        ("user", "hi"),
        ("assistant", "Hello! The table has 12 rows."),
    ]
    # the streamed message and the snapshot's agree on the id
    assert of(found, "TEXT_MESSAGE_START")[0]["messageId"] == snap["messages"][1]["id"]
    assert fx.saved()["agent_uuid"] == "thread-1"


def test_a_client_tool_ends_the_run_with_an_interrupt_and_the_resume_run_continues():
    asking, answer = (
        t.turn("Let me ask.", t.tool_use("pick_color", {"hint": "warm"}, id="toolu_c1")),
        t.reply("Red"),
    )
    asking.output_tokens, answer.output_tokens = 12, 5  # usage as the API reports it per request
    fx = Fixture(asking, answer)
    first = events(asyncio.run(fx.post(messages=[user("chart?")], tools=[COLOR_TOOL])))
    assert [e["toolCallName"] for e in of(first, "TOOL_CALL_START")] == ["pick_color"]
    assert json.loads(of(first, "TOOL_CALL_ARGS")[0]["delta"]) == {"hint": "warm"}
    assert outcome(first) == {"type": "success", "pendingToolCallIds": ["toolu_c1"]}
    assert first[-1]["result"] == {
        "status": "awaiting_frontend_tools",
        "stopReason": "awaiting_frontend_tools",
    }
    [call] = of(first, "STATE_SNAPSHOT")[0]["snapshot"]["pendingToolCalls"]
    assert call["toolCallId"] == "toolu_c1" and call["toolName"] == "pick_color" and "responseSchema" in call
    assert call["expiresAt"] is None  # a client tool has no timeout unless its metadata gives one
    assert of(first, "STATE_SNAPSHOT")[0]["snapshot"]["interrupts"] == []

    resume = [{"interruptId": "tool_call:toolu_c1", "status": "resolved", "payload": "red"}]
    second = events(asyncio.run(fx.post(tools=[COLOR_TOOL], resume=resume)))
    assert [(e["toolCallId"], e["content"]) for e in of(second, "TOOL_CALL_RESULT")] == [("toolu_c1", "red")]
    assert not of(second, "TOOL_CALL_START")  # the call is not streamed again in the resumed run
    assert outcome(second) == {"type": "success"}
    assert first[-1]["usage"][0]["outputTokens"] == 12
    assert second[-1]["usage"][0]["outputTokens"] == 5  # its own request only
    assert fx.script.refused == [] and len(fx.script.requests) == 2
    sent = fx.script.requests[-1]["messages"]
    history_valid(sent)
    assert sent[-1]["content"] == [{"type": "tool_result", "tool_use_id": "toolu_c1", "content": "red"}]


def test_the_same_resume_again_is_idempotent_and_reports_the_thread_as_it_stands():
    fx = Fixture(t.turn(t.tool_use("pick_color", {"hint": "cool"}, id="toolu_c2")), t.reply("Blue."))
    asyncio.run(fx.post(messages=[user("chart?")], tools=[COLOR_TOOL]))
    resume = [{"interruptId": "tool_call:toolu_c2", "status": "resolved", "payload": {"color": "blue"}}]
    events(asyncio.run(fx.post(tools=[COLOR_TOOL], resume=resume)))
    saved = fx.saved()
    again = events(
        asyncio.run(fx.post(tools=[COLOR_TOOL], resume=resume))
    )  # a retry after a dropped connection
    assert [e["type"] for e in again] == [
        "RUN_STARTED",
        "STATE_SNAPSHOT",
        "MESSAGES_SNAPSHOT",
        "RUN_FINISHED",
    ]
    assert outcome(again) == {"type": "success"} and again[-1]["result"] == {"status": "idle"}
    assert "usage" not in again[-1]
    assert fx.saved() == saved and len(fx.script.requests) == 2  # applied once, no new request
    tool_messages = [m for m in of(again, "MESSAGES_SNAPSHOT")[0]["messages"] if m["role"] == "tool"]
    assert [m["content"] for m in tool_messages] == ['{"color": "blue"}']


@pytest.mark.parametrize(
    ("payload", "status", "approved"),
    [
        ({"approved": True}, "resolved", True),
        ({"approved": False, "reason": "keep them"}, "resolved", False),
        (None, "cancelled", False),
    ],
)
def test_an_approval_is_a_confirmation_interrupt_answered_by_a_resume(payload, status, approved):
    fx = Fixture(t.turn("Dropping.", t.tool_use("drop_rows", {"count": 3}, id="toolu_d1")), t.reply("Done."))
    first = events(asyncio.run(fx.post(messages=[user("clean up")])))
    [interrupt] = outcome(first)["interrupts"]
    assert interrupt["id"] == "confirmation:toolu_d1" and interrupt["reason"] == "confirmation"
    assert interrupt["toolCallId"] == "toolu_d1"
    assert interrupt["responseSchema"]["properties"]["approved"] == {"type": "boolean"}
    entry: dict[str, Any] = {"interruptId": "confirmation:toolu_d1", "status": status}
    if payload is not None:
        entry["payload"] = payload
    second = events(asyncio.run(fx.post(resume=[entry])))
    [result] = of(second, "TOOL_CALL_RESULT")
    assert result["toolCallId"] == "toolu_d1"
    assert ("dropped 3 rows" in result["content"]) is approved
    if status == "cancelled":
        assert "cancelled by the user" in result["content"]
    if payload and payload.get("reason"):
        assert "keep them" in result["content"]
    assert outcome(second) == {"type": "success"} and fx.script.refused == []
    history_valid(fx.script.requests[-1]["messages"])


def test_a_server_frontend_tool_with_a_timeout_gives_expires_at_and_an_expired_answer_is_refused():
    fx = Fixture(
        t.turn(t.tool_use("choose_file", {"prompt": "Which?"}, id="toolu_f1")),
        t.reply("Ok."),
        frontend=(choose_file,),
    )
    found = events(asyncio.run(fx.post(messages=[user("load a file")])))
    [interrupt] = of(found, "STATE_SNAPSHOT")[0]["snapshot"]["pendingToolCalls"]
    assert outcome(found)["pendingToolCallIds"] == ["toolu_f1"]
    pending = fx.store.load("thread-1").pending_frontend_tools[0]
    expires = datetime.fromisoformat(interrupt["expiresAt"].replace("Z", "+00:00"))
    assert interrupt["expiresAt"].endswith("Z") and expires.tzinfo == UTC
    assert abs(expires.timestamp() - (pending.requested_at + 30)) < 0.002
    # the call's time passes: a resolved answer is refused (410), a cancelled one is taken
    state = fx.store.load("thread-1")
    state.pending_frontend_tools[0].requested_at -= 31
    fx.store.save(state)
    saved = fx.saved()
    late = asyncio.run(
        fx.post(resume=[{"interruptId": "tool_call:toolu_f1", "status": "resolved", "payload": "a.csv"}])
    )
    assert (
        late.status_code == 410 and late.json()["expired"] == ["tool_call:toolu_f1"] and fx.saved() == saved
    )
    done = events(asyncio.run(fx.post(resume=[{"interruptId": "tool_call:toolu_f1", "status": "cancelled"}])))
    assert "cancelled by the user" in of(done, "TOOL_CALL_RESULT")[0]["content"]


def test_a_client_tool_timeout_in_metadata_gives_expires_at():
    fx = Fixture(t.turn(t.tool_use("pick_color", {"hint": "x"}, id="toolu_c3")))
    tool = {**COLOR_TOOL, "metadata": {"timeout": 120}}
    found = events(asyncio.run(fx.post(messages=[user("go")], tools=[tool])))
    [interrupt] = of(found, "STATE_SNAPSHOT")[0]["snapshot"]["pendingToolCalls"]
    pending = fx.store.load("thread-1").pending_frontend_tools[0]
    expires = datetime.fromisoformat(interrupt["expiresAt"].replace("Z", "+00:00")).timestamp()
    assert pending.timeout == 120 and abs(expires - (pending.requested_at + 120)) < 0.002


def two_calls() -> Fixture:
    fx = Fixture(
        t.turn(
            t.tool_use("pick_color", {"hint": "a"}, id="toolu_a"),
            t.tool_use("pick_color", {"hint": "b"}, id="toolu_b"),
        ),
        t.reply("Both in."),
    )
    found = events(asyncio.run(fx.post(messages=[user("two")], tools=[COLOR_TOOL])))
    assert outcome(found)["pendingToolCallIds"] == ["toolu_a", "toolu_b"]
    return fx


def entry(interrupt_id: str, payload: Any = "ok") -> dict[str, Any]:
    return {"interruptId": interrupt_id, "status": "resolved", "payload": payload}


@pytest.mark.parametrize(
    ("resume", "named"),
    [
        ([entry("tool_call:toolu_a")], {"missing": ["tool_call:toolu_b"]}),
        (
            [entry("tool_call:toolu_a"), entry("tool_call:toolu_b"), entry("tool_call:toolu_zz")],
            {"unknown": ["tool_call:toolu_zz"]},
        ),
        (
            [entry("tool_call:toolu_a"), entry("tool_call:toolu_a"), entry("tool_call:toolu_b")],
            {"duplicate": ["tool_call:toolu_a"]},
        ),
        ([entry("nonsense")], {"unknown": ["nonsense"]}),
    ],
    ids=["partial", "unknown", "duplicate", "malformed"],
)
def test_partial_unknown_and_duplicate_resumes_are_refused_and_change_nothing(resume, named):
    fx = two_calls()
    saved = fx.saved()
    refused = asyncio.run(fx.post(tools=[COLOR_TOOL], resume=resume))
    assert refused.status_code == 422
    for key, ids in named.items():
        assert refused.json()[key] == ids
    assert fx.saved() == saved and len(fx.script.requests) == 1
    # the thread still takes the right resume
    both = [entry("tool_call:toolu_a", "red"), entry("tool_call:toolu_b", "blue")]
    assert outcome(events(asyncio.run(fx.post(tools=[COLOR_TOOL], resume=both)))) == {"type": "success"}


def test_a_resume_needs_the_client_tools_and_a_new_message_closes_the_calls_left_unanswered():
    fx = two_calls()
    saved = fx.saved()
    no_tools = asyncio.run(fx.post(resume=[entry("tool_call:toolu_a"), entry("tool_call:toolu_b")]))
    assert no_tools.status_code == 422 and no_tools.json()["tools"] == ["pick_color"]
    nobody = asyncio.run(fx.post("thread-unknown", resume=[entry("tool_call:toolu_a")]))
    assert nobody.status_code == 404
    assert fx.saved() == saved
    # the application chose not to answer (AG-UI 1.0 leaves that to it): the person's next message runs
    found = events(
        asyncio.run(fx.post(tools=[COLOR_TOOL], messages=[user("two"), user("something else", "u2")]))
    )
    assert outcome(found) == {"type": "success"}
    sent = fx.script.requests[-1]["messages"]
    history_valid(sent)
    closing = sent[-1]["content"]
    assert [(b["tool_use_id"], b.get("is_error")) for b in closing[:2]] == [
        ("toolu_a", True),
        ("toolu_b", True),
    ]
    assert "Not answered" in closing[0]["content"] and closing[2] == {
        "type": "text",
        "text": "something else",
    }
    ids = [m["id"] for m in of(found, "MESSAGES_SNAPSHOT")[-1]["messages"]]
    assert ids == ["u1", "msg_1", "result_toolu_a", "result_toolu_b", "u2", "msg_3"]  # the client's ids kept


def test_classic_tool_messages_answer_the_open_calls():
    fx = two_calls()
    tool_messages = [
        {"id": "t1", "role": "tool", "toolCallId": "toolu_a", "content": "red"},
        {"id": "t2", "role": "tool", "toolCallId": "toolu_b", "content": "", "error": "no color"},
    ]
    found = events(asyncio.run(fx.post(tools=[COLOR_TOOL], messages=[user("two"), *tool_messages])))
    assert of(found, "TOOL_CALL_RESULT") == []  # the client holds its answers: not streamed back
    snapped = of(found, "MESSAGES_SNAPSHOT")
    # This client sent no copy of the reply before its answers: a snapshot up to the reply comes first,
    # so a client that merges by id (appending what it lacks) does not put the reply after its answers.
    assert [m["id"] for m in snapped[0]["messages"]] == ["u1", "msg_1"]
    assert [m["id"] for m in snapped[1]["messages"]] == [
        "u1",
        "msg_1",
        "t1",
        "t2",
    ]  # as the client holds them
    assert [m["id"] for m in snapped[-1]["messages"]] == ["u1", "msg_1", "t1", "t2", "msg_3"]
    assert snapped[-1]["messages"][3]["error"] == "no color"
    sent = fx.script.requests[-1]["messages"][-1]["content"]
    assert sent[1] == {
        "type": "tool_result",
        "tool_use_id": "toolu_b",
        "content": "no color",
        "is_error": True,
    }
    partial = asyncio.run(fx.post(tools=[COLOR_TOOL], messages=[tool_messages[0]]))
    assert partial.status_code == 200  # both were answered already: a repeat changes nothing
    assert len(fx.script.requests) == 2


@pytest.mark.parametrize(
    ("change", "status"),
    [
        ({"threadId": None}, 422),
        ({"threadId": "bad\x00id"}, 422),
        ({"threadId": "x" * 201}, 422),
        ({"messages": "hi"}, 422),
        ({"messages": [{"id": "m", "role": "assistant", "content": "hi"}]}, 422),
        (
            {
                "messages": [
                    {
                        "id": "m",
                        "role": "user",
                        "content": [{"type": "image", "source": {"type": "url", "value": "http://x"}}],
                    }
                ]
            },
            422,
        ),
        ({"tools": [{**COLOR_TOOL, "name": "bad name!"}]}, 422),
        ({"tools": [{**COLOR_TOOL, "parameters": {"type": "string"}}]}, 422),
        ({"tools": [{**COLOR_TOOL, "parameters": {"type": "object", "properties": 5}}]}, 422),
        ({"tools": [COLOR_TOOL, COLOR_TOOL]}, 422),
        ({"tools": [{**COLOR_TOOL, "name": "drop_rows"}]}, 409),
    ],
)
def test_bad_input_is_refused_before_anything_runs(change, status):
    fx = Fixture(t.reply("never"))
    response = asyncio.run(fx.post(**{"messages": [user("hi")], **change}))
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("application/json")
    assert fx.script.requests == [] and fx.store.load("thread-1") is None


def test_the_token_is_required_and_hostile_text_is_not_echoed():
    fx = Fixture(t.reply("never"))
    assert asyncio.run(fx.post(headers={}, messages=[user("hi")])).status_code == 401
    hostile = asyncio.run(fx.post(HOSTILE, messages=[user("hi")]))
    assert hostile.status_code in (200, 422)
    bad = asyncio.run(fx.post("bad\nid" + HOSTILE, messages=[user("hi")]))
    assert bad.status_code == 422 and HOSTILE not in bad.text and "onerror" not in bad.text


def test_a_failed_run_ends_with_run_error_and_the_key_is_redacted():
    fx = Fixture(t.HTTPFault(400, message=f"invalid x-api-key {FAKE_KEY} {HOSTILE}"))
    found = events(asyncio.run(fx.post(messages=[user("hi")])))
    [error] = of(found, "RUN_ERROR")
    assert found[-1] is error and FAKE_KEY not in error["message"] and "[redacted]" in error["message"]
    assert FAKE_KEY not in json.dumps(found)


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    keep=st.lists(st.booleans(), min_size=2, max_size=2),
    extra=st.lists(st.sampled_from(["tool_call:toolu_x", "confirmation:toolu_a", "tool_call:"]), max_size=2),
    twice=st.booleans(),
)
def test_random_resumes_are_refused_or_applied_exactly_once(keep, extra, twice):
    fx = two_calls()
    saved = fx.saved()
    resume = [entry(i) for i, k in zip(["tool_call:toolu_a", "tool_call:toolu_b"], keep, strict=True) if k]
    resume += [entry(i) for i in extra]
    exact = all(keep) and not extra
    for _ in range(2 if twice else 1):
        response = asyncio.run(fx.post(tools=[COLOR_TOOL], resume=resume))
        if exact:
            events(response)
        else:
            assert 400 <= response.status_code < 500 and fx.saved() == saved
    answered = [m for m in fx.saved()["messages"] if any(b["type"] == "tool_result" for b in m["content"])]
    assert len(answered) == (1 if exact else 0)  # one tool-results message, never two
    assert len(fx.script.requests) == (2 if exact else 1)


def test_the_endpoint_under_uvicorn_passes_the_live_validator_through_an_interrupt_and_its_resume():
    script = t.ScriptedTransport(
        t.turn("Dropping.", t.tool_use("drop_rows", {"count": 1}, id="toolu_l0")),
        t.turn("Asking.", t.tool_use("pick_color", {"hint": "z"}, id="toolu_l1")),
        t.reply("Thanks."),
    )
    client = script.client()
    app = create_app(lambda: nt.Agent(client=client, model="claude-test", tools=[drop_rows]), token=TOKEN)

    def clean(run_input: dict[str, Any]) -> Any:
        report = asyncio.run(
            validate_agui_endpoint(base + "/agui", headers=AUTH, input=run_input, timeout_ms=10_000)
        )
        assert (report.summary.errors, report.summary.warnings, report.summary.info) == (0, 0, 0), (
            report.diagnostics
        )
        return report

    with live_server(app) as base:
        first_input = {"threadId": "live-1", "runId": "r1", "messages": [user("go")], "tools": [COLOR_TOOL]}
        assert clean(first_input).features["human-in-the-loop"] == "exercised"  # the approval's interrupt
        resume = [
            {"interruptId": "confirmation:toolu_l0", "status": "resolved", "payload": {"approved": True}}
        ]
        clean({**first_input, "runId": "r2", "resume": resume})  # runs on to the client tool
        answer = {"id": "t1", "role": "tool", "toolCallId": "toolu_l1", "content": "green"}
        clean({**first_input, "runId": "r3", "messages": [user("go"), answer]})
    assert script.refused == [] and len(script.requests) == 3


def test_two_concurrent_resumes_of_one_pause_apply_once_and_the_loser_gets_409():
    fx = two_calls()
    both = [entry("tool_call:toolu_a", "red"), entry("tool_call:toolu_b", "blue")]

    async def race() -> list[httpx.Response]:
        return list(await asyncio.gather(*(fx.post(tools=[COLOR_TOOL], resume=both) for _ in range(2))))

    statuses = sorted(r.status_code for r in asyncio.run(race()))
    assert statuses in ([200, 200], [200, 409])  # 200 twice only when the second came after the first ended
    answered = [m for m in fx.saved()["messages"] if any(b["type"] == "tool_result" for b in m["content"])]
    assert len(answered) == 1 and len(fx.script.requests) == 2
    assert statuses == [200, 409], "the two resumes did not overlap"


def test_an_approval_and_a_frontend_call_in_one_reply_interrupt_one_after_the_other():
    fx = Fixture(
        t.turn(
            t.tool_use("drop_rows", {"count": 2}, id="toolu_m1"),
            t.tool_use("pick_color", {"hint": "m"}, id="toolu_m2"),
        ),
        t.reply("All done."),
    )
    first = events(asyncio.run(fx.post(messages=[user("both")], tools=[COLOR_TOOL])))
    assert [i["id"] for i in outcome(first)["interrupts"]] == ["confirmation:toolu_m1"]
    second = events(
        asyncio.run(fx.post(tools=[COLOR_TOOL], resume=[entry("confirmation:toolu_m1", {"approved": True})]))
    )
    assert [e["toolCallId"] for e in of(second, "TOOL_CALL_RESULT")] == ["toolu_m1"]
    assert outcome(second) == {"type": "success", "pendingToolCallIds": ["toolu_m2"]}
    # the approval's resume again: it was applied, so it changes nothing and reports the open call
    again = events(
        asyncio.run(fx.post(tools=[COLOR_TOOL], resume=[entry("confirmation:toolu_m1", {"approved": True})]))
    )
    assert outcome(again) == {"type": "success", "pendingToolCallIds": ["toolu_m2"]}
    third = events(asyncio.run(fx.post(tools=[COLOR_TOOL], resume=[entry("tool_call:toolu_m2", "teal")])))
    assert outcome(third) == {"type": "success"} and fx.script.refused == []
    history_valid(fx.script.requests[-1]["messages"])


def test_a_long_tool_call_keeps_the_stream_alive_with_comments(monkeypatch):
    from notebook_tools.server import _agui_stream

    @nt.tool
    async def slow_count() -> str:
        """Count slowly."""
        await asyncio.sleep(0.3)
        return "42"

    monkeypatch.setattr(_agui_stream, "KEEPALIVE", 0.05)
    fx = Fixture(
        t.turn(t.tool_use("slow_count", {}, id="toolu_s1")), t.reply("42 it is."), tools=(slow_count,)
    )
    response = asyncio.run(fx.post(messages=[user("count")]))
    assert ": keepalive" in response.text
    found = events(response)
    assert of(found, "TOOL_CALL_RESULT")[0]["content"] == "42"


def test_a_frontend_tool_with_an_output_schema_gives_it_as_the_response_schema_and_checks_the_payload():
    fx = Fixture(
        t.turn(t.tool_use("user_confirm", {"message": "Drop 3 rows?"}, id="toolu_u1")),
        t.reply("Dropped."),
        frontend=(nt.user_confirm,),
    )
    found = events(asyncio.run(fx.post(messages=[user("tidy")])))
    [interrupt] = of(found, "STATE_SNAPSHOT")[0]["snapshot"]["pendingToolCalls"]
    assert interrupt["responseSchema"] == {"type": "string", "enum": ["yes", "no"]}
    saved = fx.saved()
    wrong = asyncio.run(fx.post(resume=[entry("tool_call:toolu_u1", "maybe")]))
    assert wrong.status_code == 422 and fx.saved() == saved
    right = events(asyncio.run(fx.post(resume=[entry("tool_call:toolu_u1", "yes")])))
    assert of(right, "TOOL_CALL_RESULT")[0]["content"] == "yes"


def test_a_client_that_goes_away_stops_the_run_and_the_thread_takes_its_next_message():
    @nt.tool
    async def very_slow() -> str:
        """Take a long time."""
        await asyncio.sleep(30)
        return "never"

    script = t.ScriptedTransport(t.turn(t.tool_use("very_slow", {}, id="toolu_v1")), t.reply("Back again."))
    client = script.client()
    store = nt.InMemoryStore()
    app = create_app(
        lambda: nt.Agent(client=client, model="claude-test", tools=[very_slow]), store=store, token=TOKEN
    )
    body = {"threadId": "gone-1", "runId": "r1", "messages": [user("slow")]}

    async def leave_early(base: str) -> list[str]:
        seen = []
        async with (
            httpx.AsyncClient(base_url=base, headers=AUTH, timeout=10) as c,
            c.stream("POST", "/agui", json=body) as r,
        ):
            async for line in r.aiter_lines():
                seen.append(line)
                if "TOOL_CALL_END" in line:
                    break  # leave while the tool runs
        return seen

    def stopped() -> Any:
        def ended() -> Any:
            state = store.load("gone-1")
            return state if state is not None and len(state.messages) == 3 else None

        return wait_until(ended, "the run to be stopped", poll=0.02)

    with live_server(app) as base:
        assert "TOOL_CALL_END" in asyncio.run(leave_early(base))[-1]
        state = stopped()
        assert state.status == "idle"
        [result] = state.messages[-1]["content"]
        assert result["tool_use_id"] == "toolu_v1" and result.get("is_error") is True
        again = httpx.post(
            base + "/agui", json={**body, "runId": "r2", "messages": [user("again")]}, headers=AUTH
        )
        assert outcome(events(again)) == {"type": "success"}
    assert script.refused == []


def test_a_dropped_model_stream_that_is_retried_still_gives_a_valid_stream():
    fx = Fixture(
        t.DropStream(t.reply("This answer will be cut off."), after_events=5),
        t.reply("Whole answer."),
        retry_delay=0.01,
    )
    found = events(asyncio.run(fx.post(messages=[user("hi")])))
    starts = [e["messageId"] for e in of(found, "TEXT_MESSAGE_START")]
    assert len(starts) == 2 and len(set(starts)) == 2  # the cut-off text and the retried one are two messages
    [snap] = of(found, "MESSAGES_SNAPSHOT")
    assert snap["messages"][-1]["content"] == "Whole answer." and snap["messages"][-1]["id"] in starts
