"""Agents the HTTP server tests serve: scripted models that answer from the request alone.

Every request gets a new agent (and so a new script), on any worker, so each script step
is a function of the request body: the same reply whichever process serves it.
"""

from __future__ import annotations

import asyncio
import copy
from typing import Any

import notebook_tools as nt
from notebook_tools import testing as t

SYSTEM = "You help with data. Ask before changing anything."


def _results(body: dict[str, Any]) -> list[dict[str, Any]]:
    content = body["messages"][-1]["content"]
    if not isinstance(content, list):
        return []
    return [b for b in content if isinstance(b, dict) and b.get("type") == "tool_result"]


def _text_of(result: dict[str, Any]) -> str:
    content = result.get("content")
    if isinstance(content, list):
        return "".join(b.get("text", "") for b in content if isinstance(b, dict))
    return str(content)


def _confirm(body: dict[str, Any]) -> t.Turn:
    results = _results(body)
    if results:
        return t.reply("You answered: " + ", ".join(_text_of(r) for r in results) + ".")
    return t.turn(
        "Let me check with you <b>first</b>.",
        t.tool_use("user_confirm", {"message": "Drop the 12 duplicate rows?"}),
    )


def confirm_agent() -> nt.Agent:
    """Asks `user_confirm` for every message, then says what the answer was."""
    script = t.ScriptedTransport(*([_confirm] * 6))
    return nt.Agent(client=script.client(), system=SYSTEM, frontend_tools=[nt.user_confirm, nt.ask_text])


def _two_questions(body: dict[str, Any]) -> t.Turn:
    if _results(body):
        return t.reply("Thanks, both noted.")
    return t.turn(
        "Two questions.",
        t.tool_use("user_confirm", {"message": "Keep the outliers?"}),
        t.tool_use("ask_text", {"prompt": "Name the cleaned table"}),
    )


def two_questions_agent() -> nt.Agent:
    """Asks two frontend tools in one turn (parallel calls)."""
    script = t.ScriptedTransport(*([_two_questions] * 6))
    return nt.Agent(client=script.client(), system=SYSTEM, frontend_tools=[nt.user_confirm, nt.ask_text])


def _open_url(body: dict[str, Any]) -> t.Turn:
    results = _results(body)
    if results:
        return t.reply("Browser said: " + _text_of(results[0]))
    return t.turn("Opening the docs.", t.tool_use("open_url", {"url": "https://example.com/docs"}))


def open_url_agent(timeout: float = 2.0) -> nt.Agent:
    """Calls the browser-executed `open_url` (acknowledged by the browser, 2 s timeout by default)."""
    script = t.ScriptedTransport(*([_open_url] * 6))
    quick = copy.copy(nt.open_url)
    quick.timeout = timeout
    return nt.Agent(client=script.client(), system=SYSTEM, frontend_tools=[quick])


@nt.tool
async def slow_count(table: str) -> str:
    """Count a table's rows (slowly: this one runs until its run is stopped or its client leaves).

    Args:
        table: The table.
    """
    await asyncio.Event().wait()
    return f"{table} has 12 rows"


@nt.tool(needs_approval=True)
def drop_rows(table: str, count: int) -> str:
    """Drop rows from a table.

    Args:
        table: The table.
        count: How many rows.
    """
    return f"dropped {count} rows from {table}"


def _approval(body: dict[str, Any]) -> t.Turn:
    results = _results(body)
    if results:
        return t.reply("Result: " + _text_of(results[0]))
    return t.turn("I will drop them.", t.tool_use("drop_rows", {"table": "sales", "count": 12}))


def approval_agent() -> nt.Agent:
    """Calls a backend tool that needs approval."""
    script = t.ScriptedTransport(*([_approval] * 6))
    return nt.Agent(client=script.client(), system=SYSTEM, tools=[drop_rows])


def failing_agent() -> nt.Agent:
    """Its model answers with an error whose text carries a key-shaped secret."""
    script = t.ScriptedTransport(t.HTTPFault(400, "bad request with sk-ant-api03-SECRETSECRETSECRET inside"))
    return nt.Agent(client=script.client(max_retries=0), system=SYSTEM, frontend_tools=[nt.user_confirm])
