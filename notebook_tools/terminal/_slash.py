"""What each slash command does in the terminal (parsed by `_commands.parse_slash`).

Tools run by hand go through `FrontendSession.run_tool`, as the widget's Tools button does: the run shows
as a tool card (from the agent's events) and the model is told about it with the next message.
Arguments missing from the command line are asked one by one, checked against the input schema.
"""

from __future__ import annotations

import asyncio
import uuid
from typing import Any, Protocol

from .._exceptions import AgentBusyError, NotebookToolsError, NothingToRetryError, ToolDefinitionError
from ..agent._agent import Agent
from ..events._prompt import Prompt
from ..frontend._session import FrontendSession
from ..prompts._broker import PromptBroker
from ..session._state import RunResult
from ._ask import Asker
from ._commands import HELP, SlashCommand, coerce_args
from ._menu import CtrlC
from ._render import Screen
from ._reply import Reply
from ._usage import status_rows

__all__ = ["Chat", "SlashCommands"]


class Chat(Protocol):
    """What the slash commands use of a terminal chat (so this module need not import it)."""

    @property
    def agent(self) -> Agent: ...

    session: FrontendSession
    broker: PromptBroker
    screen: Screen
    reply: Reply
    asker: Asker
    manual: asyncio.Task[Any] | None

    @property
    def prompts(self) -> dict[str, Prompt]: ...

    async def attend(self, task: asyncio.Future[RunResult]) -> RunResult | None: ...


class SlashCommands:
    """Runs the slash commands of one terminal chat."""

    def __init__(self, chat: Chat) -> None:
        self.chat = chat

    async def run(self, command: SlashCommand) -> bool:
        """Carry out one command; False means leave."""
        chat, screen = self.chat, self.chat.screen
        if command.kind == "exit":
            return False
        if command.kind == "error":
            screen.problem(f"{command.message} (/help lists the commands)")
        elif command.kind == "help":
            screen.line(HELP)
        elif command.kind == "tools":
            screen.tools(list(chat.agent.tools.values()))
        elif command.kind == "status":
            self.status()
        elif command.kind == "clear":
            self.clear()
        elif command.kind == "retry":
            await self.retry()
        elif command.kind == "continue":
            await self.continue_turn()
        elif command.kind == "plugins":
            screen.plugins(chat.agent.plugins)
        elif command.kind in ("expand", "collapse"):
            self.plugin(command.kind, command.name)
        else:
            await self.run_tool(command.name, command.args)
        return True

    def status(self) -> None:
        """Session, model, state, token counts and open prompts."""
        agent, state = self.chat.agent, self.chat.agent.state
        seen = self.chat.reply.usage  # the last UsageEvent knows the model's context window
        window = (
            seen.context_window if seen is not None and seen.agent_uuid in ("", agent.agent_uuid) else None
        )
        open_prompts = [f"{p.name} ({p.kind})" for p in self.chat.prompts.values() if p.status == "pending"]
        self.chat.screen.pairs(
            [
                ("session", agent.agent_uuid),
                ("model", agent.model),
                ("status", state.status.replace("_", " ")),
                ("messages", str(len(state.messages))),
                *status_rows(state.usage, state.turn_usage, state.context_tokens, window),
                ("open prompts", ", ".join(open_prompts) or "none"),
                ("store", type(agent.store).__name__),
            ]
        )

    def clear(self) -> None:
        """A new, empty session."""
        chat = self.chat
        if chat.session.running:
            chat.screen.problem("a turn is running; stop it (Ctrl+C) before clearing")
            return
        chat.agent.new_session()
        chat.broker.clear()
        chat.prompts.clear()
        chat.screen.notice(f"new session {chat.agent.agent_uuid}")

    def plugin(self, action: str, name: str) -> None:
        """Expand or collapse a plugin by hand; the agent's event prints the line, the model hears of it."""
        chat = self.chat
        if chat.session.running:
            chat.screen.problem("a turn is running; expand or collapse plugins when it has ended")
            return
        before = chat.agent.state.toolset
        try:
            (chat.agent.expand_plugin if action == "expand" else chat.agent.collapse_plugin)(name)
        except (AgentBusyError, ToolDefinitionError) as exc:
            chat.screen.problem(str(exc))
            return
        if chat.agent.state.toolset == before:
            chat.screen.notice(f"{name} is already {action}ed")
        else:
            chat.screen.notice("the model hears of this with your next message")

    async def retry(self) -> None:
        """Request again after a turn failed."""
        chat = self.chat
        if not chat.agent.retryable:
            chat.screen.problem(str(NothingToRetryError()))
            return
        try:
            await chat.attend(chat.session.start(chat.agent.retry()))
        except AgentBusyError as exc:  # a turn is running
            chat.screen.problem(str(exc))

    async def continue_turn(self) -> None:
        """Carry on a reply that stopped early (max_tokens, pause_turn) or a turn left unfinished."""
        chat = self.chat
        if chat.session.running:
            chat.screen.problem("a turn is running; wait for it or press Ctrl+C")
        elif chat.agent.state.continuation is None and chat.agent.state.status == "idle":
            chat.screen.notice("nothing to continue: the last reply ended by itself")
        else:
            await chat.attend(chat.session.start(chat.agent.continue_turn()))

    async def run_tool(self, name: str, args: dict[str, str]) -> None:
        """Run a tool by hand, asking for required arguments the command line left out."""
        chat = self.chat
        found = chat.agent.tools.get(name)
        if chat.session.running:
            chat.screen.problem("a turn is running; run tools by hand when it has ended")
            return
        try:
            arguments = coerce_args(args, found.input_schema if found else None)
        except ValueError as exc:
            chat.screen.problem(str(exc))
            return
        if found is not None and found.executor == "backend" and found.mode != "llm":
            try:
                arguments = await self._missing(found.input_schema, arguments)
            except CtrlC:
                return
        request_id = f"terminal-{uuid.uuid4().hex[:12]}"  # a ManualToolInvoke event, as from the widget
        chat.manual = asyncio.ensure_future(chat.session.run_tool(name, arguments, request_id))
        try:
            await chat.manual
        except asyncio.CancelledError:
            chat.screen.notice(f"{name} was cancelled")
        except NotebookToolsError as exc:
            chat.screen.problem(str(exc))
        else:
            chat.screen.notice("the model hears of this run with your next message")
        finally:
            chat.manual = None

    async def _missing(self, schema: dict[str, Any], arguments: dict[str, Any]) -> dict[str, Any]:
        props = schema.get("properties", {})
        for name in schema.get("required", []):
            if name not in arguments and name in props:
                arguments[name] = await self.chat.asker.field(name, props[name], None, True)
        return arguments
