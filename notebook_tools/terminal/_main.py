"""`python -m notebook_tools chat`: the data-cleaning agent (or your own agent) in this terminal.

With ANTHROPIC_API_KEY set it talks to Claude through a plain `anthropic.AsyncAnthropic()` (so
ANTHROPIC_BASE_URL is honoured as the SDK does); without one it talks to a scripted model and
says so first. The agent offers the four built-in prompts and the demo's backend tools
(`_workbench`). `--store PATH` keeps sessions in SQLite, and `--resume AGENT_UUID` carries one on,
asking again whatever it left open.

`--agent PATH_OR_MODULE:CALLABLE` chats with another agent: the callable takes no arguments and
returns an `nt.Agent` (its model, tools and store are its own). `--record PATH` saves every event
of the session as NDJSON when the command ends (`nt.EventRecorder.load` reads it back), and
`--requests PATH` saves the body of every request the scripted model received, as JSON; both are
written however the command ends (/exit, Ctrl+D, the end of piped input, an error).
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import logging
import os
import sys
import traceback
from pathlib import Path
from typing import Any

import anthropic

from .. import testing as t
from .._exceptions import AgentSpecError, NotebookToolsError
from .._loading import agent_factory
from ..agent._agent import DEFAULT_MODEL, Agent
from ..events._bus import EventRecorder
from ..external._claude_code import ClaudeCode
from ..stores._sqlite import SQLiteStore
from ..stores._store import SessionStore
from ..tools._builtins import ask_text, pick_file, select_option, user_confirm
from ..tools._server_tools import server_tool
from ._chat import TerminalChat
from ._scripted import SCRIPTED_CHAT_NOTICE, scripted_transport
from ._workbench import Workbench

__all__ = ["SYSTEM", "AgentSpecError", "build_agent", "load_agent", "main", "script_of"]

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
    server: list[Any] = []  # the scripted model searches the web (scripted results) when asked
    if script is None and os.environ.get("ANTHROPIC_API_KEY"):
        client, name = anthropic.AsyncAnthropic(), model or DEFAULT_MODEL
        notice = f"Model: Claude ({name}); ANTHROPIC_API_KEY is set."
    else:
        client = (script or scripted_transport()).client()
        name, notice = model or "claude-scripted", SCRIPTED_CHAT_NOTICE
        server.append(server_tool("web_search", max_uses=3))
    agent = Agent(
        client=client,
        model=name,
        system=SYSTEM,
        tools=[*Workbench().tools(), *server],
        frontend_tools=[user_confirm, ask_text, select_option, pick_file],
        store=store,
    )
    return agent, notice


def load_agent(spec: str) -> Agent:
    """The agent built by `PATH_OR_MODULE:CALLABLE`, a callable that takes no arguments.

    Raises:
        AgentSpecError: the spec is malformed, the file or callable is missing, or the callable
            returns something other than an `Agent`.
        Exception: whatever loading the module or calling the callable raised.
    """
    agent = agent_factory(spec)()
    if not isinstance(agent, Agent):
        raise AgentSpecError(f"{spec} returned {type(agent).__name__}, not an nt.Agent")
    return agent


def script_of(agent: Agent) -> t.ScriptedTransport | None:
    """The scripted transport that answers `agent`'s requests, or None when a real API does.

    `agent.script` when a build function attached one, else the transport behind the client.
    """
    attached = getattr(agent, "script", None)
    if isinstance(attached, t.ScriptedTransport):
        return attached
    transport = getattr(getattr(agent.client, "_client", None), "_transport", None)
    owner = getattr(getattr(transport, "handler", None), "__self__", None)
    return owner if isinstance(owner, t.ScriptedTransport) else None


def _agent_notice(agent: Agent, spec: str) -> str:
    if script_of(agent) is not None:
        return f"Model: scripted ({agent.model}): replies come from the script of {spec}, not from Claude."
    if not os.environ.get("ANTHROPIC_API_KEY") and not getattr(agent.client, "api_key", None):
        return f"Model: {agent.model} (from {spec}); no ANTHROPIC_API_KEY is set, so requests will fail."
    return f"Model: {agent.model} (from {spec})."


def _writable(option: str, path: str | None) -> str | None:
    """Why `path` cannot be written at the end, or None."""
    if path is None:
        return None
    folder = Path(path).resolve().parent
    return None if folder.is_dir() else f"{option} {path}: no folder {folder}"


def main(
    *,
    model: str | None = None,
    store: str | None = None,
    resume: str | None = None,
    agent: str | None = None,
    claude_code: str | None = None,
    record: str | None = None,
    requests: str | None = None,
) -> int:
    """Run the chat until the person leaves; returns the exit code.

    Args:
        model: The model name of the built-in agent.
        store: A SQLite file the built-in agent saves its sessions in.
        resume: A session to carry on (from `store`, or from the `--agent` agent's own store).
        agent: `PATH_OR_MODULE:CALLABLE` building the agent to chat with, instead of the built-in one.
        claude_code: Chat with Claude Code working in this folder instead (`--resume` names its saved
            conversation in `store`).
        record: Save every event of the session here as NDJSON when the command ends.
        requests: Save the scripted model's request bodies here as JSON when the command ends.
    """
    quiet = logging.getLogger("notebook_tools")  # refusals and failures are shown on screen instead
    if not quiet.handlers:
        handler = logging.StreamHandler(sys.stderr)
        handler.setLevel(logging.ERROR)
        quiet.addHandler(handler)
    problem = _writable("--record", record) or _writable("--requests", requests)
    if claude_code is not None:
        if agent is not None or requests:
            problem = problem or "--claude-code chats with Claude Code: --agent and --requests do not apply"
        elif resume and not store:
            problem = problem or "--resume needs --store PATH: the file the conversation was saved in"
        if problem:
            print(problem, file=sys.stderr)
            return 2
        return _claude_code_chat(claude_code, model=model, store=store, resume=resume, record=record)
    if agent is not None and (model or store):
        problem = "--agent builds its own agent: --model and --store do not apply (its store is used)"
    if resume and not store and agent is None:
        problem = "--resume needs --store PATH: the file the session was saved in"
    if problem:
        print(problem, file=sys.stderr)
        return 2
    if agent is not None:
        try:
            chosen = load_agent(agent)
        except AgentSpecError as exc:
            print(f"--agent: {exc}", file=sys.stderr)
            return 2
        except Exception as exc:
            traceback.print_exc()
            print(
                f"--agent: cannot build the agent from {agent}: {type(exc).__name__}: {exc}", file=sys.stderr
            )
            return 2
        notice = _agent_notice(chosen, agent)
    else:
        chosen, notice = build_agent(model=model, store=SQLiteStore(Path(store)) if store else None)
    script = script_of(chosen)
    if requests and script is None:
        print("--requests needs a scripted model (an agent on a testing.ScriptedTransport)", file=sys.stderr)
        return 2
    if resume:
        try:
            chosen.load(resume)
        except NotebookToolsError as exc:
            print(f"cannot resume {resume}: {exc}", file=sys.stderr)
            return 2
    if store:
        notice += f" Sessions are saved in {store}."
    recorder = EventRecorder()
    unsubscribe = chosen.events.subscribe(recorder)  # before the chat: it asks restored prompts at once
    try:
        return asyncio.run(TerminalChat(chosen, notice=notice).run())
    finally:
        unsubscribe()
        if record:
            recorder.save(record)
        if requests and script is not None:
            Path(requests).write_text(json.dumps(script.requests, indent=1, ensure_ascii=False) + "\n")


def _claude_code_chat(
    folder: str, *, model: str | None, store: str | None, resume: str | None, record: str | None
) -> int:
    """`chat --claude-code DIR`: the CLI driven here, its cards asked as approvals; returns the exit code."""
    if not Path(folder).is_dir():
        print(f"--claude-code {folder}: no such folder", file=sys.stderr)
        return 2
    try:
        claude = ClaudeCode(cwd=folder, store=SQLiteStore(Path(store)) if store else None, session=resume)
    except NotebookToolsError as exc:
        print(f"--claude-code: {exc}", file=sys.stderr)
        return 2
    if model:
        claude.options = dataclasses.replace(claude.options, model=model)
    notice = f"Claude Code (the CLI of claude-agent-sdk) works in {claude.cwd}."
    if store:
        again = f"--store {store} --resume {claude.session}"
        notice += f" Saved in {store} as {claude.session}: {again} carries on."
    recorder = EventRecorder()

    async def run() -> int:
        chat = TerminalChat(claude, notice=notice)
        unsubscribe = chat.broker.events.subscribe(recorder)
        try:
            return await chat.run()
        finally:
            unsubscribe()
            await claude.close()

    try:
        return asyncio.run(run())
    finally:
        if record:
            recorder.save(record)
