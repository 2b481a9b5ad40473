"""The scripted API counts usage as the API does: estimated input tokens, a prompt cache with TTLs, server tools."""

from __future__ import annotations

import asyncio
import json
import math
from typing import Any

from notebook_tools import testing as t
from notebook_tools.testing._cache_model import CHARS_PER_TOKEN, LOOKBACK, prompt_blocks, tokens_of

LONG = "You are a careful data analyst. " * 200  # about 1,900 tokens: past the 1,024-token minimum
SHORT = "Be brief."


def ask(script: t.ScriptedTransport, body: dict[str, Any]) -> dict[str, Any]:
    """The usage the scripted API reports for one non-streamed request."""

    async def go() -> dict[str, Any]:
        message = await script.client().messages.create(**body)
        return message.model_dump(mode="json", exclude_none=True)

    return asyncio.run(go())["usage"]


def body(system: Any, *turns: str, cache: dict[str, Any] | None = None) -> dict[str, Any]:
    messages = [
        {"role": "user" if i % 2 == 0 else "assistant", "content": text} for i, text in enumerate(turns)
    ]
    out = {"model": "claude-x", "max_tokens": 100, "system": system, "messages": messages}
    if cache is not None:
        out["cache_control"] = cache
    return out


def marked(text: str, ttl: str | None = None) -> list[dict[str, Any]]:
    control = {"type": "ephemeral", **({"ttl": ttl} if ttl else {})}
    return [{"type": "text", "text": text, "cache_control": control}]


def test_input_tokens_are_estimated_from_the_request_at_3_5_characters_a_token() -> None:
    request = body(SHORT, "How many rows?")
    usage = ask(t.ScriptedTransport(t.reply("Five.")), request)
    system = {"type": "text", "text": SHORT}
    user = {"type": "text", "text": "How many rows?"}
    assert tokens_of(user) == math.ceil(
        len(json.dumps(user, separators=(",", ":"), sort_keys=True)) / CHARS_PER_TOKEN
    )
    assert usage["input_tokens"] == tokens_of(system) + tokens_of(user)
    assert usage["cache_read_input_tokens"] == usage["cache_creation_input_tokens"] == 0
    assert usage["output_tokens"] == math.ceil(len("Five.") / CHARS_PER_TOKEN)
    again = ask(t.ScriptedTransport(t.reply("Five.")), request)
    assert again == usage  # deterministic


def test_a_turns_explicit_counts_win() -> None:
    step = t.reply("Five.")
    step.input_tokens, step.output_tokens, step.cache_read_input_tokens = 25, 12, 7
    usage = ask(t.ScriptedTransport(step), body(marked(LONG), "hi"))
    assert (usage["input_tokens"], usage["output_tokens"], usage["cache_read_input_tokens"]) == (25, 12, 7)
    assert usage["cache_creation_input_tokens"] == 0


def test_a_marked_prefix_is_written_then_read_until_its_ttl_passes() -> None:
    clock = t.FakeClock()
    script = t.ScriptedTransport(*[t.reply("ok")] * 4, clock=clock.monotonic)
    request = body(marked(LONG), "hi")
    prefix = prompt_blocks(request)[0].tokens
    first = ask(script, request)
    assert first["cache_creation_input_tokens"] == prefix
    assert first["cache_creation"] == {"ephemeral_5m_input_tokens": prefix, "ephemeral_1h_input_tokens": 0}
    clock.advance(240)
    second = ask(script, request)
    assert (second["cache_read_input_tokens"], second["cache_creation_input_tokens"]) == (prefix, 0)
    assert second["input_tokens"] == first["input_tokens"]  # the message after the breakpoint
    clock.advance(240)  # 8 minutes in, but the read at 4 minutes refreshed the entry
    assert ask(script, request)["cache_read_input_tokens"] == prefix
    clock.advance(301)
    assert ask(script, request)["cache_creation_input_tokens"] == prefix  # expired: written again


