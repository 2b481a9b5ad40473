"""The scripted API streams every block type as the real API does, and the stream rebuilds the message exactly.

Shapes are checked against what real streams hold (vercel/ai's recorded fixtures, cited in `_sse_blocks`).
Each test asks through the real `AsyncAnthropic` client and accumulates the raw events.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import anthropic

from notebook_tools import testing as t
from notebook_tools.api._accumulate import Accumulator, without_nulls

NEWS = ("The all-new Apple Ginza opens", "https://www.apple.com/newsroom/2025/09/ginza/")


async def _stream(client: anthropic.AsyncAnthropic, **extra: Any) -> list[dict[str, Any]]:
    stream = await client.messages.create(
        model="claude-x", max_tokens=2000, messages=[{"role": "user", "content": "go"}], stream=True, **extra
    )
    return [event.model_dump(mode="json", exclude_unset=True, warnings=False) async for event in stream]


def streamed(
    *steps: t.Step, **options: Any
) -> tuple[list[dict[str, Any]], dict[str, Any], t.ScriptedTransport]:
    script = t.ScriptedTransport(*steps, **options)
    events = asyncio.run(_stream(script.client()))
    accumulator = Accumulator()
    for event in events:
        accumulator.feed(event)
    return events, accumulator.result(), script


def test_every_block_type_streams_and_rebuilds_exactly() -> None:
    blocks = t.turn(
        t.thinking("The person wants today's news."),
        t.redacted_thinking("EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpP"),
        "Let me look.",
        t.web_search(
            "tech news", [(*NEWS, "3 hours ago"), ("Fang's weekly", "https://future.forem.com/x", None)]
        ),
        t.web_fetch(
            "https://en.wikipedia.org/wiki/Maglemosian_culture", "Maglemosian culture", "Mesolithic."
        ),
        t.code_execution("python fib.py", stdout="34\n"),
        t.mcp_call("echo", "echo", {"message": "hello world"}, "Tool echo: hello world"),
        t.container_upload("file_011CNha8iCJcU1wXNR6q4V8w"),
        {"type": "advisor", "verdict": "fine", "note": "a block type this project has never seen"},
        t.cited("Apple Ginza reopened on September 26.", [NEWS]),
    ).content
    events, message, _ = streamed(t.Turn(content=blocks))
    ids = [b.get("id") for b in message["content"] if "id" in b]
    assert ids == [
        "srvtoolu_scripted_0001",
        "srvtoolu_scripted_0002",
        "srvtoolu_scripted_0003",
        "mcptoolu_scripted_0004",
    ]
    expected = [dict(b) for b in blocks]
    calls = [b for b in expected if b["type"] in ("server_tool_use", "mcp_tool_use")]
    for call, ident in zip(calls, ids, strict=True):
        call["id"] = ident
    results = [b for b in expected if b["type"].endswith("_tool_result")]
    for result, ident in zip(results, ids, strict=True):
        result["tool_use_id"] = ident
    # The accumulator drops a block's own null fields, as the SDK's dump did; what a block holds stays exact.
    assert message["content"] == [without_nulls(b) for b in expected]
    assert message["stop_reason"] == "end_turn"  # server and MCP calls are answered in the same reply
    starts = [e["content_block"] for e in events if e["type"] == "content_block_start"]
    assert starts[0] == {"type": "thinking", "thinking": "", "signature": ""}
    assert starts[1] == expected[1] and starts[4]["tool_use_id"] == ids[0]  # whole in its start
    assert starts[3] == {"type": "server_tool_use", "id": ids[0], "name": "web_search", "input": {}}
    assert starts[-1] == {"citations": [], "type": "text", "text": ""}
    kinds = [e["delta"]["type"] for e in events if e["type"] == "content_block_delta"]
    assert {"thinking_delta", "signature_delta", "input_json_delta", "citations_delta", "text_delta"} <= set(
        kinds
    )
    last = [
        e["delta"]["type"]
        for e in events
        if e.get("index") == len(blocks) - 1 and e["type"] == "content_block_delta"
    ]
    assert last[0] == "citations_delta" and set(last[1:]) == {"text_delta"}  # citations first, as recorded


def test_a_server_call_streams_its_input_after_an_empty_piece_as_recorded() -> None:
    events, message, _ = streamed(t.turn(t.web_search("tech news today September 26 2025")), json_chunk=11)
    pieces = [
        e["delta"]["partial_json"] for e in events if e["type"] == "content_block_delta" and e["index"] == 0
    ]
    assert pieces[0] == "" and json.loads("".join(pieces)) == {"query": "tech news today September 26 2025"}
    assert message["usage"]["server_tool_use"] == {"web_search_requests": 1, "web_fetch_requests": 0}


def test_a_compaction_block_streams_as_a_start_with_null_content_then_one_delta() -> None:
    events, message, _ = streamed(
        t.turn(t.compaction("## Summary\nThey asked about React."), "Based on it: ...")
    )
    start = next(e for e in events if e["type"] == "content_block_start")
    assert start["content_block"] == {"type": "compaction", "content": None}
    deltas = [e["delta"] for e in events if e["type"] == "content_block_delta" and e["index"] == 0]
    assert deltas == [{"type": "compaction_delta", "content": "## Summary\nThey asked about React."}]
    assert message["content"][0] == t.compaction("## Summary\nThey asked about React.")


def test_a_refusal_sends_its_stop_details_in_message_delta() -> None:
    details = {
        "type": "refusal",
        "category": "cyber",
        "explanation": "This request triggered restrictions on violative cyber content.",
    }
    events, message, _ = streamed(t.turn(stop_reason="refusal", stop_details=details))
    final = next(e for e in events if e["type"] == "message_delta")
    assert final["delta"] == {"stop_reason": "refusal", "stop_sequence": None, "stop_details": details}
    assert message["content"] == [] and message["stop_details"] == details


def test_every_stop_reason_is_sent_as_scripted() -> None:
    for reason in ("pause_turn", "max_tokens", "model_context_window_exceeded", "stop_sequence", "end_turn"):
        step = t.Turn(content=[{"type": "text", "text": "Partial"}], stop_reason=reason)
        if reason == "stop_sequence":
            step.stop_sequence = "###"
        _, message, _ = streamed(step)
        assert message["stop_reason"] == reason
        assert message["stop_sequence"] == ("###" if reason == "stop_sequence" else None)


def test_a_non_streamed_request_gets_the_same_message() -> None:
    script = t.ScriptedTransport(t.turn(t.thinking("Hmm."), t.cited("Cited.", [NEWS])))

    async def ask() -> Any:
        return await script.client().messages.create(
            model="claude-x", max_tokens=100, messages=[{"role": "user", "content": "go"}]
        )

    message = asyncio.run(ask()).model_dump(mode="json", exclude_none=True)
    assert [b["type"] for b in message["content"]] == ["thinking", "text"]
    assert message["content"][1]["citations"][0]["url"] == NEWS[1]
    assert message["content"][0]["signature"] == t.signature_of("Hmm.")
