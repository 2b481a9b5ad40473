"""The server under uvicorn driven by the official AG-UI TypeScript client (@ag-ui/client 1.0.0).

tests/support/agui_client.converse runs tests/http/node/converse.mjs: an `HttpAgent` that says
things, answers client tool calls and interrupts, and reports what the client saw (its messages,
each run's outcome and event types). The client merges a MESSAGES_SNAPSHOT into its messages by
id, appending the ids it did not have; the order it ends with is not asserted here yet.
"""

from __future__ import annotations

import json
from typing import Any

import notebook_tools as nt
from notebook_tools import testing as t
from notebook_tools.server import create_app
from tests.support.agui_client import client_transcript, converse
from tests.support.http_helpers import TOKEN, live_server

PICK = {
    "name": "pick",
    "description": "Pick one.",
    "parameters": {"type": "object", "properties": {"hint": {"type": "string"}}},
}


def _app(*steps: t.Step) -> Any:
    client = t.ScriptedTransport(*steps).client(max_retries=0)
    return create_app(lambda: nt.Agent(client=client, model="claude-test"), token=TOKEN)


def _in_order(wanted: list[str], events: list[str]) -> bool:
    """Whether `wanted` occur in `events` in this order (other events may come between)."""
    rest = iter(events)
    return (
        events[:1] == ["RUN_STARTED"] and events[-1:] == ["RUN_FINISHED"] and all(w in rest for w in wanted)
    )


def _unordered(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The transcript without ids, sorted: what was said, whatever the order."""
    said = [{k: v for k, v in m.items() if k != "id"} for m in client_transcript(messages)]
    return sorted(said, key=lambda m: json.dumps(m, sort_keys=True))


def test_the_official_client_holds_a_two_turn_conversation_with_a_client_tool() -> None:
    app = _app(
        t.reply("Hello! The table has 12 rows."),
        t.turn("Let me ask.", t.tool_use("pick", {"hint": "warm"}, id="toolu_p1")),
        t.reply("You picked red."),
    )
    steps: list[dict[str, Any]] = [{"say": "hi"}, {"say": "pick a colour"}, {"answer": {"pick": "red"}}]
    with live_server(app) as base:
        seen = converse(base + "/agui", TOKEN, "t1", steps, tools=[PICK])

    first, asked, answered = seen["runs"]
    for run in seen["runs"]:
        assert run["error"] is None and run["warnings"] == [], run  # nothing refused or stripped
        assert run["sent"]["protocolVersion"] == "1.0"
        assert run["outcome"] in ("success", "interrupt"), run
    text = ["TEXT_MESSAGE_START", "TEXT_MESSAGE_CONTENT", "TEXT_MESSAGE_END"]
    call = ["TOOL_CALL_START", "TOOL_CALL_ARGS", "TOOL_CALL_END"]
    assert first["outcome"] == "success"
    assert first["result"] == {"status": "idle", "stopReason": "end_turn"}
    assert _in_order([*text, "MESSAGES_SNAPSHOT"], first["events"]), first["events"]
    assert _in_order([*text, *call, "MESSAGES_SNAPSHOT"], asked["events"]), asked["events"]

    # The client tool's call is left for the client in either of AG-UI 1.0's forms, and converse
    # answers it the way the client requires: a "tool_call" interrupt (the committed server) with
    # a resume entry, or pendingToolCallIds (AG-UI 1.0's own form) with a tool message.
    if asked["outcome"] == "interrupt":
        assert asked["pendingToolCallIds"] == []
        assert [i["id"] for i in asked["interrupts"]] == ["tool_call:toolu_p1"]
        assert asked["pendingInterruptIds"] == ["tool_call:toolu_p1"]
        assert answered["answeredVia"] == {"toolu_p1": "resume"}
        assert answered["sent"]["resume"] == [
            {"interruptId": "tool_call:toolu_p1", "status": "resolved", "payload": "red"}
        ]
        assert _in_order(["TOOL_CALL_RESULT", *text], answered["events"]), answered["events"]
    else:
        assert asked["pendingToolCallIds"] == ["toolu_p1"] and asked["interrupts"] == []
        assert asked["pendingInterruptIds"] == []
        assert answered["answeredVia"] == {"toolu_p1": "message"}
        assert "resume" not in answered["sent"]
    assert answered["outcome"] == "success" and answered["pendingInterruptIds"] == []
    assert answered["result"] == {"status": "idle", "stopReason": "end_turn"}
    assert _in_order([*text, "MESSAGES_SNAPSHOT"], answered["events"]), answered["events"]

    # Everything said is in the client's messages once (their order is not asserted yet).
    assert _unordered(seen["messages"]) == _unordered(
        [
            {"role": "user", "content": "hi"},
            {"role": "assistant", "content": "Hello! The table has 12 rows."},
            {"role": "user", "content": "pick a colour"},
            {
                "role": "assistant",
                "content": "Let me ask.",
                "toolCalls": [
                    {"id": "toolu_p1", "function": {"name": "pick", "arguments": '{"hint": "warm"}'}}
                ],
            },
            {"role": "tool", "content": "red", "toolCallId": "toolu_p1"},
            {"role": "assistant", "content": "You picked red."},
        ]
    )
    assert seen["threads"]["t1"]["pendingInterrupts"] == []
