"""Cassettes record and replay thinking, server tools, citations and the `anthropic-beta` header.

Recorded over real HTTP against the local stand-in of the Messages API (serving the strict scripted
API), replayed with no server and no key: the replayed session is the recorded one, block for block.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

import notebook_tools as nt
from notebook_tools import testing as t
from notebook_tools.api._beta_rules import CONTEXT_BETA
from tests.support.http_helpers import live_server
from tests.support.messages_standin import standin_app

KEY = "sk-ant-api03-" + "THINKINGKEY" * 4
GINZA = ("The all-new Apple Ginza opens", "https://www.apple.com/newsroom/2025/09/ginza/")
SEARCH = {"type": "web_search_20250305", "name": "web_search", "max_uses": 3}


def script() -> t.ScriptedTransport:
    return t.ScriptedTransport(
        t.turn(
            t.thinking("The person wants today's news: search."),
            "Let me search.",
            t.web_search("Apple Ginza", [(*GINZA, "3 hours ago")]),
            t.cited("Apple Ginza reopened on September 26.", [GINZA]),
            t.code_execution("python -c 'print(2 + 2)'", stdout="4\n"),
            "Also, 2 + 2 is 4.",
        ),
        t.turn(t.redacted_thinking(), "You are welcome."),
    )


async def session(client: Any) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    agent = nt.Agent(
        client=client,
        tools=[SEARCH],
        thinking=2048,
        max_tokens=4096,
        context=nt.ContextBudget(clear_tool_results_at=60_000),
    )
    results = [await agent.run("What happened at Apple Ginza?"), await agent.run("Thanks!")]
    dumps = [r.model_dump(exclude={"agent_uuid"}) for r in results]
    return dumps, agent.state.messages


def test_thinking_and_server_tools_record_and_replay(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "news.cassette.json"
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    served = script()
    with live_server(standin_app(served)) as base:
        recorded, history = asyncio.run(session(t.Cassette(path, "record").client(base_url=base)))
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    assert served.refused == [] and served.betas == [[CONTEXT_BETA], [CONTEXT_BETA]]
    data = json.loads(path.read_text())
    requests = [e["request"] for e in data["exchanges"]]
    assert [r["(anthropic-beta)"] for r in requests] == [[CONTEXT_BETA], [CONTEXT_BETA]]
    events = [e for x in data["exchanges"] for e in x["response"]["events"]]
    deltas = {e["delta"]["type"] for e in events if e["type"] == "content_block_delta"}
    assert {"thinking_delta", "signature_delta", "citations_delta", "input_json_delta"} <= deltas
    assert KEY not in path.read_text()
    sent_back = requests[1]["messages"][1]["content"]
    assert [b["type"] for b in sent_back][:4] == [
        "thinking",
        "text",
        "server_tool_use",
        "web_search_tool_result",
    ]
    assert sent_back[0]["signature"] == t.signature_of("The person wants today's news: search.")

    replayed, again = asyncio.run(session(t.Cassette(path, "replay").client()))
    assert replayed == recorded and again == history
    assert recorded[0]["thinking"] == "The person wants today's news: search."
    assert recorded[0]["usage"]["server_tool_use"] == {"web_search_requests": 1}
    kinds = [b["type"] for b in history[1]["content"]]
    assert (
        "bash_code_execution_tool_result" in kinds and history[3]["content"][0]["type"] == "redacted_thinking"
    )


def test_a_replay_with_other_betas_is_a_mismatch(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "news.cassette.json"
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    with live_server(standin_app(script())) as base:
        asyncio.run(session(t.Cassette(path, "record").client(base_url=base)))
    monkeypatch.delenv("ANTHROPIC_API_KEY")

    async def without_budget() -> None:
        agent = nt.Agent(
            client=t.Cassette(path, "replay").client(), tools=[SEARCH], thinking=2048, max_tokens=4096
        )
        await agent.run("What happened at Apple Ginza?")

    with pytest.raises(Exception, match="anthropic-beta"):
        asyncio.run(without_budget())
