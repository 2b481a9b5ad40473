"""The HTTP front end answers an MCP server's elicitation: server-everything (npm) asks mid-call during a
held run, the question reaches the HTTP client as an `awaiting_frontend_acks` element, and the client's
ack (accept with content, decline, or a URL opened on a click) reaches the server."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
from collections.abc import Iterator
from typing import Any

import httpx

import notebook_tools as nt
from notebook_tools import testing as t
from notebook_tools.server import create_app
from tests.mcp.servers import children, everything_stdio
from tests.server.test_acks import _ack, _held
from tests.support.http_helpers import TOKEN, live_server, text_of
from tests.support.readiness import wait_until


def served(tool: str, arguments: dict[str, Any], *sampled: t.Step) -> Any:
    """An app whose agent calls server-everything's `tool` (its own server process per request);
    `sampled`: the model's replies to the server's sampling requests."""

    def make() -> nt.Agent:
        script = t.ScriptedTransport(
            t.turn(t.tool_use("everything", id="open")),
            t.turn(t.tool_use(tool, arguments, id="call")),
            *sampled,
            lambda body: t.reply("Heard: " + json.dumps(body["messages"][-1]["content"])[:3000]),
        )
        return nt.Agent(script.client(), model="claude-test", mcp_servers=[everything_stdio()])

    return create_app(make, token=TOKEN, hold=True)


@contextlib.contextmanager
def reaped() -> Iterator[set[int]]:
    """Yields the processes there were; any started since are ended afterwards (if a test failed)."""
    before = children()
    try:
        yield before
    finally:
        for pid in children() - before:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGTERM)


def ask_over_http(
    tool: str, arguments: dict[str, Any], answer: Any, *sampled: t.Step
) -> tuple[list[Any], str]:
    """Run `tool` held; each question the server asks is acked with `answer(call)`: (the calls, the reply)."""
    asked: list[Any] = []

    async def on_pause(calls: list[dict[str, Any]]) -> None:
        for call in calls:
            asked.append(call)
            ack = await _ack(base, {"toolCallId": call["tool_use_id"], **answer(call)})
            assert ack.status_code == 200 and ack.json() == {"ok": True}, ack.text

    with reaped() as before, live_server(served(tool, arguments, *sampled)) as base:
        messages = asyncio.run(_held(base, on_pause))
        # while the app still runs: the run's MCP server ended with it (the runner closed its agent)
        wait_until(lambda: not children() - before, "the run's MCP server to end")
    return asked, text_of(messages)


def test_a_form_elicitation_is_answered_by_the_http_client():
    asked, reply = ask_over_http(
        "trigger-elicitation-request",
        {},
        lambda call: {"status": "success", "output": json.dumps({"name": "Ada Lovelace"})},
    )
    [call] = asked
    assert call["input"]["server"] == "everything" and call["output_schema"]["required"] == ["name"]
    assert call["input"]["server_message"]  # the server's words, for the client to show as text
    assert (
        "User provided the requested information" in reply and "Ada Lovelace" in reply and "accept" in reply
    )


def test_a_declined_elicitation_reaches_the_server_as_decline():
    asked, reply = ask_over_http(
        "trigger-elicitation-request", {}, lambda call: {"status": "skipped", "errorText": "not now"}
    )
    assert len(asked) == 1
    assert "User declined to provide the requested information" in reply and '\\"decline\\"' in reply


def test_a_url_elicitation_is_accepted_only_with_the_click_ack():
    url = "https://example.com/served"
    asked, reply = ask_over_http(
        "trigger-url-elicitation",
        {"url": url},
        lambda call: {"status": "success", "output": {"url": call["input"]["url"], "via": "button"}},
    )
    [call] = asked
    assert call["renderer"] == "nt.open_url" and call["input"]["host"] == "example.com"
    assert "User completed the URL elicitation flow" in reply


def test_a_sampling_request_is_approved_twice_by_the_http_client():
    asked, reply = ask_over_http(
        "trigger-sampling-request",
        {"prompt": "Say hi", "maxTokens": 20},
        lambda call: {"status": "success", "output": "yes"},
        t.reply("Hi, server."),
    )
    assert len(asked) == 2 and all(call["input"]["server"] == "everything" for call in asked)
    assert "Hi, server." in reply  # the model's reply, through the agent's own client, back to the server


def test_an_ack_of_a_finished_question_is_not_taken_twice():
    async def go(base: str) -> list[httpx.Response]:
        acks: list[httpx.Response] = []

        async def on_pause(calls: list[dict[str, Any]]) -> None:
            body = {"toolCallId": calls[0]["tool_use_id"], "status": "skipped"}
            acks.append(await _ack(base, body))
            acks.append(await _ack(base, body))  # a double click

        await _held(base, on_pause)
        acks.append(await _ack(base, {"toolCallId": "mcp_unknown", "status": "skipped"}))
        return acks

    with reaped(), live_server(served("trigger-elicitation-request", {})) as base:
        first, again, unknown = asyncio.run(go(base))
    assert first.json() == {"ok": True} and again.json() == {"ok": True, "ignored": True}
    assert unknown.status_code == 404
