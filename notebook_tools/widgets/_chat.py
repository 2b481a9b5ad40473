"""`Chat`: the anywidget that shows an agent's transcript and answers its frontend tools.

The kernel runs the agent; this widget is the "frontend" of its frontend tools.
Pending calls appear in the synced `prompts` trait (which also records each
answer, so a reloaded page shows answered prompts as answered). A view answers
under the call's tool_use_id, by an "answer" message or the `answers` trait; the
kernel checks it, ignores stale and duplicate answers, and resolves the waiting
future on the event loop's own thread (handlers may run on a comm subshell thread).
"""

from __future__ import annotations

import asyncio
import importlib.metadata
import logging
import pathlib
import signal
import sys
import threading
import time
import weakref
from collections.abc import Awaitable, Callable
from typing import Any, Literal, NamedTuple

import anywidget
import traitlets

from .._agent import Agent
from .._approvals import ApprovalDecision, PendingApproval
from .._events import _Event
from .._exceptions import (
    AgentBusyError,
    ConfigurationError,
    NoFrontendError,
    ToolResultError,
    WidgetError,
)
from .._state import FrontendAck, PendingFrontendTool, RunResult, ToolResult
from .._tools import Tool
from ._answers import SKIPPED, AnswerError, prompt_kind, timed_out_text, to_result
from ._files import MAX_UPLOAD_BYTES, FileInbox
from ._messages import dispatch
from ._protocol import PromptKind, PromptState
from ._transcript import Transcript, items_from_history, preview

__all__ = ["Chat"]

log = logging.getLogger("notebook_tools")
STATIC = pathlib.Path(__file__).parent.parent / "static"

NoFrontendPolicy = Literal["wait", "fail", "fallback", "retry"]
DEFAULT_FALLBACK = "Frontend disconnected. Tool '{name}' unavailable."
VIEW_TTL = 15.0
"""Seconds a view counts as attached after its last hello or ping (views ping every 5 s)."""


