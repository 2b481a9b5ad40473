"""A scripted demo conversation and a terminal front end for it (no Jupyter needed).

The demo shows the frontend-agnostic contract: the loop pauses on frontend
tools, the terminal asks the person (or answers by itself with `--auto`), and
`resume` carries on. Its scripted model reads the answers it gets, so the
conversation follows what the person chose.
"""

from __future__ import annotations

import asyncio
import json
import sys
from typing import Any

from .. import testing as t
from ..agent._agent import Agent
from ..session._state import PendingFrontendTool, ToolResult
from ..tools._builtins import ask_text, select_option, user_confirm
from ..tools._tool import tool

__all__ = ["demo_agent", "run_terminal_demo"]

SCRIPTED_NOTICE = "[scripted model: no ANTHROPIC_API_KEY, answers come from a script]"


@tool
def describe_table(name: str) -> str:
    """Describe a table: its columns, types and problems.

    Args:
        name: The table to describe.
    """
    return json.dumps(
        {
            "table": name,
            "rows": 1200,
            "columns": {"price": "object (should be float)", "qty": "int", "region": "str"},
            "nulls": {"price": 31},
            "duplicate_rows": 12,
        }
    )


def _answers(body: dict[str, Any]) -> dict[str, Any]:
    last = body["messages"][-1]["content"]
    return {
        b["tool_use_id"]: b.get("content")
        for b in last
        if isinstance(b, dict) and b.get("type") == "tool_result"
    }


def _after_questions(body: dict[str, Any]) -> t.Turn:
    answers = _answers(body)
    confirm = answers.get("demo_confirm")
    column = answers.get("demo_select")
    name = answers.get("demo_text")
    drop = (
        "I dropped the 12 duplicate rows" if confirm == "yes" else "I kept the duplicate rows, as you asked"
    )
    return t.reply(f"{drop}, converted `{column}` to numbers, and saved the cleaned data as `{name}`.")


def demo_agent(**kwargs: Any) -> Agent:
    """An agent on the scripted model that inspects a table and asks three questions."""
    script = t.ScriptedTransport(
        t.turn(
            "Let me look at the table first.",
            t.tool_use("describe_table", {"name": "sales"}, id="demo_describe"),
        ),
        t.turn(
            "The table has 12 duplicate rows and a mis-typed price column. A few questions:",
            t.tool_use(
                "user_confirm",
                {"message": "Drop the 12 duplicate rows?", "confirm_label": "Drop", "deny_label": "Keep"},
                id="demo_confirm",
            ),
            t.tool_use(
                "select_option",
                {"prompt": "Which column should become numeric?", "options": ["price", "qty", "region"]},
                id="demo_select",
            ),
            t.tool_use(
                "ask_text", {"prompt": "Name of the cleaned table?", "default": "sales_clean"}, id="demo_text"
            ),
        ),
        _after_questions,
    )
    kwargs.setdefault("tools", [describe_table])
    kwargs.setdefault("frontend_tools", [user_confirm, select_option, ask_text])
    kwargs.setdefault("system", "You clean tabular data. Ask before destructive changes.")
    return Agent(client=script.client(), model="claude-scripted", **kwargs)


def _terminal_answer(call: PendingFrontendTool, auto: bool) -> ToolResult:
    args = call.input
    if call.name == "user_confirm":
        question = f"{args['message']} [{args.get('confirm_label', 'Yes')}/{args.get('deny_label', 'No')}] "
        reply = "yes" if auto else input(question).strip().lower()
        answer = "yes" if reply in ("y", "yes", str(args.get("confirm_label", "")).lower()) else "no"
    elif call.name == "select_option":
        options = list(args["options"])
        listing = ", ".join(f"{i + 1}) {o}" for i, o in enumerate(options))
        reply = "1" if auto else input(f"{args['prompt']} {listing}: ").strip()
        answer = options[int(reply) - 1] if reply.isdigit() and 0 < int(reply) <= len(options) else options[0]
    else:
        default = str(args.get("default", ""))
        answer = default if auto else (input(f"{args['prompt']} [{default}] ").strip() or default)
    if auto:
        print(f"  ? {call.name}: answered {answer!r} (--auto)")
    return ToolResult(tool_use_id=call.tool_use_id, content=answer)


async def _run(auto: bool) -> int:
    agent = demo_agent()
    agent.events.subscribe(
        lambda e: (
            print(e.text, end="", flush=True)
            if e.type == "text_delta"
            else print(f"\n  > {e.name}({json.dumps(e.input)})")
            if e.type == "tool_started"
            else None
        )
    )
    print(SCRIPTED_NOTICE)
    print("you: Clean the sales table")
    result = await agent.run("Clean the sales table")
    while result.stop_reason == "awaiting_frontend_tools":
        print(f"\n[paused: {len(result.pending_frontend_tools)} question(s) for you]")
        answers = [_terminal_answer(call, auto) for call in result.pending_frontend_tools]
        result = await agent.resume(answers)
    print(f"\n[{result.stop_reason}; {result.usage.requests} requests, session {result.agent_uuid}]")
    return 0


def run_terminal_demo(auto: bool | None = None) -> int:
    """Run the demo in this terminal; answers itself when `auto` or when stdin is not a terminal."""
    return asyncio.run(_run(auto if auto is not None else not sys.stdin.isatty()))
