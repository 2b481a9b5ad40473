"""`TerminalChat`: an agent's conversation in a terminal, as one more adapter of the event bus.

It holds a `FrontendSession` (the agent, the broker of its prompts, the driver of its turns),
exactly as the notebook's `Chat` does: turns run as the session's background task; display
events are rendered as they arrive (streamed text, tool cards); each pending prompt, known
from `PromptChanged` events, is asked in the order the prompts opened, and its answer goes to
`broker.answer(..., frontend="terminal")` in the widget's shapes, so both front ends produce the
same action events. A refused answer (`AnswerRefused`, or the prompt's `error` when the agent
refused it) is shown and asked again. Ctrl+C stops a running turn (`session.stop()`: every open
call closed, the next message carries on) and clears the line at the input prompt; Ctrl+D, /exit
or the end of piped input leaves.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import sys
import threading
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, TextIO, cast

from prompt_toolkit.input import Input
from prompt_toolkit.input.base import PipeInput
from prompt_toolkit.output import DummyOutput, Output
from rich.console import Console

from .._exceptions import WidgetError
from ..agent._agent import Agent
from ..api._errors import explain
from ..events._activity import PROGRESS_EVENTS
from ..events._prompt import Prompt
from ..events._toolset_text import container_answer, container_names, event_line
from ..external import EXTERNAL_AGENTS, ACPAgent, ClaudeCode
from ..frontend._claude_code import ClaudeCodeSession
from ..frontend._session import FrontendSession
from ..prompts._broker import DEFAULT_FALLBACK, NoFrontendPolicy, PromptBroker
from ..prompts._files import FileInbox
from ..session._state import RunResult
from ..stores._store import InMemoryStore
from ..tools._tool import Tool
from ._ask import Asker
from ._commands import parse_slash
from ._input import Keyboard, Lines, Reader
from ._menu import CtrlC, EndOfInput
from ._prompt_loop import FRONTEND, PromptLoop
from ._render import Screen, make_console
from ._reply import Reply
from ._slash import SlashCommands
from ._status import StatusLines

__all__ = ["FRONTEND", "TerminalChat"]

HEARTBEAT = 5.0


class TerminalChat:
    """An agent's conversation in a terminal: streamed replies, tool cards, prompts, slash commands.

    Args:
        agent: The agent to drive (its session, e.g. one loaded with `agent.load`, carries on), or an
            `nt.ClaudeCode` (the Claude Code CLI) or `nt.ACPAgent` (an Agent Client Protocol agent):
            their permission requests asked here as approvals; the slash commands of a toolkit
            agent, /tools, /retry, ..., do not apply to them.
        console: Where output goes (a rich `Console`); by default stdout, plain under NO_COLOR or
            when stdout is not a terminal.
        input: A prompt_toolkit `Input` (e.g. `create_pipe_input()` in tests), a text stream or
            an iterable of lines (read a line per answer); by default the terminal's keyboard when
            stdin is a terminal, else stdin's lines.
        output: The prompt_toolkit `Output` for prompts and menus (a `DummyOutput` for a pipe input).
        root: Folder file prompts pick from (the working directory by default).
        notice: A line shown first (e.g. which model answers).
        on_no_frontend, fallback_message: As for the broker (see `nt.Chat`).
        approval_timeout: Seconds an approval card waits before the call is denied (None, the
            default: until the person answers).
    """

    def __init__(
        self,
        agent: Agent | ClaudeCode | ACPAgent,
        *,
        console: Console | None = None,
        input: Input | TextIO | Iterable[str] | None = None,
        output: Output | None = None,
        root: str | Path | None = None,
        notice: str = "",
        on_no_frontend: NoFrontendPolicy = "wait",
        fallback_message: str = DEFAULT_FALLBACK,
        approval_timeout: float | None = None,
    ) -> None:
        self.claude = agent if isinstance(agent, EXTERNAL_AGENTS) else None
        self._agent = agent if isinstance(agent, Agent) else None
        self.screen = Screen(console if console is not None else make_console())
        self.status = StatusLines(self.screen)
        self.reply = Reply(self.screen)
        session_type: Callable[..., FrontendSession] = (
            ClaudeCodeSession if self.claude is not None else FrontendSession
        )
        self.session = session_type(
            agent,
            files=FileInbox(root=root),
            on_no_frontend=on_no_frontend,
            fallback_message=fallback_message,
            approval_timeout=approval_timeout,
            on_event=self._on_event,
            on_stopped=self._stopped,
            on_error=self._failed,
        )
        self.broker: PromptBroker = self.session.broker
        self.reader: Reader = _reader(input, output, self.screen)
        if isinstance(self.reader, Keyboard):  # the session's tokens and cost under the `you>` prompt
            self.reader.toolbar = lambda: self.reply.toolbar(self._session_id)
        # Claude Code's cards bring their tools into the broker's own map while they are open
        own = cast(dict[str, Tool], self.broker.tools.maps[0])  # (a dict: the broker makes it so)
        tools = own if self.claude is not None else self.agent.tools
        self.asker = Asker(self.reader, self.screen, tools, self.broker.files)
        self.commands = SlashCommands(self)
        self.notice = notice
        self.asking = PromptLoop(self.broker, self.asker, self.screen, on_ctrl_c=self.stop)
        self.last_result: RunResult | None = None
        self._heartbeat: asyncio.Task[None] | None = None
        self._names: dict[str, str] = {}  # tool_use_id -> tool, to say which tool changed the tool set
        self.manual: asyncio.Task[Any] | None = None
        """A tool run by hand (/tool), which Ctrl+C cancels."""
        if self._agent is not None:
            self.session.restore_prompts()  # a loaded session's open prompts are asked again

    @property
    def agent(self) -> Agent:
        """The toolkit agent driven (a chat with Claude Code has none)."""
        if self._agent is None:
            raise WidgetError("this terminal drives Claude Code: it has no toolkit agent")
        return self._agent

    @property
    def _session_id(self) -> str:
        if self.claude is not None:
            return self.claude.session_id or ""
        return self.agent.agent_uuid

    # -- the conversation ------------------------------------------------------------------------

    async def run(self) -> int:
        """Read messages and commands until /exit, Ctrl+D or the end of the input; returns 0."""
        restore = _on_sigint(self._sigint)
        self._attach()
        try:
            self._welcome()
            if self._agent is not None and self._agent.state.status != "idle":
                task = self.session.carry_on()
                if task is not None:
                    await self.attend(task)
            while True:
                try:
                    line = await self.reader.line("you> ", chat=True)
                except CtrlC:
                    continue  # the line is cleared; Ctrl+D or /exit leaves
                if not line.strip():
                    continue
                command = parse_slash(line)
                if command is None:
                    await self.send(line)
                elif self.claude is not None and command.kind not in ("help", "exit", "error"):
                    self.screen.problem(f"/{command.kind} is not available with Claude Code")
                elif not await self.commands.run(command):
                    break
        except EndOfInput:
            self._leave()
        finally:
            restore()
            self._detach_presence()
        self.screen.notice("bye")
        return 0

    async def send(self, text: str) -> RunResult | None:
        """Send a message and answer its prompts here; the result, or None when stopped or failed."""
        if self.session.running:
            self.screen.problem("a turn is running; wait for it or press Ctrl+C")
            return None
        self._attach()
        return await self.attend(self.session.start(self.session.say(text)))  # a UserInput event too

    @property
    def prompts(self) -> dict[str, Prompt]:
        """Every prompt as its last `PromptChanged` event showed it, in the order they opened."""
        return self.asking.prompts

    def stop(self) -> None:
        """Stop the running turn at once: streaming, a running tool, open prompts."""
        self.session.stop()

    def close(self) -> None:
        """Stop listening to the agent's events; the broker no longer counts this terminal as attached."""
        self._detach_presence()
        self.session.close()

    # -- a turn and its prompts --------------------------------------------------------------------

    async def attend(self, task: asyncio.Future[RunResult]) -> RunResult | None:
        """Ask each prompt the turn opens, in order, until the turn ends."""
        self._attach()
        try:
            await self.asking.attend(task)
        except EndOfInput:  # the person left while prompts were open: not a Stop
            if not task.done():
                self.session.detach()  # the session stays paused as saved
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task
            raise
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await task  # its failure is reported by `_failed`
        failed = task.cancelled() or task.exception() is not None
        self.reply.turn_ended(None if failed else task.result().stop_reason)  # why it ended, its usage
        if failed:
            return None
        self.last_result = task.result()
        return self.last_result

    # -- events -----------------------------------------------------------------------------------

    def _on_event(self, event: Any) -> None:
        kind = event.type
        if kind in PROGRESS_EVENTS:
            self.status.report(event, self._names.get(event.tool_use_id, "tool"))
            return
        if kind in ("tool_completed", "tool_error"):
            self.status.end(event.tool_use_id)  # its line goes before its result is printed
        elif kind == "status" and event.state not in ("running", "retrying"):
            self.status.clear()  # paused for a person or ended: no line stays under a prompt
        if self.reply.on_event(event):  # thinking, text, server tools, citations, notices, usage
            return
        if kind == "tool_started" and event.executor == "backend":
            self._names[event.tool_use_id] = event.name
            self.screen.tool_started(event.name, event.input)
        elif kind == "tool_completed" and self._executor(event.name) == "backend":  # answers show as "→ ..."
            app = getattr(event.shown, "kind", "") == "mcp.app"  # the text is its app's fallback here
            self.screen.tool_completed(event.name, event.result.content, event.duration, app)
        elif kind == "tool_error" and not self._container_answer(event):
            self.screen.tool_failed(event.name, event.error)
        elif kind == "toolset_changed":
            source = self._names.get(event.tool_use_id, "")
            self.screen.event(event_line(event.change, event.names, event.by, event.tools, source))
        elif kind == "status" and event.state == "retrying":
            self.screen.notice(f"retrying: {event.detail}")
        elif kind in ("prompt_changed", "answer_refused"):
            self.asking.on_event(event)

    def _container_answer(self, event: Any) -> bool:
        """A plugin's or skill's container answered (the loop reports it as a tool_error): no failure."""
        if self._agent is None:
            return False
        containers = container_names(self.agent.toolset.plugins.values())
        return event.name in containers and container_answer(event.name, event.error) is not None

    def _executor(self, name: str) -> str:
        if self._agent is None:  # Claude Code's calls run in the CLI; its cards are approvals
            return "backend"
        found = self.agent.tools.get(name)
        return found.executor if found is not None else "backend"

    def _stopped(self) -> None:
        self.screen.notice("stopped: every open call was closed; your next message carries on")

    def _failed(self, exc: BaseException, retryable: bool) -> None:
        said = explain(exc)  # one sentence of what happened and what to do; the details dim below
        self.screen.problem(said.sentence, said.details)
        if retryable and said.retry:  # never offered where asking again fails the same way
            self.screen.notice("/retry requests again")

    # -- presence, signals, leaving ----------------------------------------------------------------

    def _attach(self) -> None:
        self.broker.seen(FRONTEND)
        if self._heartbeat is None or self._heartbeat.done():
            self._heartbeat = asyncio.get_running_loop().create_task(self._beat())

    async def _beat(self) -> None:
        while True:
            self.broker.seen(FRONTEND)
            await asyncio.sleep(HEARTBEAT)

    def _sigint(self) -> None:
        if self.session.running:
            self.stop()
        elif self.manual is not None and not self.manual.done():
            self.manual.cancel()
        elif not self.reader.keyboard:
            self.screen.notice("Ctrl+D or /exit leaves")

    def _detach_presence(self) -> None:
        if self._heartbeat is not None:
            self._heartbeat.cancel()
            self._heartbeat = None
        self.broker.gone(FRONTEND)

    def _leave(self) -> None:
        if self._agent is not None and self.agent.state.status != "idle":
            where = (
                "in memory, so it ends with this process"
                if isinstance(self.agent.store, InMemoryStore)
                else "in its store: resume it with --resume"
            )
            self.screen.notice(f"left with open calls: session {self.agent.agent_uuid} stays paused {where}")

    def _welcome(self) -> None:
        if self.notice:
            self.screen.notice(self.notice)
        if self.claude is not None:
            where = self.claude.session_id or "new"
            who = "Claude Code" if isinstance(self.claude, ClaudeCode) else "The ACP agent"
            self.screen.notice(f"{who} in {self.claude.cwd} · session {where} · Ctrl+C stops a turn")
            return
        if self.agent.state.messages:
            containers = container_names(self.agent.toolset.plugins.values())
            self.screen.history(self.agent.state.messages, containers=containers, assistant=self.reply.replay)
        self.screen.notice(
            f"session {self.agent.agent_uuid} · /help for commands · Ctrl+C stops a turn · Ctrl+D leaves"
        )


def _reader(source: Input | TextIO | Iterable[str] | None, output: Output | None, screen: Screen) -> Reader:
    if source is None:
        return Keyboard() if sys.stdin.isatty() else Lines(sys.stdin, screen.write)
    if isinstance(source, str):
        return Lines(source.splitlines(), screen.write)
    if isinstance(source, Input):
        return Keyboard(
            source, output if output is not None or not isinstance(source, PipeInput) else DummyOutput()
        )
    return Lines(source, screen.write)


def _on_sigint(handler: Callable[[], None]) -> Callable[[], None]:
    """Handle SIGINT on the running loop (a turn's Ctrl+C outside a prompt); returns the undo."""
    if threading.current_thread() is not threading.main_thread():
        return lambda: None
    loop = asyncio.get_running_loop()
    previous = signal.getsignal(signal.SIGINT)
    try:
        loop.add_signal_handler(signal.SIGINT, handler)
    except (NotImplementedError, RuntimeError, ValueError):
        return lambda: None

    def restore() -> None:
        loop.remove_signal_handler(signal.SIGINT)
        if previous is not None:
            signal.signal(signal.SIGINT, previous)

    return restore
