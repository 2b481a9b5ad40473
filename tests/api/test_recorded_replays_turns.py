"""Recorded conversations of several responses, and refusals, replayed through the real client and `nt.Agent`.

Client tool calls (plain, after a tool search, with thinking, programmatic from code execution), a
server tool's `pause_turn` and its automatic continuation, and a refusal with `stop_details`. Each
recording names its source (tests/fixtures/recorded/*.json); see test_recorded_replays.py.
"""

from __future__ import annotations

from typing import Any

import pytest

import notebook_tools as nt
from notebook_tools import testing as t
from tests.api.recorded_replay_helpers import (
    assert_shown,
    assert_usage,
    clean,
    followed_up,
    of_type,
    replay,
    sendable,
    text_of,
)

pytestmark = pytest.mark.filterwarnings(
    # The recordings were made with models the SDK now calls deprecated; the warning is not under test.
    "ignore:The model .* is deprecated:DeprecationWarning"
)


@nt.tool(name="updateIssueList")
def update_issue_list() -> str:
    """Refresh the list of issues."""
    return "3 issues updated"


@nt.tool
def get_user_country() -> str:
    """The country the user is in."""
    return "Mexico"


@nt.tool
def get_temp_data(location: str) -> str:
    """Temperature data for a place.

    Args:
        location: City and state.
    """
    return f"{location}: 18 C"


@nt.tool
def get_weather(location: str) -> str:
    """The weather at a place.

    Args:
        location: City and state.
    """
    return f"{location}: fog, 17 C"


@nt.tool(name="rollDie")
def roll_die(player: str) -> str:
    """Roll the player's die.

    Args:
        player: player1 or player2.
    """
    return "6" if player == "player1" else "3"


