"""Malformed or unusual raw streams: the turn never crashes unexplained, the history stays valid."""

from __future__ import annotations

import pytest

import notebook_tools as nt
from notebook_tools import testing as t
from tests.support.raw_streams import CALLS, Events, agent_on, end, lookup, run, start, text_block, tool_block


def test_ping_and_message_delta_without_usage_are_fine():
    agent, script, _ = agent_on(
        Events(lambda b: [start(b), {"type": "ping"}, *text_block(0, "hi"), *end(usage=False)]),
        t.reply("again"),
    )
    result = run(agent.run("hello"))
    assert result.text == "hi"
    run(agent.run("more"))
    assert script.refused == []


def test_invalid_json_arguments_are_not_run_as_an_empty_call():
    """A call whose arguments never parse must not run with `{}` (its defaults) as if the model asked so."""
    CALLS.clear()
    agent, script, _ = agent_on(
        Events(
            lambda b: [
                start(b),
                *tool_block(0, "toolu_bad", "lookup", '{"key": "se', "cret"),
                *end("tool_use"),
            ]
        ),
        t.reply("ok"),
        tools=[lookup],
    )
    run(agent.run("look"))
    assert script.refused == []
    assert CALLS == [], f"the tool ran with arguments the model never gave: {CALLS}"


@pytest.mark.parametrize("arguments", ["null", "[1, 2]", '"a string"'])
def test_arguments_that_are_not_an_object_are_answered_not_run(arguments):
    CALLS.clear()
    agent, script, _ = agent_on(
        Events(lambda b: [start(b), *tool_block(0, "toolu_odd", "lookup", arguments), *end("tool_use")]),
        t.reply("ok"),
        tools=[lookup],
    )
    assert run(agent.run("look")).text == "ok"  # no crash: the turn carries on
    answer = t.answers_in(script.requests[1])
    assert CALLS == [] and answer == {"lookup": None} and script.refused == []
    told = script.requests[1]["messages"][-1]["content"][0]["content"]
    assert "not a JSON object" in told and arguments[:4] in told


def test_missing_content_block_stop_keeps_the_calls_arguments():
    CALLS.clear()
    agent, script, _ = agent_on(
        Events(
            lambda b: [
                start(b),
                *tool_block(0, "toolu_ns", "lookup", '{"key": ', '"abc"}', stop=False),
                *end("tool_use"),
            ]
        ),
        t.reply("ok"),
        tools=[lookup],
    )
    run(agent.run("look"))
    assert CALLS == ["abc"], f"arguments streamed without a content_block_stop were lost: ran with {CALLS}"
    assert script.refused == []


def test_delta_for_a_block_never_started_does_not_crash_unexplained():
    agent, script, _ = agent_on(
        Events(
            lambda b: [
                start(b),
                {
                    "type": "content_block_delta",
                    "index": 0,
                    "delta": {"type": "text_delta", "text": "orphan"},
                },
                {"type": "content_block_stop", "index": 0},
                *end(),
            ]
        ),
        t.reply("again"),
    )
    try:
        run(agent.run("hello"))
    except nt.SessionInvariantError as exc:
        pytest.fail(f"an orphan delta crashed the turn with an invariant error: {exc}")
    except nt.IncompleteResponseError:
        pass  # explained: the response was malformed
    run(agent.run("more"))
    assert script.refused == []


def test_out_of_order_block_stops():
    def events(b):
        return [
            start(b),
            {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
            {"type": "content_block_start", "index": 1, "content_block": {"type": "text", "text": ""}},
            {"type": "content_block_delta", "index": 1, "delta": {"type": "text_delta", "text": "B"}},
            {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "A"}},
            {"type": "content_block_stop", "index": 1},
            {"type": "content_block_stop", "index": 0},
            *end(),
        ]

    agent, script, _ = agent_on(Events(events), t.reply("again"))
    result = run(agent.run("hello"))
    assert result.text == "AB"
    run(agent.run("more"))
    assert script.refused == []


