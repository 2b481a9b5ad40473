"""The quickstart agent over HTTP: `python -m notebook_tools serve examples/serve_quickstart.py:build`.

Each request gets a new agent from `build()`; sessions live in the server's store, so any
worker resumes any pause. With ANTHROPIC_API_KEY set the agent talks to Claude; without it,
to a scripted model that asks three questions and then sums up the answers.
"""

from __future__ import annotations

import os
from typing import Any

import anthropic

import notebook_tools as nt
from notebook_tools import testing as t

SYSTEM = "You help a data scientist. Ask before you change anything."
_CLAUDE = anthropic.AsyncAnthropic() if os.environ.get("ANTHROPIC_API_KEY") else None


def _scripted(request: dict[str, Any]) -> t.Turn:
    got = t.answers_in(request)
    if got:
        go = "I'll go ahead" if got.get("user_confirm") == "yes" else "I won't touch anything"
        return t.reply(
            f"Thanks! {go}, starting with {got.get('select_option')}, "
            f"and I'll call the report `{got.get('ask_text')}`."
        )
    return t.turn(
        "Before I start, three quick questions.",
        t.tool_use("user_confirm", {"message": "Shall I clean the sales data?"}),
        t.tool_use("select_option", {"prompt": "Which region first?", "options": ["north", "south"]}),
        t.tool_use("ask_text", {"prompt": "Name for the report?", "default": "weekly"}),
    )


def build() -> nt.Agent:
    """The agent for one request."""
    client = _CLAUDE if _CLAUDE is not None else t.ScriptedTransport(_scripted, _scripted).client()
    return nt.Agent(
        client=client,
        system=SYSTEM,
        frontend_tools=[nt.user_confirm, nt.ask_text, nt.select_option],
    )