def test_an_hour_ttl_outlives_five_minutes_and_is_reported_apart() -> None:
    clock = t.FakeClock()
    script = t.ScriptedTransport(*[t.reply("ok")] * 2, clock=clock.monotonic)
    request = body(marked(LONG, "1h"), "hi")
    first = ask(script, request)
    assert first["cache_creation"]["ephemeral_1h_input_tokens"] == first["cache_creation_input_tokens"] > 0
    clock.advance(1800)
    assert ask(script, request)["cache_read_input_tokens"] == first["cache_creation_input_tokens"]


def test_a_prefix_below_the_minimum_is_never_cached_even_if_marked() -> None:
    script = t.ScriptedTransport(*[t.reply("ok")] * 2)
    request = body(marked(SHORT), "hi")
    for _ in range(2):
        usage = ask(script, request)
        assert usage["cache_creation_input_tokens"] == usage["cache_read_input_tokens"] == 0
    small = t.ScriptedTransport(t.reply("ok"), min_cacheable=4)  # another model's minimum
    assert ask(small, request)["cache_creation_input_tokens"] > 0


def test_automatic_caching_moves_its_breakpoint_and_reads_the_previous_one() -> None:
    script = t.ScriptedTransport(*[t.reply("ok")] * 2)
    auto = {"type": "ephemeral"}
    first_body = body(LONG, "first question", cache=auto)
    first = ask(script, first_body)
    assert first["cache_creation_input_tokens"] == sum(b.tokens for b in prompt_blocks(first_body))
    assert first["input_tokens"] == 0
    second_body = body(LONG, "first question", "first answer", "second question", cache=auto)
    second = ask(script, second_body)
    assert second["cache_read_input_tokens"] == first["cache_creation_input_tokens"]
    new = prompt_blocks(second_body)[-2:]
    assert second["cache_creation_input_tokens"] == sum(b.tokens for b in new)


def test_a_hit_is_looked_for_at_most_20_blocks_before_a_breakpoint() -> None:
    auto = {"type": "ephemeral"}
    turns = ["q0", "a0", "q1"]
    for later, hit in ((LOOKBACK, True), (LOOKBACK + 1, False)):
        script = t.ScriptedTransport(*[t.reply("ok")] * 2)
        first = ask(script, body(LONG, *turns, cache=auto))
        grown = [*turns, *[f"m{i}" for i in range(later)]]  # the breakpoint moves `later` blocks on
        read = ask(script, body(LONG, *grown, cache=auto))["cache_read_input_tokens"]
        assert read == (first["cache_creation_input_tokens"] if hit else 0), later


def test_server_tool_requests_are_counted_from_the_reply() -> None:
    reply = t.turn(
        t.web_search("a"), t.web_search("b"), t.web_fetch("https://example.org/", "Example", "text"), "Done."
    )
    usage = ask(t.ScriptedTransport(reply), body(SHORT, "search"))
    assert usage["server_tool_use"] == {"web_search_requests": 2, "web_fetch_requests": 1}
    assert "server_tool_use" not in ask(t.ScriptedTransport(t.reply("plain")), body(SHORT, "hi"))


def test_a_scripted_reply_says_so_in_its_usage_and_costs_nothing_while_a_priced_one_costs_as_claudes() -> (
    None
):
    import notebook_tools as nt

    def run(script: t.ScriptedTransport) -> Any:
        agent = nt.Agent(client=script.client(), model="claude-sonnet-4-6")
        return asyncio.run(agent.run("How many rows?")).usage

    request = body(SHORT, "How many rows?")
    assert ask(t.ScriptedTransport(t.reply("Five.")), request)["scripted"] is True
    assert "scripted" not in ask(t.ScriptedTransport(t.reply("Five."), priced=True), request)
    # streamed through the agent: estimated tokens counted, the scripted requests named, no cost
    scripted = run(t.ScriptedTransport(t.reply("Five.")))
    assert scripted.requests == scripted.scripted_requests == 1 and scripted.input_tokens > 0
    assert scripted.cost_usd == 0.0 and scripted.unpriced_requests == 0
    priced = run(t.ScriptedTransport(t.reply("Five."), priced=True))
    assert priced.scripted_requests == 0 and priced.cost_usd > 0
