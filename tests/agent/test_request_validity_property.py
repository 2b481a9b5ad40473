"""Property: whatever the model answers, every request the agent makes is one the API accepts.

Random sessions of replies built from text, thinking, tool calls (a backend tool and a frontend one,
answered), server-tool pairs (web search), citations and every stop reason (end_turn, tool_use,
pause_turn, max_tokens, refusal, stop_sequence), under each thinking setting, are played through the
real client against the strict scripted API: no request may be refused (`script.refused == []`), and the
session is valid at rest after every call (`check_invariant`).
"""

from __future__ import annotations

import asyncio
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import notebook_tools as nt
from notebook_tools import testing as t
from notebook_tools.session import check_invariant

SEARCH = {"type": "web_search_20250305", "name": "web_search"}
NEWS = ("Apple Ginza reopens", "https://www.apple.com/newsroom/")
REFUSAL = {"type": "refusal", "category": "cyber", "explanation": "This request was blocked."}


@nt.tool
def count_rows(table: str) -> str:
    """Count the rows of a table."""
    return f"{table}: 3 rows"


PARTS = st.lists(st.sampled_from(["text", "backend", "frontend", "search", "cited"]), max_size=3)
STOPS = st.sampled_from(["natural", "pause_turn", "max_tokens", "refusal", "stop_sequence"])
REPLY = st.tuples(PARTS, STOPS, st.booleans())
SESSION = st.tuples(
    st.sampled_from([None, "adaptive", 2048]),  # thinking: off, adaptive, enabled with a budget
    st.lists(REPLY, min_size=1, max_size=7),
    st.integers(min_value=1, max_value=3),  # prompts the person sends
)


def block(part: str, n: int) -> list[dict[str, Any]]:
    if part == "text":
        return [{"type": "text", "text": f"Part {n}."}]
    if part == "backend":
        return [t.tool_use("count_rows", {"table": f"t{n}"})]
    if part == "frontend":
        return [t.tool_use("user_confirm", {"message": f"Go on with {n}?"})]
    if part == "search":
        return t.web_search(f"query {n}", [(*NEWS, None)])
    return [t.cited(f"Cited {n}.", [NEWS])]


def reply(spec: tuple[list[str], str, bool], thinking: Any) -> t.Step:
    parts, stop, thinks = spec

    def step(body: dict[str, Any]) -> t.Turn:
        content = [b for n, part in enumerate(parts) for b in block(part, n)]
        last = body["messages"][-1]
        fresh = last["role"] == "user" and (
            isinstance(last["content"], str) or any(b.get("type") != "tool_result" for b in last["content"])
        )
        # The API thinks first in a turn with thinking enabled (adaptive: when it chooses to).
        if fresh and (thinking == 2048 or (thinking == "adaptive" and thinks)):
            content.insert(0, t.thinking(f"Thinking about {len(body['messages'])} messages."))
        if stop == "pause_turn":  # a long server-tool turn paused: its last search has no result yet
            calls = [b for b in content if b["type"] != "tool_use"]
            return t.Turn(
                content=[*calls, t.server_tool_use("web_search", {"query": "more"})], stop_reason="pause_turn"
            )
        if stop == "refusal":
            kept = [b for b in content if b["type"] == "text" and "citations" not in b][:1]
            return t.Turn(content=kept, stop_reason="refusal", stop_details=REFUSAL)
        if stop == "stop_sequence":
            turn = t.Turn(content=[{"type": "text", "text": "Up to the stop"}], stop_reason="stop_sequence")
            turn.stop_sequence = "###"
            return turn
        return t.Turn(content=content, stop_reason="max_tokens" if stop == "max_tokens" else None)

    return step


async def play(
    thinking: Any, replies: list[tuple[list[str], str, bool]], prompts: int
) -> t.ScriptedTransport:
    script = t.ScriptedTransport(*[reply(r, thinking) for r in replies], then=t.reply("Done."))
    options: dict[str, Any] = {"thinking": thinking, "max_tokens": 4096} if thinking else {}
    agent = nt.Agent(
        client=script.client(max_retries=0),
        tools=[count_rows, SEARCH],  # type: ignore[list-item]
        frontend_tools=[nt.user_confirm],
        max_turns=12,
        **options,
    )
    for i in range(prompts):
        result = await agent.run(f"Question {i}?")
        for _ in range(6):
            check_invariant(agent.state)
            if result.pending_frontend_tools:
                answers = [
                    nt.ToolResult(tool_use_id=p.tool_use_id, content="yes")
                    for p in result.pending_frontend_tools
                ]
                result = await agent.resume(answers)
            elif result.stop_reason in ("max_tokens", "pause_turn"):
                result = await agent.continue_turn()
            else:
                break
        check_invariant(agent.state)
    return script


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(SESSION)
def test_every_request_stays_valid(session: tuple[Any, list[tuple[list[str], str, bool]], int]) -> None:
    thinking, replies, prompts = session
    script = asyncio.run(play(thinking, replies, prompts))
    assert script.refused == [], script.refused[0].errors
    assert script.requests  # the session made requests