def _assistant_blocks(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [b for m in messages if m["role"] == "assistant" for b in m["content"]]


def _results(message: dict[str, Any]) -> list[str]:
    assert message["role"] == "user"
    assert all(b["type"] == "tool_result" for b in message["content"]), "a tool answer holds only results"
    return [b["tool_use_id"] for b in message["content"]]


def _calls(content: list[dict[str, Any]]) -> list[str]:
    return [b["id"] for b in content if b["type"] == "tool_use"]


@pytest.mark.parametrize(
    ("name", "tools"),
    [
        ("tool_use_no_args", [update_issue_list]),
        ("tool_search_regex", [{"type": "tool_search_tool_regex_20251119", "name": "tool_search_tool_regex"}, get_temp_data]),
        ("tool_search_bm25", [{"type": "tool_search_tool_bm25_20251119", "name": "tool_search_tool_bm25"}, get_weather]),
        ("thinking_tool_use", [get_user_country]),
    ],
)  # fmt: skip
def test_a_recorded_tool_call_is_answered_and_the_recorded_reply_follows(name: str, tools: list[Any]) -> None:
    options: dict[str, Any] = {"thinking": 3000} if name == "thinking_tool_use" else {}
    after = [t.reply("Updated the list.")] if name == "tool_use_no_args" else []
    run = replay(name, tools=tools, after=after, **options)
    first = run.messages[0]
    answer = run.script.requests[1]

    # the call was run and answered in the very next message; the recorded blocks went back unchanged
    assert answer["messages"][-1]["role"] == "user"
    assert _results(answer["messages"][-1]) == _calls(first["content"])
    assert clean(answer["messages"][-2]["content"]) in sendable(first["content"])
    if options:  # one thinking setting for every request of the turn (the docs: it may not change mid-turn)
        assert (
            answer["thinking"]
            == run.script.requests[0]["thinking"]
            == {"type": "enabled", "budget_tokens": 3000}
        )
        assert answer["messages"][-2]["content"][0]["signature"] == first["content"][0]["signature"]

    final = run.messages[-1] if not after else {"content": [{"type": "text", "text": "Updated the list."}]}
    assert run.result.stop_reason == "end_turn" and run.result.text == text_of(final["content"])
    if not after:
        assert_usage(run.result.turn_usage, run.messages)
    assert_shown(run, run.messages)
    history = run.agent.state.messages
    assert [m["role"] for m in history] == ["user", "assistant", "user", "assistant"]
    assert clean(history[1]["content"]) in sendable(first["content"])
    run.follow_up()


def test_programmatic_tool_calls_from_code_execution_replay_over_fifteen_responses() -> None:
    tools = [{"type": "code_execution_20250825", "name": "code_execution"}, roll_die]
    run = replay("programmatic_tool_calling", tools=tools, prompt="Play a dice game: who is cheating?")
    recorded = run.messages
    assert len(run.script.requests) == 15 and run.script.refused == []
    for n, message in enumerate(recorded[:-1]):
        sent = run.script.requests[n + 1]["messages"]
        # each call (made by the code running on the server) is answered alone, results only
        assert _results(sent[-1]) == _calls(message["content"]) and len(_calls(message["content"])) == 1
        assert clean(sent[-2]["content"]) in sendable(message["content"])
    assert run.result.stop_reason == "end_turn"
    assert run.result.text == text_of(recorded[-1]["content"])
    assert_usage(run.result.turn_usage, recorded)
    blocks = _assistant_blocks(run.agent.state.messages)
    assert clean(blocks) == clean([b for m in recorded for b in m["content"]])
    assert len(of_type(run.recorder, "tool_started")) == 14
    # blocks that arrived whole in message_start are shown too
    assert_shown(run, recorded)
    run.follow_up()


def test_pause_turn_continues_by_itself_with_the_paused_turn_sent_back_as_it_is() -> None:
    run = replay(
        "pause_turn_web_search",
        tools=[{"type": "web_search_20250305", "name": "web_search"}],
        thinking=4096,
        max_tokens=15000,
    )
    paused, resumed = run.messages
    first, second = run.script.requests[:2]
    # the continuation is the same request plus the paused assistant turn: no user message added
    assert second["messages"][:-1] == first["messages"]
    assert second["messages"][-1]["role"] == "assistant"
    assert clean(second["messages"][-1]["content"]) in sendable(paused["content"])
    assert second["thinking"] == first["thinking"] == {"type": "enabled", "budget_tokens": 4096}
    assert second["tools"] == first["tools"]

    assert run.result.stop_reason == "end_turn"
    assert run.result.text.endswith(text_of(resumed["content"]))
    assert_usage(run.result.turn_usage, run.messages)
    assert run.result.turn_usage.server_tool_use == {"web_search_requests": 15}
    assert of_type(run.recorder, "turn_notice") == []  # the continuation did not run out
    assert_shown(run, run.messages)

    # the history holds one assistant message: the paused turn's blocks, then the continuation's
    history = run.agent.state.messages
    assert [m["role"] for m in history] == ["user", "assistant"]
    assert clean(history[1]["content"]) in sendable(paused["content"] + resumed["content"])
    body = run.follow_up()
    assert [m["role"] for m in body["messages"]] == ["user", "assistant", "user"]


def test_a_refusal_is_set_aside_shown_with_its_explanation_and_the_next_message_is_valid() -> None:
    hello = t.Turn(
        content=[{"type": "text", "text": "Hello! What shall we look at?"}],
        input_tokens=30,
        output_tokens=10,
        cache_creation_input_tokens=0,
        cache_read_input_tokens=0,
    )
    run = replay("refusal", before=[hello])
    (refused,) = run.messages
    details = refused["stop_details"]
    assert details["category"] == "reasoning_extraction"

    assert run.result.stop_reason == "refusal" and run.result.text == ""
    assert run.result.stop_details == details and run.result.advice
    assert run.result.turn_usage.input_tokens == 97 and run.result.turn_usage.requests == 1

    (notice,) = of_type(run.recorder, "turn_notice")
    assert notice.stop_reason == "refusal" and details["explanation"] in notice.detail
    assert notice.stop_details == details and notice.title

    # the refused exchange is set aside: the history is back to before the person's message
    state = run.agent.state
    assert [m["role"] for m in state.messages] == ["user", "assistant"]
    (aside,) = state.set_aside
    assert aside.stop_reason == "refusal" and aside.stop_details == details
    assert "chain of thought" in str(aside.messages[0]["content"])

    body = run.follow_up()
    assert [m["role"] for m in body["messages"]] == ["user", "assistant", "user"]
    assert "chain of thought" not in str(body["messages"]), "the refused prompt was sent again"
    greeting = {"model": body["model"], "usage": {"input_tokens": 30, "output_tokens": 10}}
    assert_usage(run.agent.state.usage, [greeting, refused, followed_up(body)])


def test_the_refused_turn_alone_leaves_an_empty_history_the_next_message_starts_afresh() -> None:
    run = replay("refusal")
    assert run.agent.state.messages == [] and len(run.agent.state.set_aside) == 1
    body = run.follow_up("What can you help me with?")
    (message,) = body["messages"]
    assert message["role"] == "user" and "chain of thought" not in str(message)
    assert "What can you help me with?" in str(message["content"])


@nt.tool(name="readNoteTree")
def read_note_tree(noteId: str) -> str:
    """Read a note's tree of blocks.

    Args:
        noteId: The note's id.
    """
    return '[{"type": "bulletedListItem", "text": "hi"}]'


@nt.tool(name="executeEditorOperation")
def execute_editor_operation(noteId: str, operations: list[dict[str, Any]]) -> str:
    """Apply editor operations to a note.

    Args:
        noteId: The note's id.
        operations: The operations, in order.
    """
    return f"{len(operations)} operation applied"


def test_a_server_call_whose_result_comes_in_the_next_response_is_kept_as_returned() -> None:
    """vercel/ai's deferred tool-search recording: the first reply ends with a client call and a tool
    search whose result opens the next response. The search call stays in the history as returned,
    so every request holds each server result beside its call (the scripted API refuses otherwise)."""
    tools = [
        {"type": "tool_search_tool_bm25_20251119", "name": "tool_search_tool_bm25"},
        read_note_tree,
        execute_editor_operation,
    ]
    run = replay("tool_search_deferred_bm25", tools=tools, prompt="Add a bullet 'bye' after 'hi'.")
    first, second, third = run.messages
    requests = run.script.requests
    assert len(requests) == 3

    # The reply with the deferred call went back exactly as returned (the search call included).
    assert clean(requests[1]["messages"][1]["content"]) in sendable(first["content"])
    assert [b["type"] for b in requests[1]["messages"][1]["content"]] == [
        "text",
        "tool_use",
        "server_tool_use",
    ]
    assert _results(requests[1]["messages"][2]) == _calls(first["content"])
    # The next response opened with the search's result: both replies are kept whole, in order.
    assert clean(requests[2]["messages"][1]["content"]) in sendable(first["content"])
    assert clean(requests[2]["messages"][3]["content"]) in sendable(second["content"])
    assert _results(requests[2]["messages"][4]) == _calls(second["content"])

    assert run.result.stop_reason == "end_turn" and run.result.text == text_of(third["content"])
    assert_usage(run.result.turn_usage, run.messages)
    assert_shown(run, run.messages)
    history = run.agent.state.messages
    assert [m["role"] for m in history] == ["user", "assistant", "user", "assistant", "user", "assistant"]
    assert clean(history[1]["content"]) in sendable(first["content"])
    run.follow_up()
