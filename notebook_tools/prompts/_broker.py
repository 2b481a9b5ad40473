"""The prompt broker: one prompt lifecycle for every front end.

It owns the open prompts (frontend calls and approval cards), takes answers keyed by tool_use_id
(the first valid answer wins; stale, repeated and unknown ones are refused and reported as events;
a refused answer leaves its prompt open), applies timeouts and the no-frontend policies, records
acks, and knows which front ends are attached. Front ends only show `PromptChanged` events and send
answers, on the event loop's thread (the broker is single-threaded). Nothing here imports Jupyter.
"""

from __future__ import annotations

import asyncio
import logging
from collections import ChainMap
from collections.abc import Callable
from typing import Any, Literal

from .._exceptions import AnswerError, ConfigurationError
from ..events._bus import EventBus
from ..events._events import AnswerRefused, PromptAnswer, PromptChanged
from ..events._prompt import Prompt, PromptKind, prompt_kind, renderer_key
from ..session._result_content import preview_text
from ..session._state import FrontendAck, PendingFrontendTool, ToolResult
from ..tools._tool import Tool
from ._answers import ACKS, Taken, is_skip, timed_out_text, to_result
from ._clock import Clock
from ._files import FileInbox
from ._late_answers import ANSWERED_BEFORE, NOT_TAKEN, late_answer
from ._waiting import NO_FRONTEND_GRACE, LateWindow, before_waiting, first_of, until_answer

__all__ = ["DEFAULT_FALLBACK", "FRONTEND_TTL", "NoFrontendPolicy", "PromptBroker", "Taken"]

log = logging.getLogger("notebook_tools")

NoFrontendPolicy = Literal["wait", "fail", "fallback", "retry"]
DEFAULT_FALLBACK = "Frontend disconnected. Tool '{name}' unavailable."
FRONTEND_TTL = 15.0
"""Seconds a front end counts as attached after it was last seen (views ping every 5 s)."""


