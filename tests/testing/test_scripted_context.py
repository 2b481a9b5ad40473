"""The scripted API's context management: beta header rules, clearing tool results and thinking, compaction."""

from __future__ import annotations

import asyncio
from typing import Any

import anthropic
import pytest

from notebook_tools import testing as t
from notebook_tools.api._accumulate import Accumulator
from notebook_tools.api._beta_rules import COMPACT_BETA, CONTEXT_BETA, beta_errors
from notebook_tools.testing._context_model import CLEARED

TOOL = {
    "name": "read_rows",
    "description": "Read rows.",
    "input_schema": {"type": "object", "properties": {}},
}
NOTE = {"name": "note", "description": "Keep a note.", "input_schema": {"type": "object", "properties": {}}}
ROWS = "row,value\n" + "".join(f"{i},{i * i}\n" for i in range(300))  # about 1,000 tokens a result


def exchange(n: int, name: str = "read_rows", thinking: bool = False) -> list[dict[str, Any]]:
    call = {"type": "tool_use", "id": f"toolu_{n:02d}", "name": name, "input": {}}
    head = [t.thinking(f"Thought {n}.")] if thinking else []
    result = {"type": "tool_result", "tool_use_id": f"toolu_{n:02d}", "content": ROWS}
    return [
        {"role": "assistant", "content": [*head, call]},
        {"role": "user", "content": [result, {"type": "text", "text": f"Question {n + 1}?"}]},
    ]


def request(
    messages: list[dict[str, Any]], edits: list[dict[str, Any]] | None, **extra: Any
) -> dict[str, Any]:
    body: dict[str, Any] = {
        "model": "claude-x",
        "max_tokens": 4000,
        "tools": [TOOL, NOTE],
        "messages": messages,
    }
    if edits is not None:
        body["context_management"] = {"edits": edits}
    return {**body, **extra}


def send(
    script: t.ScriptedTransport, body: dict[str, Any], betas: list[str]
) -> tuple[dict[str, Any], list[Any]]:
    """The streamed reply (accumulated) and its raw events."""

    async def go() -> list[dict[str, Any]]:
        required = {k: body[k] for k in ("model", "max_tokens", "messages")}
        extra = {k: v for k, v in body.items() if k not in required}
        headers = {"anthropic-beta": ",".join(betas)} if betas else None
        stream = await script.client(max_retries=0).messages.create(
            **required, stream=True, extra_body=extra, extra_headers=headers
        )
        return [e.model_dump(mode="json", exclude_unset=True, warnings=False) async for e in stream]

    events = asyncio.run(go())
    accumulator = Accumulator()
    for event in events:
        accumulator.feed(event)
    return accumulator.result(), events


def conversation(n: int, **kwargs: Any) -> list[dict[str, Any]]:
    messages: list[dict[str, Any]] = [{"role": "user", "content": "Question 0?"}]
    for i in range(n):
        messages += exchange(i, **kwargs)
    return messages


def test_context_management_needs_its_beta_header() -> None:
    script = t.ScriptedTransport(t.reply("ok"))
    body = request(conversation(1), [{"type": "clear_tool_uses_20250919"}])
    with pytest.raises(anthropic.BadRequestError, match="context_management: Extra inputs are not permitted"):
        send(script, body, [])
    with pytest.raises(
        anthropic.BadRequestError, match="needs the beta header 'context-management-2025-06-27'"
    ):
        send(script, body, [COMPACT_BETA])
    assert script.remaining == 1 and len(script.refused) == 2
    message, events = send(script, body, [CONTEXT_BETA])
    final = next(e for e in events if e["type"] == "message_delta")
    assert final["context_management"] == {"applied_edits": []}  # as the API reports an edit not triggered
    assert message["context_management"] == {"applied_edits": []}
    assert script.betas[-1] == [CONTEXT_BETA]


def test_the_beta_rules_name_what_the_api_refuses() -> None:
    both = [CONTEXT_BETA, COMPACT_BETA]
    low = {
        "context_management": {
            "edits": [{"type": "compact_20260112", "trigger": {"type": "input_tokens", "value": 1000}}]
        }
    }
    assert beta_errors(low, both) == [
        "context_management.edits.0.trigger.value: Input should be greater than or equal to 50000"
    ]
    order = {
        "context_management": {
            "edits": [{"type": "clear_tool_uses_20250919"}, {"type": "clear_thinking_20251015"}]
        }
    }
    assert beta_errors(order, both) == [
        "context_management.edits: clear_thinking_20251015 must be listed first in the edits array"
    ]
    odd = {"context_management": {"edits": [{"type": "clear_tool_uses_20250919", "keep_all": True}]}}
    assert beta_errors(odd, both) == ["context_management.edits.0.keep_all: Extra inputs are not permitted"]
    assert beta_errors({"messages": []}, []) == []


