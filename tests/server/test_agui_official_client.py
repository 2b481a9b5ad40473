"""The server under uvicorn driven by the official AG-UI TypeScript client (@ag-ui/client 1.0.0).

tests/support/agui_client.converse runs tests/server/node/converse.mjs: an `HttpAgent` that says
things, answers client tool calls and interrupts, and reports what the client saw (its messages,
each run's outcome and event types). The client merges a MESSAGES_SNAPSHOT into its messages by
id: it keeps its own order, drops what the snapshot does not name and appends what it did not have.
So every test here asserts the transcript the CLIENT built is the session's history, ids and order.
"""

from __future__ import annotations

from typing import Any

import notebook_tools as nt
from notebook_tools import testing as t
from notebook_tools.server import create_app
from notebook_tools.server._agui_messages import messages_of
from tests.support.agui_client import client_transcript, converse
from tests.support.http_helpers import TOKEN, live_server
from tests.support.server_agents import drop_rows, slow_count

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
        assert run["outcome"] == "success", run
    text = ["TEXT_MESSAGE_START", "TEXT_MESSAGE_CONTENT", "TEXT_MESSAGE_END"]
    call = ["TOOL_CALL_START", "TOOL_CALL_ARGS", "TOOL_CALL_END"]
    assert first["outcome"] == "success"
    assert first["result"] == {"status": "idle", "stopReason": "end_turn"}
    assert _in_order([*text, "MESSAGES_SNAPSHOT"], first["events"]), first["events"]
    assert _in_order([*text, *call, "MESSAGES_SNAPSHOT"], asked["events"]), asked["events"]

    # AG-UI 1.0: the run completes naming the call left to the client, which answers with a tool message
    assert asked["pendingToolCallIds"] == ["toolu_p1"] and asked["interrupts"] == []
    assert asked["pendingInterruptIds"] == []
    assert answered["answeredVia"] == {"toolu_p1": "message"}
    assert "resume" not in answered["sent"]
    assert answered["outcome"] == "success" and answered["pendingInterruptIds"] == []
    assert answered["result"] == {"status": "idle", "stopReason": "end_turn"}
    assert _in_order([*text, "MESSAGES_SNAPSHOT"], answered["events"]), answered["events"]

    # Everything said is in the client's messages once, in the order it was said.
    assert [(m["role"], m["content"]) for m in client_transcript(seen["messages"])] == [
        ("user", "hi"),
        ("assistant", "Hello! The table has 12 rows."),
        ("user", "pick a colour"),
        ("assistant", "Let me ask."),
        ("tool", "red"),
        ("assistant", "You picked red."),
    ]
    assert seen["threads"]["t1"]["pendingInterrupts"] == []


# -- conversations whose transcript, as the client builds it, is the session's history ------------

COUNT = "count_rows"


@nt.tool
def count_rows(table: str) -> str:
    """Count a table's rows.

    Args:
        table: The table.
    """
    return f"{table} has 12 rows"


class Served:
    """A live server on a scripted model and an in-memory store the test reads."""

    def __init__(self, *steps: t.Step, event_delay: float = 0.0, **agent: Any) -> None:
        self.store = nt.InMemoryStore()
        client = t.ScriptedTransport(*steps, event_delay=event_delay).client(max_retries=0)
        self.app = create_app(
            lambda: nt.Agent(client=client, model="claude-test", **agent), store=self.store, token=TOKEN
        )

    def history(self, thread: str) -> list[dict[str, Any]]:
        """The session's history as AG-UI messages (what the client must end with), comparable."""
        state = self.store.load(thread)
        assert state is not None
        dumped = [m.model_dump(mode="json", by_alias=True, exclude_none=True) for m in messages_of(state)]
        return client_transcript(dumped)


def _talk(served: Served, steps: list[dict[str, Any]], thread: str = "t1") -> dict[str, Any]:
    with live_server(served.app) as base:
        seen = converse(base + "/agui", TOKEN, thread, steps, tools=[PICK])
    for run in seen["runs"]:
        assert run["warnings"] == [], run  # the client stripped or refused nothing
    return seen


def _same_transcript(seen: dict[str, Any], served: Served, thread: str = "t1") -> list[dict[str, Any]]:
    transcript = client_transcript(seen["messages"])
    assert transcript == served.history(thread)  # the same messages, ids and order
    return transcript


