"""`Chat`: an agent's conversation in a notebook, as an adapter of the runtime's events.

The chat owns an anywidget view (`ChatView`) and a `FrontendSession` (the agent, the
broker of its prompts, the driver of its turns): the prompt lifecycle (answers by id,
timeouts, policies, acks, presence) is the runtime's; the chat only shows events
(`Projection`) and turns the view's messages into actions (`_messages`).
Displaying `chat` in a cell shows its view and a static copy of its transcript (`_static`).
"""

from __future__ import annotations

import asyncio
import logging
import pathlib
import time
from collections.abc import Awaitable, Callable, Collection, Mapping, Sequence
from typing import Any, cast

from typing_extensions import Unpack

from .._exceptions import WidgetError
from ..agent._agent import Agent
from ..api._errors import explain
from ..api._options import OptionArgs
from ..events._events import _Event
from ..external import EXTERNAL_AGENTS, ACPAgent, ClaudeCode
from ..frontend._claude_code import ClaudeCodeSession
from ..frontend._session import FrontendSession
from ..prompts._broker import DEFAULT_FALLBACK, NoFrontendPolicy, PromptBroker
from ..prompts._clock import Clock
from ..prompts._files import MAX_UPLOAD_BYTES, FileInbox
from ..prompts._waiting import NO_FRONTEND_GRACE
from ..results import KeptResults
from ..session._state import PendingFrontendTool, RunResult, ToolResult, Usage
from ._kernel import check_kernel_can_await, current_loop, in_loop, watch_shutdown
from ._messages import dispatch
from ._projection import Projection
from ._reconnect import answer_reconnects
from ._static import StaticCopy, export
from ._toolset_view import container_names
from ._transcript import Transcript, items_from_history
from ._view import ChatView
from ._wire_kernel import Item, PromptState

__all__ = ["Chat"]

log = logging.getLogger("notebook_tools")


def _broker_setting(name: str) -> Any:
    """A chat setting that lives in its broker (`chat.view_ttl` is `chat.broker.frontend_ttl`)."""
    return property(lambda self: getattr(self.broker, name), lambda self, v: setattr(self.broker, name, v))


