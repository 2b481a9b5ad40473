"""Real Messages API responses, recorded by other public projects, replayed through the real client.

Each recording (tests/fixtures/recorded/*.json names its source repository, path and commit) is served
by the strict scripted API to a real `nt.Agent`. The turn must not crash; the RunResult must say what
the API said (stop reason, text, thinking, usage, server-tool counts, cost); every block is kept
exactly in the history and shown to the person (one AssistantBlock per block, the deltas adding up);
and the next request, carrying the blocks back, must be one the API accepts.

Multi-response recordings (tool calls, pause_turn, programmatic calls) and refusals are in
test_recorded_replays_turns.py.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

import notebook_tools as nt
from notebook_tools.testing._recorded import Recorded, recordings
from tests.api.recorded_replay_helpers import (
    FIXTURES,
    THINKING_TYPES,
    assert_shown,
    assert_usage,
    clean,
    followed_up,
    of_type,
    replay,
    sendable,
    text_of,
    thinking_of,
)

pytestmark = pytest.mark.filterwarnings(
    # The recordings were made with models the SDK now calls deprecated; the warning is not under test.
    "ignore:The model .* is deprecated:DeprecationWarning"
)

WEB_SEARCH = {"type": "web_search_20250305", "name": "web_search"}
WEB_FETCH = {"type": "web_fetch_20250910", "name": "web_fetch"}
CODE_2025 = {"type": "code_execution_20250825", "name": "code_execution"}
CODE_2026 = {"type": "code_execution_20260120", "name": "code_execution"}

# name -> agent settings the recorded request had (tools, thinking, context management, MCP servers, ...)
SINGLE: dict[str, dict[str, Any]] = {
    "text": {},
    "web_search_citations": {"tools": [WEB_SEARCH]},
    "web_fetch": {"tools": [WEB_FETCH]},
    "web_fetch_error": {"tools": [WEB_FETCH]},
    "web_fetch_dynamic_filtering": {
        "tools": [{"type": "web_fetch_20260209", "name": "web_fetch"}, CODE_2026],
    },
    "code_execution_bash_text_editor": {"tools": [CODE_2025]},
    "code_execution_file_view": {"tools": [CODE_2025]},
    "code_execution_prompt_cache": {"tools": [CODE_2026]},
    "mcp": {
        "betas": ["mcp-client-2025-04-04"],
        "request_extra": {
            "mcp_servers": [{"type": "url", "name": "echo", "url": "https://echo.mcp.inevitable.fyi/mcp"}]
        },
    },
    "advisor": {
        "tools": [{"type": "advisor_20260301", "name": "advisor", "model": "claude-opus-4-7"}],
        "betas": ["advisor-tool-2026-03-01"],
    },
    "compaction": {"context": nt.ContextBudget(compact_at=50_000)},
    "redacted_thinking": {"thinking": 1024},
    "context_editing_clear_thinking": {"thinking": 1024, "context": nt.ContextBudget()},
    "context_editing_clear_tool_uses": {"context": nt.ContextBudget()},
    "context_editing_combined": {"thinking": 1024, "context": nt.ContextBudget()},
}


def test_every_recording_names_its_source_and_holds_a_whole_response() -> None:
    rows = recordings(FIXTURES)
    assert len(rows) >= 20
    for row in rows:
        source = row["source"]
        assert source["repository"].count("/") == 1 and source["path"]
        assert len(source["commit"]) == 40 and int(source["commit"], 16) >= 0
        assert row["note"] and None not in row["stop_reasons"]
    covered = {kind for row in rows for kind in row["block_types"]}
    assert covered >= {
        "text", "thinking", "redacted_thinking", "tool_use", "server_tool_use", "web_search_tool_result",
        "web_fetch_tool_result", "code_execution_tool_result", "bash_code_execution_tool_result",
        "text_editor_code_execution_tool_result", "tool_search_tool_result", "mcp_tool_use",
        "mcp_tool_result", "compaction", "advisor_tool_result",
    }  # fmt: skip
    reasons = {reason for row in rows for reason in row["stop_reasons"]}
    assert reasons >= {"end_turn", "tool_use", "pause_turn", "refusal"}
    assert sum(p.stat().st_size for p in FIXTURES.glob("*.json")) < 1_500_000


def test_a_recording_is_served_as_the_events_it_holds() -> None:
    recorded = Recorded.load(FIXTURES / "web_search_citations.json")
    served = recorded.sse_events({})
    assert len(served) == len(recorded.events)
    for raw, event in zip(served, recorded.events, strict=True):
        head, data = raw.decode().split("\n", 1)
        assert head == f"event: {event['type']}" and raw.endswith(b"\n\n")
        assert data.startswith("data: ")
    whole = Recorded.load(FIXTURES / "web_fetch_error.json")  # a non-streamed response, served as a stream
    recorded = json.loads((FIXTURES / "web_fetch_error.json").read_text(encoding="utf-8"))["message"]
    assert whole.message["content"] == recorded["content"] and whole.stop_reason == "end_turn"


@pytest.mark.parametrize("name", sorted(SINGLE))
def test_a_recorded_response_replays_through_the_agent(name: str) -> None:
    run = replay(name, **SINGLE[name])
    (recorded,) = run.messages
    content = recorded["content"]

    # the turn ended as the API said, and RunResult says what it said
    assert run.result.stop_reason == recorded["stop_reason"]
    assert run.result.text == text_of(content)
    assert run.result.thinking == thinking_of(content)
    assert run.result.stop_details is None
    assert_usage(run.result.turn_usage, run.messages)

    # every block is kept exactly (nulls aside) as the assistant's message
    history = run.agent.state.messages
    assert [m["role"] for m in history] == ["user", "assistant"]
    assert clean(history[1]["content"]) in sendable(content)

    # the person saw each block, in order, and the streamed text and thinking add up to them
    assert_shown(run, run.messages)
    assert of_type(run.recorder, "turn_notice") == []

    # the next request is valid and carries the blocks back unchanged
    body = run.follow_up()
    sent = body["messages"]
    assert [m["role"] for m in sent] == ["user", "assistant", "user"]
    carried = clean(sent[1]["content"])
    unthought = [b for b in content if b.get("type") not in THINKING_TYPES]
    # thinking of an earlier turn may be left out (the API ignores it); nothing else may change
    allowed = [*sendable(content), *sendable(unthought)]
    assert carried in allowed, f"{name}: the blocks were not sent back unchanged"
    if "context" in SINGLE[name]:
        assert "context_management" in body, "the context budget's edits are not in the request"
    if "request_extra" in SINGLE[name]:
        assert body["mcp_servers"] == SINGLE[name]["request_extra"]["mcp_servers"]
    assert_usage(run.agent.state.usage, [*run.messages, followed_up(body)])


def test_citations_reach_the_person_with_their_sources() -> None:
    run = replay("web_search_citations", tools=[WEB_SEARCH])
    cited = [e.block for e in of_type(run.recorder, "assistant_block") if e.block.get("citations")]
    assert len(cited) == 9
    for block in cited:
        for citation in block["citations"]:
            assert citation["type"] == "web_search_result_location"
            assert citation["url"].startswith("https://") and citation["title"] and citation["cited_text"]
    assert run.result.turn_usage.server_tool_use == {"web_search_requests": 1}


def test_recorded_models_outside_the_prices_file_are_counted_unpriced_never_free() -> None:
    run = replay("text")
    assert nt.Usage().cost_usd == 0.0
    assert run.result.turn_usage.unpriced_requests == 1 and run.result.turn_usage.cost_usd == 0.0
    priced = replay("code_execution_prompt_cache", tools=[CODE_2026])
    assert priced.result.turn_usage.unpriced_requests == 0
    assert priced.result.turn_usage.cost_usd > 0
    assert priced.result.turn_usage.cache_read_input_tokens == 6289