def test_client_tools_answered_both_ways_and_a_backend_call_beside_one_keep_the_client_in_order() -> None:
    served = Served(
        t.reply("Hello."),
        t.turn(
            t.thinking("Count first, then ask for a colour."),
            "Counting, and asking.",
            t.tool_use(COUNT, {"table": "sales"}, id="toolu_b1"),
            t.tool_use("pick", {"hint": "warm"}, id="toolu_f1"),
        ),
        t.turn("Once more.", t.tool_use("pick", {"hint": "cool"}, id="toolu_f2")),
        t.reply("Noted: red, and no second colour."),
        tools=[count_rows],
        thinking={"type": "enabled", "budget_tokens": 2000},
        max_tokens=4000,
    )
    steps = [
        {"say": "hi"},
        {"say": "chart the sales"},
        {"answer": {"pick": "red"}},
        {"fail": "the person closed the picker"},
    ]
    seen = _talk(served, steps)
    _hi, asked, answered, _failed = seen["runs"]
    assert [r["outcome"] for r in seen["runs"]] == ["success"] * 4
    assert asked["pendingToolCallIds"] == ["toolu_f1"] and answered["pendingToolCallIds"] == ["toolu_f2"]
    assert "REASONING_MESSAGE_CONTENT" in asked["events"] and "TOOL_CALL_RESULT" in asked["events"]
    transcript = _same_transcript(seen, served)
    assert [(m["role"], m["id"]) for m in transcript] == [
        ("user", "user-1"),
        ("assistant", "msg_1"),
        ("user", "user-2"),
        ("reasoning", "msg_3_reasoning_0"),
        ("assistant", "msg_3"),
        ("tool", "result_toolu_b1"),  # streamed while the person was asked: before the answer
        ("tool", "tool-1"),  # the client's own answer, under its own id
        ("assistant", "msg_5"),
        ("tool", "tool-2"),
        ("assistant", "msg_7"),
    ]
    assert transcript[5]["content"] == "sales has 12 rows" and transcript[6]["content"] == "red"
    assert transcript[8]["error"] == "the person closed the picker"


def test_approvals_granted_and_denied_through_the_clients_own_resume() -> None:
    served = Served(
        t.turn("Dropping.", t.tool_use("drop_rows", {"table": "sales", "count": 3}, id="toolu_d1")),
        t.turn("And the rest.", t.tool_use("drop_rows", {"table": "sales", "count": 9}, id="toolu_d2")),
        t.reply("Kept the rest."),
        tools=[drop_rows],
    )
    steps = [{"say": "tidy up"}, {"approve": True}, {"approve": False, "reason": "keep those"}]
    seen = _talk(served, steps)
    asked, approved, denied = seen["runs"]
    assert asked["outcome"] == "interrupt" and [i["id"] for i in asked["interrupts"]] == [
        "confirmation:toolu_d1"
    ]
    assert approved["sent"]["resume"][0]["interruptId"] == "confirmation:toolu_d1"
    assert approved["outcome"] == "interrupt" and denied["outcome"] == "success"
    transcript = _same_transcript(seen, served)
    tools = [m for m in transcript if m["role"] == "tool"]
    assert tools[0]["content"] == "dropped 3 rows from sales" and "keep those" in tools[1]["content"]
    assert seen["threads"]["t1"]["pendingInterrupts"] == []


def test_a_stop_mid_reply_then_the_next_message_keep_the_client_in_order() -> None:
    essay = "A long answer. " * 200
    served = Served(t.reply(essay), t.reply("Short, then."), event_delay=0.02)
    steps = [{"say": "write an essay", "abort_on": "TEXT_MESSAGE_CONTENT"}, {"say": "shorter please"}]
    seen = _talk(served, steps)
    stopped, again = seen["runs"]
    assert stopped["aborted"] and again["outcome"] == "success"
    transcript = _same_transcript(seen, served)  # the part of the stopped reply is gone, not misplaced
    assert [(m["role"], m["content"]) for m in transcript] == [
        ("user", "write an essay\nshorter please"),
        ("assistant", "Short, then."),
    ]
    assert transcript[0]["id"] == "user-2"


def test_a_thread_reloaded_from_scratch_gets_its_conversation_and_goes_on_in_order() -> None:
    served = Served(
        t.turn("Asking.", t.tool_use("pick", {"hint": "any"}, id="toolu_r1")),
        t.reply("Red it is."),
        t.reply("Still red."),
    )
    steps = [
        {"say": "pick one"},
        {"answer": {"pick": "red"}},
        {"reload": True},  # a new page: a new client with no messages
        {"say": "remind me"},
    ]
    seen = _talk(served, steps)
    reloaded = seen["runs"][2]
    assert reloaded["events"] == ["RUN_STARTED", "STATE_SNAPSHOT", "MESSAGES_SNAPSHOT", "RUN_FINISHED"]
    transcript = _same_transcript(seen, served)
    assert [m["role"] for m in transcript] == ["user", "assistant", "tool", "assistant", "user", "assistant"]
    assert transcript[-1]["content"] == "Still red."


def test_a_run_aborted_during_a_backend_tool_then_the_next_message_keep_the_client_in_order() -> None:
    """The aborted run never sent the call's result; the next run's opening brings it before the new message."""
    served = Served(
        t.turn("Counting.", t.tool_use("slow_count", {"table": "sales"})),
        t.reply("It was stopped; ask again."),
        tools=[slow_count],
    )
    steps = [{"say": "count sales", "abort_on": "TOOL_CALL_END"}, {"say": "what happened?"}]
    seen = _talk(served, steps)
    stopped, again = seen["runs"]
    assert stopped["aborted"] and again["outcome"] == "success"
    transcript = _same_transcript(seen, served)
    assert [m["role"] for m in transcript] == ["user", "assistant", "tool", "user", "assistant"]
