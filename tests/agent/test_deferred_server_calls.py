"""A server call whose result the API gives in the next response (its message stopped for client calls).

The recorded case is vercel/ai's deferred tool-search exchange (tests/api/test_recorded_replays_turns.py);
these tests take the same shape through the scripted model, which completes such a call at the start of
its next reply as the API does, and through the session's transition when a reply does not complete it.
"""

from __future__ import annotations

import asyncio

from notebook_tools import testing as t
from notebook_tools.api import history_errors
from notebook_tools.session import AgentState
from notebook_tools.session import _transitions as tr
from tests.conftest import add

SEARCH = {"type": "tool_search_tool_bm25_20251119", "name": "tool_search_tool_bm25"}


def test_a_deferred_search_stays_beside_its_client_call_and_its_result_opens_the_next_reply(make_agent):
    agent, script = make_agent(
        t.turn("Adding, and looking for a tool.", t.tool_use("add", {"a": 1, "b": 2}),
               t.server_tool_use("tool_search_tool_bm25", {"query": "editor"})),
        t.reply("3, and no editor tool."),
        t.reply("You're welcome."),
        tools=[add, SEARCH],
    )  # fmt: skip
    result = asyncio.run(agent.run("Add 1 and 2"))
    assert script.refused == [], [r.errors for r in script.refused]
    assert result.stop_reason == "end_turn" and result.text == "3, and no editor tool."
    first, _, second = agent.state.messages[1:4]
    call = first["content"][-1]
    assert call["type"] == "server_tool_use"  # kept exactly as returned
    assert second["content"][0]["type"] == "tool_search_tool_result"
    assert second["content"][0]["tool_use_id"] == call["id"]
    asyncio.run(agent.run("thanks"))
    assert script.refused == [] and len(script.requests) == 3


def _deferred_state() -> AgentState:
    call = {"type": "server_tool_use", "id": "srvtoolu_1", "name": "tool_search_tool_bm25", "input": {}}
    use = {"type": "tool_use", "id": "toolu_1", "name": "add", "input": {"a": 1, "b": 2}}
    return AgentState(
        messages=[
            {"role": "user", "content": "Add 1 and 2"},
            {"role": "assistant", "content": [{"type": "text", "text": "Adding."}, use, call]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "3"}]},
        ]
    )


def test_a_deferred_call_the_next_reply_did_not_complete_goes_and_the_history_stays_valid():
    state = _deferred_state()
    assert history_errors(state.messages)[0] == []
    after = tr.add_assistant_reply(state, [{"type": "text", "text": "3."}], [], stop_reason="end_turn")
    assert [b["type"] for b in after.messages[1]["content"]] == ["text", "tool_use"]
    assert after.messages[3] == {"role": "assistant", "content": [{"type": "text", "text": "3."}]}
    assert history_errors(after.messages)[0] == []


def test_a_deferred_call_the_next_reply_completes_is_kept_with_its_result():
    found = {
        "type": "tool_search_tool_result",
        "tool_use_id": "srvtoolu_1",
        "content": {"type": "tool_search_tool_search_result", "tool_references": []},
    }
    after = tr.add_assistant_reply(
        _deferred_state(), [found, {"type": "text", "text": "3."}], [], stop_reason="end_turn"
    )
    assert after.messages[1]["content"][-1]["id"] == "srvtoolu_1"
    assert after.messages[3]["content"][0] == found
    assert history_errors(after.messages)[0] == []
