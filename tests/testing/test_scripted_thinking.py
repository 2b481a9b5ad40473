"""The scripted API refuses thinking histories the real API refuses, with the real API's messages."""

from __future__ import annotations

import asyncio
from typing import Any

import anthropic
import pytest

from notebook_tools import testing as t
from notebook_tools.api._thinking_rules import thinking_history_errors

TOOL = {
    "name": "read_rows",
    "description": "Read rows.",
    "input_schema": {"type": "object", "properties": {}},
}
ENABLED = {"type": "enabled", "budget_tokens": 2000}
CALL = {"type": "tool_use", "id": "toolu_01", "name": "read_rows", "input": {}}
RESULT = {
    "role": "user",
    "content": [{"type": "tool_result", "tool_use_id": "toolu_01", "content": "5 rows"}],
}


def body(*assistant: dict[str, Any], thinking: Any = ENABLED, then: Any = RESULT) -> dict[str, Any]:
    messages = [
        {"role": "user", "content": "How many rows?"},
        {"role": "assistant", "content": list(assistant)},
    ]
    out = {
        "model": "claude-x",
        "max_tokens": 4000,
        "tools": [TOOL],
        "messages": messages + ([then] if then else []),
    }
    if thinking is not None:
        out["thinking"] = thinking
    return out


def test_a_tool_loop_with_thinking_enabled_must_send_the_thinking_back_first() -> None:
    (error,) = thinking_history_errors(body(CALL))
    assert error.startswith(
        "messages.1.content.0.type: Expected `thinking` or `redacted_thinking`, but found `tool_use`. When "
        "`thinking` is enabled, a final `assistant` message must start with a thinking block"
    )
    assert thinking_history_errors(body(t.thinking("Count them."), CALL)) == []
    assert thinking_history_errors(body(t.redacted_thinking(), CALL)) == []
    assert (
        thinking_history_errors(body(CALL, thinking={"type": "adaptive"})) == []
    )  # may answer without a thought
    person = {
        "role": "user",
        "content": [*RESULT["content"], {"type": "text", "text": "Now something else."}],
    }
    assert thinking_history_errors(body(CALL, then=person)) == []  # a person's message starts a new turn


def test_later_messages_of_the_same_turn_need_no_thinking_of_their_own() -> None:
    second = {"type": "tool_use", "id": "toolu_02", "name": "read_rows", "input": {}}
    answer = {
        "role": "user",
        "content": [{"type": "tool_result", "tool_use_id": "toolu_02", "content": "ok"}],
    }
    request = body(t.thinking("Count them."), CALL)
    request["messages"] += [{"role": "assistant", "content": [second]}, answer]
    assert thinking_history_errors(request) == []
    request["messages"][1]["content"] = [CALL]
    assert thinking_history_errors(request)[0].startswith("messages.1.content.0.type: Expected `thinking`")


def test_a_final_assistant_message_with_thinking_needs_thinking_on() -> None:
    request = body(t.thinking("Hmm."), {"type": "text", "text": "Partly"}, thinking=None, then=None)
    assert thinking_history_errors(request) == [
        "messages.1.content.0: When thinking is disabled, an `assistant` message in the final position cannot "
        "contain `thinking`. To use thinking blocks, enable `thinking` in your request."
    ]
    assert thinking_history_errors({**request, "thinking": {"type": "adaptive"}}) == []


def test_thinking_in_the_latest_assistant_message_cannot_be_modified() -> None:
    original = t.thinking("Count them.")
    issued = {original["signature"]: "Count them."}
    changed = {**original, "thinking": "Count them twice."}
    modified = (
        "messages.1.content.0: `thinking` or `redacted_thinking` blocks in the latest assistant message cannot be "
        "modified. These blocks must remain as they were in the original response."
    )
    assert thinking_history_errors(body(original, CALL), issued) == []
    assert thinking_history_errors(body(changed, CALL), issued) == [modified]
    assert thinking_history_errors(body({**original, "signature": ""}, CALL)) == [modified]
    recorded = t.thinking("A real thought.", signature="EqQBCkgIARABGAIiQL")  # not ours: cannot be judged
    assert thinking_history_errors(body(recorded, CALL), issued) == []


def test_the_scripted_api_refuses_a_changed_thought_it_gave() -> None:
    script = t.ScriptedTransport(
        t.turn(t.thinking("Count them."), t.tool_use("read_rows", id="toolu_01")), t.reply("5.")
    )
    client = script.client(max_retries=0)

    async def ask(messages: list[dict[str, Any]]) -> Any:
        return await client.messages.create(
            model="claude-x",
            max_tokens=4000,
            tools=[TOOL],
            thinking=ENABLED,
            messages=messages,  # type: ignore[arg-type]
        )

    first = asyncio.run(ask([{"role": "user", "content": "How many rows?"}])).model_dump(
        mode="json", exclude_none=True
    )
    history = [
        {"role": "user", "content": "How many rows?"},
        {"role": "assistant", "content": first["content"]},
        RESULT,
    ]
    tampered = [dict(b) for b in first["content"]]
    tampered[0]["thinking"] = "Something else."
    with pytest.raises(anthropic.BadRequestError, match="cannot be modified"):
        asyncio.run(ask([history[0], {"role": "assistant", "content": tampered}, RESULT]))
    assert asyncio.run(ask(history)).content[0].text == "5."  # type: ignore[union-attr]
    assert len(script.refused) == 1
