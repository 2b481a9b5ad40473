"""Record, replay and auto: byte-identical replays, recorded failures, unused requests, overwrites."""

from __future__ import annotations

import asyncio
from typing import Any

import anthropic
import pytest

import notebook_tools as nt
from notebook_tools import testing as t
from tests.support.cassette_recorder import KEY, SYSTEM, cli, record, replay, run
from tests.support.http_helpers import live_server
from tests.support.messages_standin import standin_app


def test_unicode_emoji_and_carriage_returns_replay_byte_identically(tmp_path, monkeypatch):
    text = 'Zeile 1\r\nZeile 2\rdrei 🎉👩‍👩‍👧 \u2028 \x00 \\n "q" \ud7ff end'
    script = t.ScriptedTransport(t.reply(text), t.reply("é" * 3), text_chunk=1)
    path, results, _ = record(tmp_path, monkeypatch, script, ["a", "b"])
    assert results[0]["text"] == text
    assert replay(path, ["a", "b"]) == results


def test_a_request_the_api_kept_failing_replays_as_the_same_failure(tmp_path, monkeypatch):
    """The SDK gave up after its retries; the notebook carried on. The replay must give the same error."""
    script = t.ScriptedTransport(*[t.HTTPFault(529)] * 3, t.reply("Later."))
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    path = tmp_path / "c.json"

    async def session(client: anthropic.AsyncAnthropic) -> list[Any]:
        agent = nt.Agent(client=client, system=SYSTEM)
        out: list[Any] = []
        try:
            await agent.run("a")
        except anthropic.APIStatusError as exc:
            out.append(type(exc).__name__)
        out.append((await agent.run("b")).text)
        return out

    with live_server(standin_app(script)) as base:
        recorded = asyncio.run(session(t.Cassette(path, "record").client(base_url=base)))
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    assert recorded[-1] == "Later."
    assert asyncio.run(session(t.Cassette(path, "replay").client())) == recorded
    # auto with a key: the SDK retries the recorded failure; each retry is answered with it again,
    # nothing is re-recorded (no server is running) and the file is unchanged.
    before = path.read_bytes()
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    cas = t.Cassette(path, "auto")
    again = asyncio.run(session(cas.client(base_url="http://127.0.0.1:9")))
    assert again == recorded and cas.mismatch is None and not cas.recording
    assert path.read_bytes() == before


def test_auto_without_a_key_replays_and_with_a_key_replays_what_matches_without_the_network(
    tmp_path, monkeypatch
):
    script = t.ScriptedTransport(t.reply("One."), t.reply("Two."))
    path, results, _ = record(tmp_path, monkeypatch, script, ["a", "b"])
    before = path.read_bytes()
    assert asyncio.run(run(t.Cassette(path, "auto").client(), ["a", "b"])) == results
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    cas = t.Cassette(path, "auto")
    assert asyncio.run(run(cas.client(base_url="http://127.0.0.1:9"), ["a", "b"])) == results
    assert path.read_bytes() == before and cas.served == 2


def test_a_replay_making_fewer_requests_says_which_are_unused_and_more_fails(tmp_path, monkeypatch):
    script = t.ScriptedTransport(t.reply("One."), t.reply("Two."), t.reply("Three."))
    path, _, _ = record(tmp_path, monkeypatch, script, ["a", "b", "c"])
    cas = t.Cassette(path, "replay")
    asyncio.run(run(cas.client(), ["a"]))
    assert "requests 2-3 of 3 were not replayed" in cas.unused() and "--after 1" in cas.unused()
    assert cli("prune", str(path), "--after", "1").returncode == 0
    assert replay(path, ["a"])[0]["text"] == "One."
    with pytest.raises(anthropic.BadRequestError, match="nothing was recorded for it"):
        replay(path, ["a", "b"])


def test_record_overwrites_an_existing_cassette_and_two_cassettes_work_at_once(tmp_path, monkeypatch):
    first, _, _ = record(tmp_path, monkeypatch, t.ScriptedTransport(t.reply("Old.")), ["a"], name="one.json")
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    other = tmp_path / "two.json"

    async def both(base_one: str, base_two: str) -> tuple[str, str]:
        one, two = t.Cassette(first, "record"), t.Cassette(other, "record", secrets=[r"ONLY\w+"])
        a = nt.Agent(client=one.client(base_url=base_one), system=SYSTEM)
        b = nt.Agent(client=two.client(base_url=base_two), system=SYSTEM)
        ra, rb = await asyncio.gather(a.run("x"), b.run("y"))
        return ra.text, rb.text

    with (
        live_server(standin_app(t.ScriptedTransport(t.reply("New ONLYTWO."), text_chunk=2))) as one,
        live_server(standin_app(t.ScriptedTransport(t.reply("Other ONLYTWO."), text_chunk=3))) as two,
    ):
        assert asyncio.run(both(one, two)) == ("New ONLYTWO.", "Other ONLYTWO.")
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    assert "Old." not in first.read_text()
    assert replay(first, ["x"])[0]["text"] == "New ONLYTWO."  # each cassette has its own patterns
    assert replay(other, ["y"], secrets=(r"ONLY\w+",))[0]["text"] == "Other [redacted]."


async def abandon_then_ask(client: anthropic.AsyncAnthropic) -> list[str]:
    params: dict[str, Any] = {"model": "claude-sonnet-4-6", "max_tokens": 100}
    seen = []
    async with client.messages.stream(messages=[{"role": "user", "content": "long"}], **params) as stream:
        async for event in stream:
            seen.append(event.type)
            if event.type == "content_block_delta":
                break  # the reader stops early (an interrupt, enough read)
    final = await client.messages.create(messages=[{"role": "user", "content": "short"}], **params)
    return [*seen, final.content[0].text]


def test_a_stream_the_client_abandons_is_recorded_as_far_as_it_was_read_and_replays(tmp_path, monkeypatch):
    script = t.ScriptedTransport(t.reply("A long answer " * 20), t.reply("Short."), text_chunk=4)
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    path = tmp_path / "c.json"
    with live_server(standin_app(script)) as base:
        recorded = asyncio.run(abandon_then_ask(t.Cassette(path, "record").client(base_url=base)))
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    assert recorded[-1] == "Short."
    assert asyncio.run(abandon_then_ask(t.Cassette(path, "replay").client())) == recorded