class Chat(anywidget.AnyWidget):
    """An agent's conversation in a notebook: transcript, prompts, input box, Stop button.

    Args:
        agent: The agent to drive; None for a prompt-only widget (`nt.ask`).
        root: Folder the file picker may choose from (the working directory by default).
        upload_dir: Where uploaded files are saved (a temporary folder by default).
        max_upload_bytes: Largest file accepted (50 MiB by default).
        on_no_frontend: What a prompt does when no view of the widget is attached (views announce
            themselves and ping): "wait" (default) waits up to the tool's timeout, then sends the
            model the fallback message; "fail" raises `NoFrontendError` at once; "fallback" sends
            the fallback message at once; "retry" waits for a view with backoff, up to
            `max_retries` times, then sends the fallback message.
        fallback_message: What the model is told when nobody can answer; `{name}` is the tool.
        max_retries: How often "retry" checks for a view (waiting 0.5 s, 1 s, 2 s, ...).
        approval_timeout: Seconds an approval card waits before the call is denied (None: no limit).
    """

    _esm = STATIC / "widget.js"
    _css = STATIC / "widget.css"

    mode = traitlets.Unicode("chat").tag(sync=True)
    status = traitlets.Unicode("idle").tag(sync=True)
    status_detail = traitlets.Unicode("").tag(sync=True)
    busy = traitlets.Bool(False).tag(sync=True)
    usage = traitlets.Dict().tag(sync=True)
    prompts = traitlets.Dict().tag(sync=True)
    answers = traitlets.Any(default_value={}).tag(sync=True)
    """A view may write answers here: {tool_use_id: {"value": ...} | {"skip": true}}.

    Our front end sends each answer as an "answer" custom message instead: ipywidgets
    holds back a view's second state update until the kernel reports idle, which it
    does not do while a cell sits in `await chat.send(...)`; custom messages are never
    held back. Both paths go through the same checks.
    """
    error = traitlets.Unicode("").tag(sync=True)
    notice = traitlets.Unicode("").tag(sync=True)
    max_upload_bytes = traitlets.Int(MAX_UPLOAD_BYTES).tag(sync=True)
    tools: traitlets.List[dict[str, Any]] = traitlets.List().tag(sync=True)
    """Tools the person may run by hand (mode "manual" or "both"): name, description, input_schema."""

    def __init__(
        self,
        agent: Agent | None = None,
        *,
        root: str | pathlib.Path | None = None,
        upload_dir: str | pathlib.Path | None = None,
        max_upload_bytes: int = MAX_UPLOAD_BYTES,
        notice: str = "",
        on_no_frontend: NoFrontendPolicy = "wait",
        fallback_message: str = DEFAULT_FALLBACK,
        max_retries: int = 4,
        approval_timeout: float | None = 300.0,
        **kwargs: Any,
    ) -> None:
        if on_no_frontend not in ("wait", "fail", "fallback", "retry"):
            raise ConfigurationError(
                f"on_no_frontend must be 'wait', 'fail', 'fallback' or 'retry', not {on_no_frontend!r}"
            )
        super().__init__(
            mode="chat" if agent is not None else "ask", max_upload_bytes=max_upload_bytes, **kwargs
        )
        self.agent = agent
        self.inbox = FileInbox(root=root, upload_dir=upload_dir, max_upload_bytes=max_upload_bytes)
        self.transcript = Transcript(self._send_msg)
        self.errors: list[str] = []
        """Every refused message or answer, in order (also shown in the widget and logged)."""
        self.acks: dict[str, FrontendAck] = {}
        """How each prompt ended (success, failed, timeout), by tool_use_id."""
        self.on_no_frontend: NoFrontendPolicy = on_no_frontend
        self.fallback_message = fallback_message
        self.max_retries = max_retries
        self.approval_timeout = approval_timeout
        self.view_ttl = VIEW_TTL
        self._views: dict[str, float] = {}
        self._last_error_item: str | None = None
        self._tools: dict[str, Tool] = dict(agent.tools) if agent is not None else {}
        self._waiting: dict[str, asyncio.Future[_Taken]] = {}
        self._early: dict[str, _Taken] = {}
        self._accepting = asyncio.Lock()
        self._detached = False
        self._taken: dict[str, Any] = {}
        self._refused: dict[str, Any] = {}
        self._task: asyncio.Task[RunResult] | None = None
        self._loop: asyncio.AbstractEventLoop | None = _current_loop()
        if notice:
            self.notice = notice
        self.on_msg(self._on_custom_msg)
        if agent is not None:
            agent.events.subscribe(self._on_event)
            for item in items_from_history(agent.state.messages):
                self.transcript.items[item["id"]] = item
            self._restore_prompts(agent)
            self.usage = agent.state.usage.model_dump()
            _watch_shutdown(self)
            self.tools = [
                {"name": t.name, "description": t.description, "input_schema": t.input_schema}
                for t in agent.tools.values()
                if t.mode != "llm" and t.executor == "backend"
            ]

    def __repr__(self) -> str:
        kind = "Chat" if self.mode == "chat" else "Prompt"
        counts = f"{len(self.transcript)} items, {len(self.prompts)} prompts"
        return f"<notebook_tools.{kind}: {counts}, {self.status}>"

    @property
    def files(self) -> dict[str, bytes]:
        """Bytes of every file the person uploaded or picked, by file name."""
        return self.inbox.files

    # -- running turns -----------------------------------------------------------------------

    async def send(self, text: str) -> RunResult:
        """Send a message and return when the turn ends; prompts are answered in the widget."""
        return await self._in_cell(self._require_agent().run(text))

    def send_nowait(self, text: str) -> asyncio.Task[RunResult]:
        """Run a turn as a background task on the kernel's loop; the cell returns at once."""
        return self._start(self._require_agent().run(text))

    async def retry(self) -> RunResult:
        """Request again after a turn failed (API errors that outlasted the retries); the Retry button."""
        return await self._in_cell(self._require_agent().retry())

    async def continue_turn(self) -> RunResult:
        """Wait again for the answers of a paused turn (after `NoFrontendError` or a restart); finish it."""
        return await self._in_cell(self._paused())

    async def _in_cell(self, first: Awaitable[RunResult]) -> RunResult:
        """Run a turn in the awaiting cell's own task (so Stop can cancel it)."""
        try:
            _check_kernel_can_await()
            if self._task is not None and not self._task.done():
                raise WidgetError("a turn is already running in this chat")
        except WidgetError:
            _close(first)
            raise
        self._loop = asyncio.get_running_loop()
        self._task = asyncio.current_task()
        restore = _stop_on_sigint(self._loop, self.stop)
        try:
            return await self._turn(first)
        finally:
            restore()
            self._task = None

    async def _paused(self, *, fresh_timeouts: bool = False) -> RunResult:
        result = self._require_agent().paused_result()
        if not fresh_timeouts:
            return result
        now = time.time()
        return result.model_copy(
            update={
                "pending_frontend_tools": [
                    p.model_copy(update={"requested_at": now}) for p in result.pending_frontend_tools
                ],
                "pending_approvals": [
                    p.model_copy(update={"requested_at": now}) for p in result.pending_approvals
                ],
            }
        )

    @classmethod
    def resume(cls, agent_uuid: str, *, agent: Agent, **kwargs: Any) -> Chat:
        """Rebuild a chat from the store (after a kernel restart): transcript, prompts and all.

        Answers given before the restart stay answered; open prompts (approvals too) get a fresh
        timeout and are waited for in the background, so answering them in the widget finishes the
        turn. Backend calls that were running when the kernel went away run again (at-least-once).
        """
        agent.load(agent_uuid)
        chat = cls(agent, **kwargs)
        status = agent.state.status
        if status != "idle" and _current_loop() is not None:
            first = agent.continue_turn() if status == "running" else chat._paused(fresh_timeouts=True)
            chat._start(first)
        return chat

    def _restore_prompts(self, agent: Agent) -> None:
        """Prompts of the session's open turn: answered ones as answered, open ones pending."""
        state = agent.state
        calls = {b["id"]: b for m in state.messages[-1:] for b in _blocks(m) if b.get("type") == "tool_use"}
        for result in state.held_results:
            block = calls[result.tool_use_id]
            tool = self._tools.get(block["name"])
            if tool is None or tool.executor != "frontend":
                continue
            call = PendingFrontendTool(
                tool_use_id=result.tool_use_id, name=block["name"], input=block["input"]
            )
            self._open_prompts([call])
            status = "skipped" if result.content == SKIPPED else ("failed" if result.is_error else "answered")
            self._set_prompt(result.tool_use_id, status=status, answer=preview(result.content))
        self._open_prompts(state.pending_frontend_tools)
        approvals = [
            PendingFrontendTool(
                tool_use_id=p.tool_use_id,
                name=p.name,
                input=p.input,
                timeout=self.approval_timeout,
                requested_at=p.requested_at,
            )
            for p in state.pending_approvals
        ]
        self._open_prompts(approvals, kind="approval")

    def _detach(self) -> None:
        """The kernel is shutting down: leave the session as saved (a restart resumes it)."""
        self._detached = True
        if self.agent is not None:
            self.agent.detach()

    def _start(self, first: Awaitable[RunResult]) -> asyncio.Task[RunResult]:
        loop = self._loop or _current_loop()
        if loop is None:
            _close(first)
            raise WidgetError(
                "a background turn needs a running event loop (it is meant for a Jupyter kernel)"
            )
        self._loop = loop
        if self._task is not None and not self._task.done():
            _close(first)
            raise WidgetError("a turn is already running in this chat")
        task = loop.create_task(self._turn(first))
        task.add_done_callback(_log_task_error)
        self._task = task
        return task

    def stop(self) -> None:
        """Stop the running turn at once (the Stop button): streaming, a running tool, open prompts."""
        if self._task is not None and not self._task.done():
            if self.agent is not None:
                self.agent.interrupt()
            self._task.cancel()

    interrupt = stop

    async def run_tool(self, name: str, arguments: dict[str, Any]) -> ToolResult:
        """Run a manual or both-mode tool by hand; it shows in the transcript and the model hears of it."""
        return await self._require_agent().run_manual(name, arguments)

    def _require_agent(self) -> Agent:
        if self.agent is None:
            raise WidgetError("this widget has no agent; it only shows prompts")
        return self.agent

    async def _turn(self, first: Awaitable[RunResult]) -> RunResult:
        agent = self._require_agent()
        self.busy = True
        if self._last_error_item is not None:  # a new attempt: the old error's Retry button goes away
            self.transcript.upsert({"id": self._last_error_item, "retry": False})
            self._last_error_item = None
        try:
            result = await first
            while result.stop_reason in ("awaiting_frontend_tools", "awaiting_approval"):
                # Each answer is handed to the agent (and saved) as it arrives; then the turn goes on.
                if result.stop_reason == "awaiting_approval":
                    await self._collect_approvals(result.pending_approvals)
                else:
                    await self.collect(result.pending_frontend_tools, accept=self._accept)
                result = await agent.continue_turn()
            return result
        except (asyncio.CancelledError, KeyboardInterrupt):  # Stop, chat.interrupt(), the kernel's ■
            if self._detached:  # the kernel is shutting down: the session stays paused in the store
                raise
            self._cancel_prompts()
            agent.cancel_pending()
            self.status, self.status_detail = "stopped", ""
            self.transcript.upsert(
                {"id": f"n{time.time_ns()}", "kind": "notice", "text": "Stopped.", "level": "info"}
            )
            raise
        except Exception as exc:
            item_id = f"n{time.time_ns()}"
            last = agent.state.messages[-1] if agent.state.messages else None
            retryable = not agent.state.pending_frontend_tools and last is not None and last["role"] == "user"
            notice: Any = {
                "id": item_id,
                "kind": "notice",
                "text": f"{type(exc).__name__}: {exc}",
                "level": "error",
            }
            self.transcript.upsert({**notice, "retry": retryable})  # type: ignore[typeddict-item]
            self._last_error_item = item_id if retryable else None
            raise
        finally:
            self.busy = False

    @property
    def attached(self) -> bool:
        """Whether a view of this widget announced itself recently (a browser tab or a scripted user)."""
        now = time.monotonic()
        return any(now - seen < self.view_ttl for seen in self._views.values())

    async def _collect_approvals(self, pending: list[PendingApproval]) -> list[ToolResult]:
        """Approval cards are prompts too: same answers path, timeouts and no-frontend policies."""
        calls = [
            PendingFrontendTool(
                tool_use_id=p.tool_use_id,
                name=p.name,
                input=p.input,
                timeout=self.approval_timeout,
                requested_at=p.requested_at,
            )
            for p in pending
        ]

        async def accept(result: ToolResult) -> None:
            if result.is_error:  # skipped, timed out, nobody there: the call is not run
                decision = ApprovalDecision(
                    tool_use_id=result.tool_use_id, approved=False, reason=str(result.content)
                )
            else:
                decision = ApprovalDecision.model_validate_json(str(result.content))
            await self._accept(decision)

        return await self.collect(calls, kind="approval", accept=accept)

    async def _accept(self, answer: ToolResult | ApprovalDecision) -> None:
        """Hand one answer to the agent, which checks and saves it (a restart then asks only the rest)."""
        agent = self._require_agent()
        async with self._accepting:
            while True:
                try:
                    await agent.accept([answer])
                    return
                except AgentBusyError:  # a tool run by hand is under way: the answer waits for it
                    await asyncio.sleep(0.05)

    async def collect(
        self,
        pending: list[PendingFrontendTool],
        *,
        kind: PromptKind | None = None,
        accept: Callable[[ToolResult], Awaitable[None]] | None = None,
    ) -> list[ToolResult]:
        """Wait for the person's answer to each pending call (or its timeout, or the no-frontend policy).

        With `accept`, each answer is handed to it as it arrives; an answer it refuses with a
        `ToolResultError` leaves the prompt open with the reason shown, to be answered again.
        """
        self._loop = asyncio.get_running_loop()
        self._open_prompts(pending, kind=kind)
        if not self.attached and self.on_no_frontend != "wait":
            if self.on_no_frontend == "fail":
                names = ", ".join(sorted({c.name for c in pending}))
                raise NoFrontendError(
                    f"No view of this chat is displayed, so nobody can answer {names}. Display the chat "
                    "(end a cell with `chat`), then `await chat.continue_turn()`; or create it with "
                    "on_no_frontend='wait' or 'fallback'."
                )
            if self.on_no_frontend == "retry":
                for attempt in range(self.max_retries):
                    if self.attached:
                        break
                    await asyncio.sleep(0.5 * 2**attempt)
        return list(await asyncio.gather(*(self._wait_one(call, accept) for call in pending)))

    async def _wait_one(
        self, call: PendingFrontendTool, accept: Callable[[ToolResult], Awaitable[None]] | None
    ) -> ToolResult:
        while True:
            taken = await self._next_answer(call)
            if accept is not None:
                try:
                    await accept(taken.result)
                except ToolResultError as exc:  # e.g. over max_result_chars, or an edit into a Blocked zone
                    self._taken.pop(call.tool_use_id, None)
                    reason = getattr(exc, "reason", str(exc))
                    self._set_prompt(call.tool_use_id, status="pending", error=reason)
                    self._refuse(f"the answer for {call.tool_use_id!r} was refused: {reason}")
                    continue
            self._set_prompt(call.tool_use_id, status=taken.status, answer=taken.shown, error="")
            self._ack(call.tool_use_id, taken.ack, output=taken.output, error_text=taken.error_text)
            return taken.result

    async def _next_answer(self, call: PendingFrontendTool) -> _Taken:
        """The next valid answer to `call`, or its timeout, or the no-frontend fallback."""
        early = self._early.pop(call.tool_use_id, None)
        if early is not None:
            return early
        if not self.attached and self.on_no_frontend != "wait":
            return self._fallback(call)
        future: asyncio.Future[_Taken] = asyncio.get_running_loop().create_future()
        self._waiting[call.tool_use_id] = future
        if call.timeout is None:
            return await future
        remaining = max(call.requested_at + call.timeout - time.time(), 0.0)
        try:
            return await asyncio.wait_for(asyncio.shield(future), remaining)
        except TimeoutError:
            self._waiting.pop(call.tool_use_id, None)
            if not self.attached:  # nobody was there to answer: the no-frontend fallback
                return self._fallback(call)
            text = timed_out_text(call.timeout)
            result = ToolResult(tool_use_id=call.tool_use_id, content=text, is_error=True)
            return _Taken(result, "", "timed_out", "timeout", None, text)

    def _fallback(self, call: PendingFrontendTool) -> _Taken:
        text = self.fallback_message.format(name=call.name)
        self._waiting.pop(call.tool_use_id, None)
        result = ToolResult(tool_use_id=call.tool_use_id, content=text, is_error=True)
        return _Taken(result, "no frontend attached", "failed", "failed", None, text)

    def _ack(self, tool_use_id: str, status: Any, *, output: Any = None, error_text: str = "") -> None:
        requested_at = self.prompts.get(tool_use_id, {}).get("requested_at", time.time())
        self.acks[tool_use_id] = FrontendAck(
            tool_use_id=tool_use_id,
            status=status,
            output=output,
            error_text=error_text,
            requested_at=requested_at,
        )

    # -- prompts and answers -----------------------------------------------------------------

    def _open_prompts(self, pending: list[PendingFrontendTool], kind: PromptKind | None = None) -> None:
        new: dict[str, Any] = {}
        for call in pending:
            tool = self._tools.get(call.name)
            call_kind = kind or prompt_kind(tool)
            existing = self.prompts.get(call.tool_use_id)
            if existing is not None and existing["kind"] == call_kind:
                if existing["status"] == "pending" and existing["requested_at"] != call.requested_at:
                    new[call.tool_use_id] = {**existing, "requested_at": call.requested_at}  # a fresh timeout
                continue
            if existing is not None:  # an approved frontend call: its approval card becomes its prompt
                for answers in (self._taken, self._refused, self._early):
                    answers.pop(call.tool_use_id, None)
            new[call.tool_use_id] = PromptState(
                tool_use_id=call.tool_use_id,
                name=call.name,
                kind=call_kind,
                input_schema=tool.input_schema if tool and kind == "approval" else None,
                input=call.input,
                description=tool.description if tool else "",
                status="pending",
                answer="",
                error="",
                timeout=call.timeout,
                requested_at=call.requested_at,
                output_schema=tool.output_schema if tool else None,
            )
        if new:
            self.prompts = {**self.prompts, **new}

    def _set_prompt(self, tool_use_id: str, **changes: Any) -> None:
        self.prompts = {**self.prompts, tool_use_id: {**self.prompts[tool_use_id], **changes}}

    def _cancel_prompts(self) -> None:
        for tool_use_id, prompt in self.prompts.items():
            if prompt["status"] == "pending":
                self._set_prompt(tool_use_id, status="cancelled")
        self._waiting.clear()

    @traitlets.observe("answers")
    def _answers_changed(self, change: dict[str, Any]) -> None:
        self._in_loop(self._take_answers, change["new"])

    def _take_answers(self, answers: Any) -> None:
        if not isinstance(answers, dict):
            self._refuse(f"answers must be an object keyed by tool_use_id, not {type(answers).__name__}")
            return
        for tool_use_id, answer in answers.items():
            if tool_use_id in self._taken:
                if self._taken[tool_use_id] != answer:
                    self._refuse(f"a second answer for {tool_use_id!r} was ignored: it was already answered")
                    self._taken[tool_use_id] = answer
                continue
            prompt = self.prompts.get(tool_use_id)
            if prompt is None or prompt["status"] != "pending":
                state = "unknown" if prompt is None else prompt["status"].replace("_", " ")
                self._refuse(f"the answer for {tool_use_id!r} was ignored: that prompt is {state}")
                self._taken[tool_use_id] = answer
                continue
            if self._refused.get(tool_use_id, _NOTHING) == answer:
                continue  # the same refused answer, re-sent with the dict: already reported
            try:
                result, shown, status = to_result(
                    prompt["kind"],
                    tool_use_id,
                    prompt["input"],
                    answer,
                    self.inbox,
                    self._tools.get(prompt["name"]),
                    name=prompt["name"],
                    timeout=prompt["timeout"],
                )
            except AnswerError as exc:
                self._refused[tool_use_id] = answer
                self._set_prompt(tool_use_id, error=str(exc))
                self._refuse(f"the answer for {tool_use_id!r} was refused: {exc}")
                continue
            self._taken[tool_use_id] = answer
            ack_status: dict[str, Literal["success", "failed", "timeout"]] = {
                "answered": "success",
                "skipped": "success",
                "failed": "failed",
                "timed_out": "timeout",
            }
            taken = _Taken(
                result,
                shown,
                status,
                ack_status[status],
                result.content if status == "answered" else None,
                str(result.content) if result.is_error else "",
            )
            future = self._waiting.pop(tool_use_id, None)
            if future is not None and not future.done():
                future.set_result(taken)
            else:  # answered before anyone waits (e.g. while a no-frontend retry sleeps)
                self._early[tool_use_id] = taken

    def _refuse(self, message: str) -> None:
        log.warning("notebook_tools widget: %s", message)
        self.errors.append(message)
        self.error = message

    # -- custom messages -----------------------------------------------------------------------

    def _send_msg(self, content: dict[str, Any], buffers: list[bytes] | None = None) -> None:
        # `send` here is the agent-facing coroutine (DESIGN's API); custom messages use the base's send.
        anywidget.AnyWidget.send(self, content, buffers)

    def _on_custom_msg(self, _widget: Any, content: Any, buffers: list[Any]) -> None:
        # Copy buffers now: the memoryviews may not outlive this call.
        self._in_loop(self._dispatch_msg, content, [bytes(b) for b in buffers or []])

    def _dispatch_msg(self, content: Any, buffers: list[bytes]) -> None:
        dispatch(self, content, buffers)

    # -- agent events --------------------------------------------------------------------------

    def _on_event(self, event: _Event) -> None:
        kind = getattr(event, "type", "")
        e: Any = event
        if kind == "text_delta":
            self.transcript.add_text(f"r{e.request}", e.text)
        elif kind == "message" and e.message["role"] == "user":
            content = e.message["content"]
            text = (
                content
                if isinstance(content, str)
                else "".join(b.get("text", "") for b in content if b.get("type") == "text")
            )
            if text:
                self.transcript.upsert({"id": f"u{e.index}", "kind": "user", "text": text})
        elif kind == "tool_started":
            status: Literal["pending", "running"] = "pending" if e.executor == "frontend" else "running"
            self.transcript.upsert(
                {
                    "id": e.tool_use_id,
                    "kind": "tool",
                    "name": e.name,
                    "input": e.input,
                    "executor": e.executor,
                    "status": status,
                }
            )
        elif kind == "tool_completed":
            result = e.result
            self.transcript.upsert(
                {
                    "id": e.tool_use_id,
                    "kind": "tool",
                    "name": e.name,
                    "status": "error" if result.is_error else "done",
                    "result": preview(result.content),
                    "is_error": result.is_error,
                    "duration": round(e.duration, 3),
                }
            )
        elif kind == "tool_error":
            self.transcript.upsert(
                {
                    "id": e.tool_use_id,
                    "kind": "tool",
                    "name": e.name,
                    "status": "error",
                    "result": e.error,
                    "is_error": True,
                }
            )
        elif kind == "approval_required":
            self.transcript.upsert(
                {"id": e.tool_use_id, "kind": "tool", "name": e.name, "input": e.input, "status": "pending"}
            )
        elif kind == "awaiting_frontend_tools":
            self._open_prompts(e.pending)
        elif kind == "status":
            self.transcript.flush()
            if e.state == "retrying":
                self._discard_streamed_text()
            with self.hold_sync():  # one comm message for both
                self.status, self.status_detail = e.state, e.detail
        elif kind == "usage":
            self.usage = e.usage.model_dump()

    def _discard_streamed_text(self) -> None:
        for item_id, item in reversed(self.transcript.items.items()):
            if item.get("kind") == "assistant" and item_id.startswith("r"):
                self.transcript.upsert({"id": item_id, "discarded": True})
                return

    # -- threading -----------------------------------------------------------------------------

    def _in_loop(self, fn: Callable[..., None], *args: Any) -> None:
        """Run `fn` on the event loop's thread: comm handlers may run on a subshell thread."""
        loop = self._loop
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if loop is None or loop.is_closed() or running is loop or not loop.is_running():
            fn(*args)
        else:
            loop.call_soon_threadsafe(fn, *args)