class PromptBroker:
    """Open prompts, answers by id, timeouts, no-frontend policies, acks and presence.

    Args:
        tools: The tools whose calls may be prompted (for kinds, schemas and output checks).
        events: Where prompt events go (an agent's bus, so recorders see everything in order).
        files: Uploads and workspace picks for file prompts.
        on_no_frontend: With no front end attached when a prompt opens: "wait" (for one to come,
            up to `no_frontend_grace`), "fail" (raise `NoFrontendError`), "fallback" (at once),
            "retry" (backoff, `max_retries` times, then the fallback).
        fallback_message: What the model is told when nobody can answer; `{name}` is the tool.
        max_retries: How often "retry" looks for a front end (waiting 0.5 s, 1 s, 2 s, ...).
        session: Returns the agent_uuid of the session, for the events.
        no_frontend_grace: Whatever the policy, a prompt that waits while no front end has been
            attached for this many seconds ends with the fallback (None: it waits for one forever).
            Prompts have no timeout unless their author gave one; this ends headless runs.
        clock: The time source (a `FakeClock` lets a test move time on).
    """

    def __init__(
        self,
        tools: dict[str, Tool] | None = None,
        *,
        events: EventBus | None = None,
        files: FileInbox | None = None,
        on_no_frontend: NoFrontendPolicy = "wait",
        fallback_message: str = DEFAULT_FALLBACK,
        max_retries: int = 4,
        session: Callable[[], str] | None = None,
        no_frontend_grace: float | None = NO_FRONTEND_GRACE,
        clock: Clock | None = None,
    ) -> None:
        if on_no_frontend not in ("wait", "fail", "fallback", "retry"):
            raise ConfigurationError(
                f"on_no_frontend must be 'wait', 'fail', 'fallback' or 'retry', not {on_no_frontend!r}"
            )
        self.tools: ChainMap[str, Tool] = ChainMap({}, tools if tools is not None else {})
        """`nt.ask`'s tools, over the agent's own dict (live: a plugin injected later brings its prompts)."""
        self.events = events if events is not None else EventBus()
        self.files = files if files is not None else FileInbox()
        self.on_no_frontend: NoFrontendPolicy = on_no_frontend
        self.fallback_message = fallback_message
        self.max_retries = max_retries
        self.frontend_ttl = FRONTEND_TTL
        self.no_frontend_grace = no_frontend_grace
        self.clock = clock if clock is not None else Clock()
        self.session = session or (lambda: "")
        """The agent_uuid the prompts belong to (stamped on every event the broker publishes)."""
        self.prompts: dict[str, Prompt] = {}
        self.acks: dict[str, FrontendAck] = {}
        """How each prompt ended (success, failed, timeout), by tool_use_id."""
        self.errors: list[str] = []
        """Every refused answer or message, in order."""
        self._frontends: dict[str, float] = {}
        self._waiting: dict[str, asyncio.Future[Taken]] = {}
        self._early: dict[str, Taken] = {}
        self._taken: dict[str, Any] = {}
        self._refused: dict[str, Any] = {}

    # -- presence ------------------------------------------------------------------------------

    def seen(self, frontend: str) -> None:
        """A front end announced itself or pinged."""
        self._frontends[frontend or "anonymous"] = self.clock.monotonic()

    def gone(self, frontend: str) -> None:
        """A front end said goodbye."""
        self._frontends.pop(frontend, None)

    @property
    def attached(self) -> bool:
        """Whether any front end was seen within `frontend_ttl` seconds."""
        return self.clock.monotonic() - self._last_seen() < self.frontend_ttl

    def _last_seen(self) -> float:
        return max(self._frontends.values(), default=float("-inf"))

    # -- prompts -------------------------------------------------------------------------------

    def open(self, pending: list[PendingFrontendTool], kind: PromptKind | None = None) -> None:
        """Open a prompt for each call (an approved call's approval card becomes its prompt)."""
        for call in pending:
            tool = self.tools.get(call.name)
            call_kind = kind or prompt_kind(tool)
            existing = self.prompts.get(call.tool_use_id)
            requested_at = self.clock.stamp(call.requested_at)  # on the broker's clock
            if existing is not None and existing.kind == call_kind:
                if existing.status == "pending" and existing.requested_at != requested_at:
                    self._set(call.tool_use_id, requested_at=requested_at)  # a fresh timeout
                continue
            for answers in (self._taken, self._refused, self._early):
                answers.pop(call.tool_use_id, None)
            self._put(
                Prompt(
                    tool_use_id=call.tool_use_id,
                    name=call.name,
                    kind=call_kind,
                    input=call.input,
                    description=tool.summary if tool else "",
                    timeout=call.timeout,
                    requested_at=requested_at,
                    output_schema=tool.output_schema if tool else None,
                    input_schema=tool.input_schema if tool and call_kind in ("approval", "generic") else None,
                    renderer=renderer_key(tool, call_kind),
                    **_approval_fields(tool, call, call_kind),
                )
            )

    def close_answered(
        self, tool_use_id: str, name: str, arguments: dict[str, Any], result: ToolResult
    ) -> None:
        """Show a call answered before (e.g. before a restart) as answered."""
        self.open([PendingFrontendTool(tool_use_id=tool_use_id, name=name, input=arguments)])
        status = "skipped" if is_skip(result) else ("failed" if result.is_error else "answered")
        self._taken[tool_use_id] = ANSWERED_BEFORE
        self._set(tool_use_id, status=status, answer=preview_text(result.content, 2000))

    def cancel_open(self) -> None:
        """Mark every open prompt cancelled (Stop) and stop waiting for answers."""
        for tool_use_id, prompt in list(self.prompts.items()):
            if prompt.status == "pending":
                self._set(tool_use_id, status="cancelled")
        self._waiting.clear()

    def clear(self) -> None:
        """Forget every prompt and answer (a new session)."""
        self.prompts.clear()
        for answers in (self._taken, self._refused, self._early, self._waiting):
            answers.clear()

    def _put(self, prompt: Prompt) -> None:
        self.prompts[prompt.tool_use_id] = prompt
        self.events.publish_nowait(PromptChanged(prompt=prompt, agent_uuid=self.session()))

    def _set(self, tool_use_id: str, **changes: Any) -> None:
        self._put(self.prompts[tool_use_id].model_copy(update=changes))
        if changes.get("error") or changes.get("status", "pending") != "pending":  # refused, or closed
            self.files.close(tool_use_id, changes.get("status", "pending"))  # its uploads kept or deleted

    # -- answers -------------------------------------------------------------------------------

    def answer(self, tool_use_id: str, answer: Any, frontend: str = "") -> str | None:
        """Take a front end's answer to one prompt (call on the event loop's thread); never raises.

        Returns None when the answer was taken (the agent may still refuse it: then the prompt
        reopens with its `error`), else why it was refused or ignored.
        """
        action = PromptAnswer(
            tool_use_id=tool_use_id, answer=answer, frontend=frontend, agent_uuid=self.session()
        )
        self.events.publish_nowait(action)
        prompt = self.prompts.get(tool_use_id)
        late = late_answer(tool_use_id, prompt, self._taken.get(tool_use_id, NOT_TAKEN), answer)
        if late is not None:
            reason, report = late
            if report:  # a different answer, or an unknown prompt: shown once
                self.refuse(reason)
                self._taken[tool_use_id] = answer
            else:  # a double submit, or a stale card's ack after a timeout or Stop
                log.info("notebook_tools: %s", reason)
            return reason
        assert prompt is not None  # pending
        if self._refused.get(tool_use_id, NOT_TAKEN) == answer:  # a new attempt carries a new `at`
            return prompt.error  # the same refused answer, sent again with a trait update: already reported
        try:
            tool = self.tools.get(prompt.name)
            result, shown, status = to_result(
                prompt.kind, tool_use_id, prompt.input, answer, self.files, tool,
                name=prompt.name, timeout=prompt.timeout,
            )  # fmt: skip
        except AnswerError as exc:
            self._refused[tool_use_id] = answer
            self._set(tool_use_id, error=str(exc))
            self.refuse(f"The answer was refused: {exc}", tool_use_id)
            return str(exc)
        self._taken[tool_use_id] = answer
        output = result.content if status == "answered" else None
        error_text = str(result.content) if result.is_error else ""
        taken = Taken(result, shown, status, ACKS[status], output, error_text)
        future = self._waiting.pop(tool_use_id, None)
        if future is not None and not future.done():
            future.set_result(taken)
        else:  # answered before anyone waits (e.g. while a no-frontend retry sleeps)
            self._early[tool_use_id] = taken
        return None

    def taken(self, tool_use_id: str) -> bool:
        """Whether an answer to this prompt was taken (it may still be in the agent's hands)."""
        return tool_use_id in self._taken

    def refuse(self, message: str, tool_use_id: str = "") -> None:
        """Report a refused answer or message to every front end (and the log)."""
        log.info("notebook_tools: %s %s", tool_use_id, message)  # a WARNING reaches stderr: a red cell block
        self.errors.append(message)
        self.events.publish_nowait(
            AnswerRefused(tool_use_id=tool_use_id, reason=message, agent_uuid=self.session())
        )

    # -- waiting -------------------------------------------------------------------------------

    async def collect(
        self, pending: list[PendingFrontendTool], *, kind: PromptKind | None = None
    ) -> list[ToolResult]:
        """Open a prompt for each call and wait for its answer, final once taken (`nt.ask`, `PromptUI`).

        An agent's prompts are opened and settled by its `FrontendSession` instead.
        """
        self.open(pending, kind=kind)
        await self.wait_for_frontend(pending)

        async def one(call: PendingFrontendTool) -> ToolResult:
            return self.settle(call.tool_use_id, await self.next_answer(call))

        return list(await asyncio.gather(*(one(call) for call in pending)))

    async def wait_for_frontend(self, pending: list[PendingFrontendTool]) -> None:
        """Apply the no-frontend policy before waiting: "fail" raises `NoFrontendError`, "retry" backs off."""
        await before_waiting(self.on_no_frontend, lambda: self.attached, pending, self.max_retries)

    def reopen(self, tool_use_id: str, reason: str) -> None:
        """The taken answer was refused downstream (e.g. over max_result_chars): the prompt is open again."""
        self._taken.pop(tool_use_id, None)
        self._set(tool_use_id, status="pending", error=reason)
        self.refuse(f"The answer was refused: {reason}", tool_use_id)

    def settle(self, tool_use_id: str, taken: Taken) -> ToolResult:
        """The answer stands: the prompt shows it, its ack is recorded; returns the call's result."""
        self._set(tool_use_id, status=taken.status, answer=taken.shown, error="")
        self.acks[tool_use_id] = FrontendAck(
            tool_use_id=tool_use_id,
            status=taken.ack,
            output=taken.output,
            error_text=taken.error_text,
            requested_at=self.prompts[tool_use_id].requested_at,
        )
        return taken.result

    async def next_answer(self, call: PendingFrontendTool, late: LateWindow | None = None) -> Taken:
        """The next answer to an open prompt that passed its checks; not yet final.

        A person's answer, or its timeout's, or the no-frontend fallback's (see `settle`, `reopen`).
        With `late` (the calls of its pause), a timed-out prompt stays open for a late answer until
        no call of the pause waits any more; without, it closes at its timeout.
        """
        early = self._early.pop(call.tool_use_id, None)
        if early is not None:
            return early
        if not self.attached and self.on_no_frontend != "wait":
            return self._fallback(call)
        future: asyncio.Future[Taken] = asyncio.get_running_loop().create_future()
        self._waiting[call.tool_use_id] = future
        prompt = self.prompts.get(call.tool_use_id)
        opened = prompt.requested_at if prompt is not None else self.clock.stamp(call.requested_at)
        outcome = await until_answer(
            future,
            self.clock,
            opened=opened,
            deadline=None if call.timeout is None else opened + call.timeout,
            last_seen=self._last_seen,
            ttl=self.frontend_ttl,
            grace=self.no_frontend_grace,
        )
        if outcome == "timeout" and late is not None and self.attached:
            late.done(call.tool_use_id)  # the pause waits for others: an answer still counts till then
            await first_of(future, late.closed.wait())
        if future.done():
            return future.result()
        self._waiting.pop(call.tool_use_id, None)
        if outcome == "nobody" or not self.attached:  # nobody was there to answer: the fallback
            return self._fallback(call)
        text = timed_out_text(call.timeout)
        self._set(call.tool_use_id, status="timed_out")  # closed now: an answer while it is saved is late
        result = ToolResult(tool_use_id=call.tool_use_id, content=text, is_error=True)
        return Taken(result, "", "timed_out", "timeout", None, text)

    def _fallback(self, call: PendingFrontendTool) -> Taken:
        text = self.fallback_message.format(name=call.name)
        self._waiting.pop(call.tool_use_id, None)
        self._set(call.tool_use_id, status="failed")
        result = ToolResult(tool_use_id=call.tool_use_id, content=text, is_error=True)
        return Taken(result, "no frontend attached", "failed", "failed", None, text)


def _approval_fields(tool: Tool | None, call: PendingFrontendTool, kind: PromptKind) -> dict[str, Any]:
    """An approval card's preview, scope label and reasons (none for other cards, or tools without them)."""
    if tool is None or kind != "approval":
        return {}
    fields: dict[str, Any] = {"preview": tool.preview_for(call.input), "editable": tool.edits_approved}
    scope = tool.scope_for(call.input)
    if scope is not None:
        fields |= {"scope": scope.label, "reasons": list(scope.reasons)}
    return fields
