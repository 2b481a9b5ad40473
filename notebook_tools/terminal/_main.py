"""`python -m notebook_tools chat`: the data-cleaning agent in this terminal.

With ANTHROPIC_API_KEY set it talks to Claude through a plain `anthropic.AsyncAnthropic()` (so
ANTHROPIC_BASE_URL is honoured as the SDK does); without one it talks to a scripted model and
says so first. The agent offers the four built-in prompts and the demo's backend tools
(`_workbench`). `--store PATH` keeps sessions in SQLite, and `--resume AGENT_UUID` carries one on,
asking again whatever it left open.
"""

from __future__ import annotations

import asyncio
import logging
import os
import sys
from pathlib import Path

import anthropic

from .. import (
    DEFAULT_MODEL,
    Agent,
    NotebookToolsError,
    SessionStore,
    SQLiteStore,
    ask_text,
    pick_file,
    select_option,
    user_confirm,
)
from .. import testing as t
from ._chat import TerminalChat
from ._scripted import SCRIPTED_CHAT_NOTICE, scripted_transport
from ._workbench import Workbench

__all__ = ["SYSTEM", "build_agent", "main"]

SYSTEM = (
    "You help the user clean tabular data in this session's tables (start with `sales`). Look at a "
    "table before you change it, ask the user whenever a choice is theirs (user_confirm, ask_text, "
    "select_option, pick_file), and say briefly what you did."
)


def build_agent(
    *, model: str | None = None, store: SessionStore | None = None, script: t.ScriptedTransport | None = None
) -> tuple[Agent, str]:
    """The chat's agent and a line saying which model answers.

    Claude when ANTHROPIC_API_KEY is set and no `script` is given; else the scripted model
    (`script`, or a new `scripted_transport()`).
    """
    if script is None and os.environ.get("ANTHROPIC_API_KEY"):
        client, name = anthropic.AsyncAnthropic(), model or DEFAULT_MODEL
        notice = f"Model: Claude ({name}); ANTHROPIC_API_KEY is set."
    else:
        client = (script or scripted_transport()).client()
        name, notice = model or "claude-scripted", SCRIPTED_CHAT_NOTICE
    agent = Agent(
        client=client,
        model=name,
        system=SYSTEM,
        tools=Workbench().tools(),
        frontend_tools=[user_confirm, ask_text, select_option, pick_file],
        store=store,
    )
    return agent, notice


def main(*, model: str | None = None, store: str | None = None, resume: str | None = None) -> int:
    """Run the chat until the person leaves; returns the exit code."""
    quiet = logging.getLogger("notebook_tools")  # refusals and failures are shown on screen instead
    if not quiet.handlers:
        handler = logging.StreamHandler(sys.stderr)
        handler.setLevel(logging.ERROR)
        quiet.addHandler(handler)
    if resume and not store:
        print("--resume needs --store PATH: the file the session was saved in", file=sys.stderr)
        return 2
    agent, notice = build_agent(model=model, store=SQLiteStore(Path(store)) if store else None)
    if resume:
        try:
            agent.load(resume)
        except NotebookToolsError as exc:
            print(f"cannot resume {resume}: {exc}", file=sys.stderr)
            return 2
    if store:
        notice += f" Sessions are saved in {store}."
    return asyncio.run(TerminalChat(agent, notice=notice).run())