_NOTHING = object()


class _Taken(NamedTuple):
    """An answer that passed the prompt's own checks, waiting to be accepted by the agent."""

    result: ToolResult
    shown: str
    """What the prompt shows once answered."""
    status: str
    """The prompt's status once answered: answered, skipped, failed, timed_out."""
    ack: Literal["success", "failed", "timeout"]
    output: Any
    error_text: str


def _blocks(message: dict[str, Any]) -> list[dict[str, Any]]:
    content = message.get("content")
    return content if isinstance(content, list) and message.get("role") == "assistant" else []


_LIVE_CHATS: weakref.WeakSet[Chat] = weakref.WeakSet()
_WATCHED_SHELLS: set[int] = set()


def _watch_shutdown(chat: Chat) -> None:
    """Tell `chat` when the kernel shuts down or restarts, so it does not take that for a Stop.

    ipykernel sets the shell's `exit_now` on a shutdown request (restart included), before it
    stops the event loop and running turns are cancelled.
    """
    _LIVE_CHATS.add(chat)
    shell = sys.modules["IPython"].get_ipython() if "IPython" in sys.modules else None
    if shell is None or not hasattr(shell, "observe") or id(shell) in _WATCHED_SHELLS:
        return
    _WATCHED_SHELLS.add(id(shell))

    def exiting(change: dict[str, Any]) -> None:
        if change.get("new"):
            for live in list(_LIVE_CHATS):
                live._detach()

    shell.observe(exiting, names="exit_now")


