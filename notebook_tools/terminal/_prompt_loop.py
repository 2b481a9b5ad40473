"""Asking a turn's prompts in the terminal, one after another, from the broker's events.

The loop knows the prompts only from `PromptChanged` events (and refusals from `AnswerRefused`):
it asks the first pending one (in the order they opened), hands the answer to
`broker.answer(tool_use_id, answer, frontend="terminal")`, and waits until the broker or the
agent took it (the prompt leaves "pending") or refused it (the reason is shown, the prompt is
asked again). A prompt that times out or is cancelled while being asked stops being asked.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from typing import Any

from ..events._events import AnswerRefused
from ..events._prompt import Prompt
from ..prompts._broker import PromptBroker
from ..session._state import RunResult
from ._ask import Asker
from ._countdown import count_down, until_text
from ._menu import CtrlC, EndOfInput
from ._render import Screen

__all__ = ["FRONTEND", "PromptLoop"]

FRONTEND = "terminal"
"""The name this front end gives the broker (presence, and the `frontend` of its answers)."""


class PromptLoop:
    """The prompts of one terminal chat, as its events show them, and the asking of them."""

    def __init__(
        self, broker: PromptBroker, asker: Asker, screen: Screen, *, on_ctrl_c: Callable[[], None]
    ) -> None:
        self.broker, self.asker, self.screen, self.on_ctrl_c = broker, asker, screen, on_ctrl_c
        self.prompts: dict[str, Prompt] = {}
        """Every prompt as its last `PromptChanged` event showed it, in the order they opened."""
        self.refusals: list[AnswerRefused] = []
        self._versions: dict[str, int] = {}
        self._refused_answers: dict[str, Any] = {}
        self._batch: list[str] = []
        self._submitting: str | None = None
        self._announced: set[str] = set()
        self._changed = asyncio.Event()
        self._loop: asyncio.AbstractEventLoop | None = None

    def on_event(self, event: Any) -> None:
        """Take a `PromptChanged` or `AnswerRefused` event."""
        if event.type == "prompt_changed":
            prompt = event.prompt
            before = self.prompts.get(prompt.tool_use_id)
            self.prompts[prompt.tool_use_id] = prompt
            if prompt.tool_use_id in self._announced and before and before.answer != prompt.answer:
                self.screen.closed(prompt)  # a later word on an ended prompt (an MCP page is done)
            self._versions[prompt.tool_use_id] = self._versions.get(prompt.tool_use_id, 0) + 1
            if prompt.tool_use_id == self._submitting:
                self._announce(prompt)  # now, before what the turn does next
        else:
            self.refusals.append(event)
        self._changed.set()

    async def attend(self, task: asyncio.Future[RunResult]) -> None:
        """Ask each prompt the turn opens, in order, until the turn ends (EndOfInput: the person left)."""
        loop = asyncio.get_running_loop()
        if loop is not self._loop:  # asyncio objects belong to one loop (tests run several)
            self._loop, self._changed = loop, asyncio.Event()
        while not task.done():
            prompt = self._next_prompt()
            if prompt is None:
                await self._wait(task)
            else:
                await self._ask(prompt, task)

    def _next_prompt(self) -> Prompt | None:
        pending = [p for p in self.prompts.values() if p.status == "pending"]
        if not pending:
            self._batch.clear()
            return None
        self._batch += [p.tool_use_id for p in pending if p.tool_use_id not in self._batch]
        return pending[0]

    async def _wait(self, *futures: asyncio.Future[Any]) -> None:
        """Until a prompt changes, an answer is refused, or one of `futures` is done."""
        self._changed.clear()
        changed = asyncio.ensure_future(self._changed.wait())
        try:
            await asyncio.wait({changed, *futures}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            changed.cancel()

    async def _ask(self, prompt: Prompt, task: asyncio.Future[RunResult]) -> None:
        tool_use_id = prompt.tool_use_id
        position = self._batch.index(tool_use_id) + 1
        clock = self.broker.clock
        details = self.asker.details(prompt)
        self.screen.card(prompt, position, len(self._batch), details, until_text(prompt, clock))
        still_open = lambda: self.prompts[tool_use_id].status == "pending"  # noqa: E731
        ticking = asyncio.ensure_future(count_down(prompt, clock, self.screen, still_open))
        try:
            if not await self._asking(tool_use_id, task):
                return  # Ctrl+C
        finally:
            ticking.cancel()
        self._announce(self.prompts[tool_use_id])  # e.g. it timed out while being asked

    async def _asking(self, tool_use_id: str, task: asyncio.Future[RunResult]) -> bool:
        """Ask until the prompt is answered or closed; False after Ctrl+C."""
        while self.prompts[tool_use_id].status == "pending" and not task.done():
            asking = asyncio.ensure_future(self.asker.answer(self.prompts[tool_use_id]))
            while not asking.done() and not task.done() and self.prompts[tool_use_id].status == "pending":
                await self._wait(asking, task)
            if not asking.done():  # timed out, or the turn was stopped: stop asking
                asking.cancel()
                with contextlib.suppress(asyncio.CancelledError, CtrlC, EndOfInput):
                    await asking
                break
            try:
                answer = asking.result()
            except CtrlC:
                self.on_ctrl_c()
                return False
            reason = await self._submit(tool_use_id, answer, task)
            if reason is not None:
                self.screen.problem(f"{reason} (try again)")
        return True

    def _announce(self, prompt: Prompt) -> None:
        """Show once how a prompt ended (a Stop's closed calls show as tool errors instead)."""
        if prompt.status not in ("pending", "cancelled") and prompt.tool_use_id not in self._announced:
            self._announced.add(prompt.tool_use_id)
            self.screen.closed(prompt)

    async def _submit(self, tool_use_id: str, answer: Any, task: asyncio.Future[RunResult]) -> str | None:
        """Hand the answer to the broker; None when it was taken, else why it was refused."""
        seen, version = len(self.refusals), self._versions.get(tool_use_id, 0)
        self._submitting = tool_use_id
        try:
            return await self._outcome(tool_use_id, answer, task, seen, version)
        finally:
            self._submitting = None

    async def _outcome(
        self, tool_use_id: str, answer: Any, task: asyncio.Future[RunResult], seen: int, version: int
    ) -> str | None:
        self.broker.answer(tool_use_id, answer, frontend=FRONTEND)
        refused = [r for r in self.refusals[seen:] if r.tool_use_id in (tool_use_id, "")]
        prompt = self.prompts[tool_use_id]
        if refused:  # refused at once: the wrong shape for this prompt, not an option, not a file, ...
            self._refused_answers[tool_use_id] = answer
            return (prompt.error or refused[-1].reason) if prompt.status == "pending" else None
        if prompt.status == "pending" and self._refused_answers.get(tool_use_id, _NOTHING) == answer:
            return prompt.error or "that answer was refused before"  # the broker reports a repeat once
        while not task.done():  # taken: wait until the agent accepted it (or refused it)
            prompt = self.prompts[tool_use_id]
            if self._versions.get(tool_use_id, 0) > version and (prompt.status != "pending" or prompt.error):
                break
            await self._wait(task)
        prompt = self.prompts[tool_use_id]
        return prompt.error if prompt.status == "pending" and prompt.error and not task.done() else None


_NOTHING = object()