def test_old_tool_results_are_cleared_past_the_trigger_keeping_the_last_ones() -> None:
    messages = conversation(5)
    edit = {
        "type": "clear_tool_uses_20250919",
        "trigger": {"type": "input_tokens", "value": 3000},
        "keep": {"type": "tool_uses", "value": 2},
    }
    plain = t.ScriptedTransport(t.reply("ok"))
    full, _ = send(plain, request(messages, None), [])
    script = t.ScriptedTransport(t.reply("ok"))
    message, events = send(script, request(messages, [edit]), [CONTEXT_BETA])
    applied = message["context_management"]["applied_edits"]
    saved = full["usage"]["input_tokens"] - message["usage"]["input_tokens"]
    assert applied == [
        {"type": "clear_tool_uses_20250919", "cleared_tool_uses": 3, "cleared_input_tokens": saved}
    ]
    assert saved > 2500
    assert (
        next(e for e in events if e["type"] == "message_delta")["context_management"]["applied_edits"]
        == applied
    )
    assert script.requests[0]["messages"] == messages  # the client's history is never changed
    high = {**edit, "trigger": {"type": "input_tokens", "value": 10**6}}
    assert send(t.ScriptedTransport(t.reply("ok")), request(messages, [high]), [CONTEXT_BETA])[0][
        "context_management"
    ] == {"applied_edits": []}
    least = {**edit, "clear_at_least": {"type": "input_tokens", "value": 10**5}}
    again, _ = send(t.ScriptedTransport(t.reply("ok")), request(messages, [least]), [CONTEXT_BETA])
    assert again["context_management"] == {"applied_edits": []}  # could not clear that much: nothing cleared
    assert again["usage"]["input_tokens"] == full["usage"]["input_tokens"]


def test_excluded_tools_keep_their_results() -> None:
    messages = [{"role": "user", "content": "Question 0?"}]
    for i in range(4):
        messages += exchange(i, name="note" if i == 0 else "read_rows")
    edit = {
        "type": "clear_tool_uses_20250919",
        "trigger": {"type": "input_tokens", "value": 1000},
        "keep": {"type": "tool_uses", "value": 1},
        "exclude_tools": ["note"],
    }
    message, _ = send(t.ScriptedTransport(t.reply("ok")), request(messages, [edit]), [CONTEXT_BETA])
    assert (
        message["context_management"]["applied_edits"][0]["cleared_tool_uses"] == 2
    )  # not the note, not the last
    assert CLEARED.startswith("[")


def test_thinking_of_earlier_turns_is_cleared_keeping_the_last_turns() -> None:
    messages: list[dict[str, Any]] = [{"role": "user", "content": "Question 0?"}]
    for i in range(3):
        messages += exchange(i, thinking=True)
    edits = [{"type": "clear_thinking_20251015", "keep": {"type": "thinking_turns", "value": 1}}]
    extra = {"thinking": {"type": "enabled", "budget_tokens": 2000}}
    message, _ = send(
        t.ScriptedTransport(t.turn(t.thinking("Last."), "ok")),
        request(messages, edits, **extra),
        [CONTEXT_BETA],
    )
    (applied,) = message["context_management"]["applied_edits"]
    assert applied["type"] == "clear_thinking_20251015" and applied["cleared_thinking_turns"] == 2
    assert applied["cleared_input_tokens"] > 0
    keep_all = [{"type": "clear_thinking_20251015", "keep": "all"}]
    kept, _ = send(
        t.ScriptedTransport(t.turn(t.thinking("Last."), "ok")),
        request(messages, keep_all, **extra),
        [CONTEXT_BETA],
    )
    assert kept["context_management"] == {"applied_edits": []}


def test_compaction_starts_the_reply_past_the_trigger_and_later_requests_read_from_it() -> None:
    big = "All about the data. " * 12_000  # about 69,000 tokens
    messages = [
        {"role": "user", "content": big},
        {"role": "assistant", "content": "Noted."},
        {"role": "user", "content": "Summarize."},
    ]
    edit = {"type": "compact_20260112", "trigger": {"type": "input_tokens", "value": 50_000}}
    script = t.ScriptedTransport(
        t.reply("Here it is."), t.reply("Next."), compaction_summary="The person shared data notes."
    )
    message, _ = send(script, request(messages, [edit]), [COMPACT_BETA])
    assert message["content"][0] == {"type": "compaction", "content": "The person shared data notes."}
    assert message["content"][1] == {"type": "text", "text": "Here it is."}
    first, second = message["usage"]["iterations"]
    assert first["type"] == "compaction" and first["input_tokens"] > 50_000
    assert second["type"] == "message" and message["usage"]["input_tokens"] == second["input_tokens"] < 1000
    later = [
        *messages,
        {"role": "assistant", "content": message["content"]},
        {"role": "user", "content": "And?"},
    ]
    after, _ = send(script, request(later, [edit]), [COMPACT_BETA])
    assert after["content"][0]["type"] == "text"  # read from the compaction block on: under the trigger
    assert after["usage"]["input_tokens"] < 1000 and "iterations" not in after["usage"]


def test_pause_after_compaction_returns_the_block_alone() -> None:
    big = "All about the data. " * 12_000
    edit = {
        "type": "compact_20260112",
        "trigger": {"type": "input_tokens", "value": 50_000},
        "pause_after_compaction": True,
    }
    script = t.ScriptedTransport(t.reply("never sent"))
    message, _ = send(script, request([{"role": "user", "content": big}], [edit]), [COMPACT_BETA])
    assert message["stop_reason"] == "compaction" and [b["type"] for b in message["content"]] == [
        "compaction"
    ]