def _current_loop() -> asyncio.AbstractEventLoop | None:
    """The running loop: in a Jupyter kernel, cell code runs while the kernel's loop runs."""
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None


def _check_kernel_can_await() -> None:
    """Refuse `await chat.send` where it would deadlock (ipykernel before 7.4)."""
    if "ipykernel" not in sys.modules:
        return
    installed = importlib.metadata.version("ipykernel")
    version = tuple(int(p) for p in installed.split(".")[:2] if p.isdigit())
    if version < (7, 4):
        raise WidgetError(
            f"`await chat.send(...)` would deadlock on ipykernel {installed}: the widget's answers "
            "cannot reach a cell that is awaiting. Use `chat.send_nowait(...)` (or type into the widget), or "
            "upgrade to ipykernel >= 7.4."
        )


def _stop_on_sigint(loop: asyncio.AbstractEventLoop, stop: Callable[[], None]) -> Callable[[], None]:
    """Make the kernel's interrupt (the ■ button) stop an awaiting turn; returns the undo.

    Measured on ipykernel 7.4: SIGINT does not interrupt a cell that sits in `await`, so while a
    turn awaits, the loop itself handles SIGINT by stopping the turn; the previous handler
    (KeyboardInterrupt for synchronous cells) comes back when the turn ends.
    """
    if threading.current_thread() is not threading.main_thread():
        return lambda: None
    previous = signal.getsignal(signal.SIGINT)
    try:
        loop.add_signal_handler(signal.SIGINT, stop)
    except (NotImplementedError, RuntimeError, ValueError):  # not on Unix, or not the main thread's loop
        return lambda: None

    def restore() -> None:
        loop.remove_signal_handler(signal.SIGINT)
        if previous is not None:  # None: a handler not set from Python, left as remove_signal_handler left it
            signal.signal(signal.SIGINT, previous)

    return restore


def _close(awaitable: Awaitable[Any]) -> None:
    if asyncio.iscoroutine(awaitable):
        awaitable.close()  # never awaited: close it so Python does not warn


def _log_task_error(task: asyncio.Task[RunResult]) -> None:
    if not task.cancelled() and task.exception() is not None:
        log.warning("notebook_tools: background turn failed", exc_info=task.exception())