class Chat:
    """An agent's conversation in a notebook: transcript, prompts, input box, Stop button.

    Args:
        agent: The agent to drive (or an `nt.ClaudeCode`, the Claude Code CLI, or an `nt.ACPAgent`,
            any Agent Client Protocol agent: their permission requests are this chat's approval
            cards); None for a prompt-only widget (`nt.ask`).
        root: Folder the file picker may choose from (the working directory by default).
        upload_dir: Where uploaded files are saved (a temporary folder by default).
        max_upload_bytes: Largest file accepted (50 MiB by default).
        on_no_frontend: What a prompt does when no view is attached as it opens (views ping every
            5 s): "wait" (default) waits for one; "fail" raises `NoFrontendError`; "fallback" sends
            the fallback message at once; "retry" looks for a view `max_retries` times with backoff.
        fallback_message: What the model is told when nobody can answer; `{name}` is the tool.
        max_retries: How often "retry" checks for a view (waiting 0.5 s, 1 s, 2 s, ...).
        no_frontend_grace: Seconds an open prompt waits with no view attached before the fallback
            (60; None: forever); it ends headless runs, as prompts have no timeout unless set.
        approval_timeout: Seconds an approval card waits before the call is denied (None: no limit).
        clock: The prompts' time source (`nt.testing.FakeClock` lets a test move time on).
    """

    def __init__(
        self,
        agent: Agent | ClaudeCode | ACPAgent | None = None,
        *,
        root: str | pathlib.Path | None = None,
        upload_dir: str | pathlib.Path | None = None,
        max_upload_bytes: int = MAX_UPLOAD_BYTES,
        notice: str = "",
        on_no_frontend: NoFrontendPolicy = "wait",
        fallback_message: str = DEFAULT_FALLBACK,
        max_retries: int = 4,
        no_frontend_grace: float | None = NO_FRONTEND_GRACE,
        approval_timeout: float | None = None,
        clock: Clock | None = None,
    ) -> None:
        self.agent = agent
        # Claude Code is driven by a session of its own (its cards in this chat's broker, Stop
        # interrupting the CLI); everything below reads only the session and its events.
        session_type: Callable[..., FrontendSession] = (
            ClaudeCodeSession if isinstance(agent, EXTERNAL_AGENTS) else FrontendSession
        )
        self.session = session_type(
            agent,
            files=FileInbox(root=root, upload_dir=upload_dir, max_upload_bytes=max_upload_bytes),
            on_no_frontend=on_no_frontend,
            fallback_message=fallback_message,
            max_retries=max_retries,
            no_frontend_grace=no_frontend_grace,
            approval_timeout=approval_timeout,
            clock=clock,
            on_event=self._on_event,
            on_busy=self._set_busy,
            on_stopped=self._stopped,
            on_error=self._failed,
        )
        self.broker: PromptBroker = self.session.broker
        self.view = ChatView(
            lambda: repr(self),
            mode="chat" if agent is not None else "ask",
            max_upload_bytes=max_upload_bytes,
            notice=notice,
        )
        self.transcript = Transcript(self.post)
        self.static = StaticCopy(self.transcript.items.values, summary=lambda: repr(self))
        self.view.add_class(self.static.view_class)  # the live view hides this chat's static copy
        self.projection = Projection(self.view, self.transcript, agent if isinstance(agent, Agent) else None)
        self._loop: asyncio.AbstractEventLoop | None = current_loop()
        self._last_error_item: str | None = None
        self.view.on_msg(self._on_custom_msg)
        self.view.observe(self._answers_changed, names="answers")
        if isinstance(agent, Agent):
            state = agent.state
            self._rebuild(state.messages, state.usage, state.held_results, container_names(agent))
            self.session.restore_prompts()
            self.projection.refresh_toolset()  # the Tools menu: tools run by hand, grouped by plugin
            watch_shutdown(self, self._detach)
        elif isinstance(agent, EXTERNAL_AGENTS):  # its turns before a restart, as its saved session kept them
            self._rebuild(agent.shown.history, agent.shown.usage)
        answer_reconnects()  # a reloaded page gets its widgets back while a cell awaits this chat

    def _rebuild(
        self,
        messages: list[dict[str, Any]],
        usage: Usage,
        held: Sequence[ToolResult] = (),
        containers: Collection[str] = (),
    ) -> None:
        """The transcript and status line of a conversation kept before this chat (a restart, a resume)."""
        for item in items_from_history(messages, held, containers):
            self.transcript.items[item["id"]] = item
        self.projection.seen_history(messages)
        self.view.usage = usage.model_dump()

    def __repr__(self) -> str:
        kind, n = "Chat" if self.agent is not None else "Prompt", len(self.transcript)
        return f"<notebook_tools.{kind}: {n} items, {len(self.broker.prompts)} prompts, {self.view.status}>"

    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        return self.view._repr_mimebundle_(**kwargs)

    def _ipython_display_(self) -> None:  # a prompt-only widget (`nt.ask`) shows no static copy
        self.static.display(self.view, with_copy=self.agent is not None)

    def export(self, path: str | pathlib.Path) -> pathlib.Path:
        """Write the transcript (sanitized) to `path`: an HTML page (.html, .htm) or markdown (.md)."""
        return export(self.transcript.items.values(), path)

    # -- what the view shows (read-only views of the runtime) ----------------------------------------

    @property
    def prompts(self) -> dict[str, PromptState]:
        """Every prompt of this chat, open and closed, by tool_use_id (the view syncs only the open ones)."""
        return {k: cast(PromptState, p.model_dump()) for k, p in self.broker.prompts.items()}

    status = property(lambda self: str(self.view.status), doc="The status line: idle, running, ... error.")
    busy = property(lambda self: bool(self.view.busy), doc="Whether a turn is under way.")
    error = property(lambda self: str(self.view.error), doc="The last refused answer or message, as shown.")

    @property
    def results(self) -> KeptResults:
        """What tools returned, live, by tool_use_id: `chat.results[id].value` (a DataFrame, a figure)."""
        return self.require_driver().agent.results

    errors = property(
        lambda self: self.broker.errors, doc="Every refused message or answer, in order (shown and logged)."
    )
    acks = property(lambda self: self.broker.acks, doc="How each prompt ended (success, failed, ...), by id.")

    @property
    def inbox(self) -> FileInbox:
        """Uploads and workspace picks of the file prompts."""
        return self.broker.files

    @property
    def files(self) -> Mapping[str, bytes]:
        """Every file the person uploaded or picked, by saved path (or by name when it is unique)."""
        return self.broker.files.files

    @property
    def attached(self) -> bool:
        """Whether a view announced itself recently (a browser tab or a scripted user)."""
        return self.broker.attached

    on_no_frontend = _broker_setting("on_no_frontend")
    fallback_message = _broker_setting("fallback_message")
    max_retries = _broker_setting("max_retries")
    view_ttl = _broker_setting("frontend_ttl")

    # -- running turns ----------------------------------------------------------------------------

    async def send(self, text: str, **options: Unpack[OptionArgs]) -> RunResult:
        """Send a message and return when the turn ends; `options` (thinking=, ...) apply to this turn."""
        return await self._in_cell(self.require_driver().say(text, **options))

    def send_nowait(self, text: str, **options: Unpack[OptionArgs]) -> asyncio.Task[RunResult]:
        """Run a turn as a background task on the kernel's loop; the cell returns at once."""
        driver = self.require_driver()
        return driver.start(driver.say(text, **options))

    async def retry(self) -> RunResult:
        """Request again after a turn failed (API errors that outlasted the retries); the Retry button."""
        return await self._in_cell(self.require_driver().agent.retry())

    async def continue_turn(self) -> RunResult:
        """Finish a paused turn (its answers waited for again), or carry on a reply cut off (Continue)."""
        driver = self.require_driver()
        paused = driver.agent.state.status in ("awaiting_frontend_tools", "awaiting_approval")
        return await self._in_cell(driver.paused() if paused else driver.agent.continue_turn())

    def stop(self) -> None:
        """Stop the running turn at once (the Stop button): streaming, a running tool, open prompts."""
        if self.driver is not None:
            self.driver.stop()

    interrupt = stop

    async def settled(self, timeout: float | None = None) -> None:
        """Return once no turn runs and its MCP apps ask nothing (TimeoutError after `timeout` s)."""
        await self.require_driver().settled(timeout)

    async def run_tool(self, name: str, arguments: dict[str, Any]) -> ToolResult:
        """Run a manual or both-mode tool by hand; it shows in the transcript and the model hears of it."""
        return await self.require_driver().run_tool(name, arguments)

    async def collect(self, pending: list[PendingFrontendTool]) -> list[ToolResult]:
        """Ask the person for each call and wait for the answers (or timeouts); used by `nt.ask`."""
        self._loop = asyncio.get_running_loop()
        return await self.broker.collect(pending)

    @classmethod
    def resume(cls, agent_uuid: str, *, agent: Agent, **kwargs: Any) -> Chat:
        """Rebuild a chat from the store (after a kernel restart): transcript, prompts and all.

        Answers given before the restart stay answered; open prompts (approvals too) get a fresh
        timeout and are waited for in the background, so answering them in the widget finishes the
        turn. Backend calls that were running when the kernel went away run again (at-least-once).
        """
        agent.load(agent_uuid)
        chat = cls(agent, **kwargs)
        if current_loop() is not None:
            chat.require_driver().carry_on()
        return chat

    @property
    def driver(self) -> FrontendSession | None:
        """The session that drives this chat's turns (None for a prompt-only widget)."""
        return self.session if self.agent is not None else None

    def require_driver(self) -> FrontendSession:
        """The session that drives this chat's turns (a prompt-only widget has none)."""
        if self.agent is None:
            raise WidgetError("this widget has no agent; it only shows prompts")
        return self.session

    async def _in_cell(self, first: Awaitable[RunResult]) -> RunResult:
        """Run a turn in the awaiting cell's own task (so Stop can cancel it)."""
        try:
            check_kernel_can_await()
        except WidgetError:
            if asyncio.iscoroutine(first):
                first.close()
            raise
        self._loop = asyncio.get_running_loop()
        return await self.require_driver().in_this_task(first)

    # -- what the driver reports ----------------------------------------------------------------------

    def _set_busy(self, busy: bool) -> None:
        self.view.busy = busy
        if not busy:  # the turn ended (idle, stopped or failed, its notices shown)
            self.static.refresh()
        if busy and self._last_error_item is not None:  # a new attempt: the old Retry button goes away
            self.transcript.upsert({"id": self._last_error_item, "retry": False})
            self._last_error_item = None

    def _stopped(self) -> None:
        self.view.status, self.view.status_detail = "stopped", ""
        self.transcript.upsert(
            {"id": f"n{time.time_ns()}", "kind": "notice", "text": "Stopped.", "level": "info"}
        )

    def _failed(self, exc: BaseException, retryable: bool) -> None:
        item_id, said = f"n{time.time_ns()}", explain(exc)  # a sentence; the details folded
        retry = retryable and said.retry  # never offered where asking again fails the same way
        notice: Item = {"id": item_id, "kind": "notice", "text": said.sentence, "details": said.details}
        self.transcript.upsert({**notice, "level": "error", "retry": retry})
        self._last_error_item = item_id if retry else None

    def _detach(self) -> None:
        """The kernel is shutting down: leave the session as saved (a restart resumes it)."""
        if self.driver is not None:
            self.driver.detach()

    # -- the view's messages ---------------------------------------------------------------------------

    def post(self, content: dict[str, Any], buffers: list[bytes] | None = None) -> None:
        """Send a custom message to every view."""
        self.view.send(content, buffers)
        if content.get("type") == "cleared":  # /clear: the saved notebook shows the new, empty chat
            self.static.refresh()

    def refuse(self, message: str) -> None:
        """Report a refused message in the widget (and the log)."""
        self.broker.refuse(message)

    def _on_custom_msg(self, _widget: Any, content: Any, buffers: list[Any]) -> None:
        # Copy buffers now: the memoryviews may not outlive this call.
        self._in_loop(dispatch, self, content, [bytes(b) for b in buffers or []])

    def _answers_changed(self, change: dict[str, Any]) -> None:
        self._in_loop(self._take_answers, change["new"])

    def _take_answers(self, answers: Any) -> None:
        if not isinstance(answers, dict):
            self.refuse(f"answers must be an object keyed by tool_use_id, not {type(answers).__name__}")
            return
        for tool_use_id, answer in answers.items():
            self.broker.answer(str(tool_use_id), answer, frontend="trait")

    def _on_event(self, event: _Event) -> None:
        self.projection(event)
        self.static.on_event(event, driving=self.busy)

    def _in_loop(self, fn: Callable[..., None], *args: Any) -> None:
        in_loop(self._loop, fn, *args)  # comm handlers may run on a subshell thread