def test_blocks_whole_in_message_start_then_more_blocks():
    def events(b):
        return [start(b, content=[{"type": "text", "text": "first "}]), *text_block(1, "second"), *end()]

    agent, script, seen = agent_on(Events(events), t.reply("again"))
    result = run(agent.run("hello"))
    assert result.text == "first second"
    blocks = [e for e in seen if e.type == "assistant_block"]
    assert [e.index for e in blocks] == [0, 1]
    run(agent.run("more"))
    assert script.refused == []


def test_error_event_mid_stream_is_retried_like_a_dropped_stream():
    """The API may send `event: error` (overloaded_error) mid-stream; `_accumulate` turns it into an
    IncompleteResponseError meant to be retried, but the SDK raises APIStatusError first: no retry."""

    def events(b):
        return [
            start(b),
            *text_block(0, "par"),
            {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}},
        ]

    agent, script, _ = agent_on(Events(events), t.reply("fine"), stream_retries=2)
    result = run(agent.run("hello"))
    assert result.text == "fine" and len(script.requests) == 2 and script.refused == []


def test_thinking_cut_before_signature_with_max_tokens():
    def events(b):
        return [
            start(b),
            {
                "type": "content_block_start",
                "index": 0,
                "content_block": {"type": "thinking", "thinking": "", "signature": ""},
            },
            {
                "type": "content_block_delta",
                "index": 0,
                "delta": {"type": "thinking_delta", "thinking": "hmm"},
            },
            *end("max_tokens"),
        ]

    agent, script, _seen = agent_on(
        Events(events), t.reply("done"), t.reply("ok"), thinking=2048, max_tokens=4096
    )
    result = run(agent.run("think"))
    assert result.stop_reason == "max_tokens"
    result = run(agent.continue_turn())
    assert result.text == "done"
    run(agent.run("next"))
    assert script.refused == []


def test_unknown_delta_with_non_string_fields_keeps_the_block():
    def events(b):
        return [
            start(b),
            {
                "type": "content_block_start",
                "index": 0,
                "content_block": {"type": "gizmo", "id": "g1", "parts": [1]},
            },
            {
                "type": "content_block_delta",
                "index": 0,
                "delta": {"type": "gizmo_delta", "parts": [2], "count": 3},
            },
            {
                "type": "content_block_delta",
                "index": 0,
                "delta": {"type": "gizmo_delta", "parts": [4], "count": None},
            },
            {"type": "content_block_stop", "index": 0},
            *text_block(1, "done"),
            *end(),
        ]

    agent, script, _ = agent_on(Events(events), t.reply("again"))
    run(agent.run("hello"))
    block = agent.state.messages[1]["content"][0]
    assert block["type"] == "gizmo"
    run(agent.run("more"))
    assert script.refused == []


def test_a_new_field_in_a_known_delta_type_is_not_copied_into_the_block():
    def events(b):
        return [
            start(b),
            *text_block(0, "Hello"),
            {
                "type": "content_block_delta",
                "index": 0,
                "delta": {"type": "text_delta", "text": " world", "index": 7},
            },
            *end(),
        ]

    agent, script, _ = agent_on(Events(events), t.reply("again"))
    run(agent.run("hello"))
    run(agent.run("more"))
    assert script.refused == []


@pytest.mark.parametrize(
    "event",
    [
        {"type": "content_block_delta", "index": 0, "delta": {"type": ["text_delta"], "text": "x"}},
        {"type": "content_block_delta", "index": [0], "delta": {"type": "text_delta", "text": "x"}},
        {"type": "content_block_delta", "index": 0, "delta": ["not", "an", "object"]},
    ],
)
def test_a_malformed_event_is_a_clear_error_and_changes_nothing(event):
    """Was: `TypeError: unhashable type: 'list'` from deep in the accumulator (an edited cassette)."""
    agent, script, _ = agent_on(
        Events(lambda b: [start(b), *text_block(0, "hi"), event, *end("end_turn")]), stream_retries=0
    )
    with pytest.raises(nt.IncompleteResponseError, match="malformed stream event"):
        run(agent.run("hello"))
    assert [m["role"] for m in agent.state.messages] == ["user"] and script.refused == []
