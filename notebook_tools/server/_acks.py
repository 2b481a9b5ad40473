"""The ack endpoint's bookkeeping: which frontend calls this process waits for, and how each ended.

A held run (see `_runs`) opens its frontend calls in a `PromptBroker` and registers
them here; `POST /api/tools/ack` hands the browser's acknowledgement to that broker,
which checks it exactly as it checks the widget's answers. The four answers of the
reference contract:

- the call is pending and the ack is taken: 200 `{"ok": true}`;
- the call was answered already (a repeat, or a second browser tab): 200
  `{"ok": true, "ignored": true}`;
- the call expired (its timeout passed, even if its result is still on its way to the
  model, or its run was stopped): 410
  `{"ok": false, "reason": ...}`;
- the call is unknown to this process: 404 `{"ok": false, "reason": ...}`.

An approval card's `output` is the decision object and a select's the list of options chosen; either
may come as its JSON text, as a form's content does.

An ack the broker or the agent refuses (an output that fails the tool's output schema,
a result over the agent's size limit) is 422 `{"ok": false, "reason": ...}` and leaves the call open.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections import OrderedDict
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from ..events._events import PromptChanged
from ..prompts._broker import PromptBroker

__all__ = ["AckBody", "AckRegistry"]

_REMEMBERED = 10_000
"""How many ended calls the registry remembers (to answer repeats and late acks), oldest dropped."""
SETTLE_SECONDS = 10.0
"""How long an ack waits for the agent to take (or refuse) the answer the broker took."""


class AckBody(BaseModel):
    """`POST /api/tools/ack`: the browser's report on one frontend-executed call."""

    model_config = ConfigDict(extra="forbid", strict=True)

    toolCallId: str = Field(min_length=1, max_length=200)
    status: Literal["success", "failed", "timeout", "skipped"]
    """"skipped": the person declined (an MCP elicitation's decline); `errorText` is their reason."""
    output: Any = None
    errorText: str | None = Field(default=None, max_length=10_000)
    requestedAt: str | None = Field(default=None, max_length=64)


class AckRegistry:
    """Open frontend calls of this process by tool_use_id, and how the ended ones ended."""

    def __init__(self) -> None:
        self._open: dict[str, tuple[PromptBroker, str]] = {}
        """By the id clients know: the broker that waits for the call, and the call's id there."""
        self._answered: set[str] = set()
        self._ended: OrderedDict[str, Literal["answered", "expired"]] = OrderedDict()

    def add(self, ids: list[str], broker: PromptBroker, own: dict[str, str] | None = None) -> None:
        """A held run waits for these calls' acks through `broker`.

        `own` maps an id clients know to the broker's id for it, where the two differ (an MCP
        server's question: its prompt id is only unique within its session).
        """
        for tool_use_id in ids:
            self._open[tool_use_id] = (broker, (own or {}).get(tool_use_id, tool_use_id))
            self._ended.pop(tool_use_id, None)

    def finish(self, ids: list[str], broker: PromptBroker) -> None:
        """The held run stopped waiting: remember which calls were answered and which expired."""
        for tool_use_id in ids:
            held = self._open.get(tool_use_id)
            if held is None or held[0] is not broker:
                continue
            del self._open[tool_use_id]
            own_id = held[1]
            prompt = broker.prompts.get(own_id)
            taken = broker.taken(own_id) and prompt is not None and prompt.status != "cancelled"
            answered = tool_use_id in self._answered or taken  # an ack may still be settling
            self._answered.discard(tool_use_id)
            self._ended[tool_use_id] = "answered" if answered else "expired"
            while len(self._ended) > _REMEMBERED:
                self._ended.popitem(last=False)

    @property
    def open_ids(self) -> list[str]:
        """The calls waiting for an ack."""
        return list(self._open)

    async def ack(self, body: AckBody) -> tuple[int, dict[str, Any]]:
        """Hand one ack to its broker; the HTTP status and JSON body to answer with.

        An ack the broker takes is answered once the agent took it too: the agent may still
        refuse it (a result over its size limit), and then the call stays open (422).
        """
        public_id = body.toolCallId
        held = self._open.get(public_id)
        if held is None:
            ended = self._ended.get(public_id)
            if ended == "answered":
                return 200, {"ok": True, "ignored": True}
            if ended == "expired":
                return 410, _expired(public_id)
            return 404, {"ok": False, "reason": f"no pending tool call {public_id!r}"}
        broker, tool_use_id = held
        if broker.taken(tool_use_id):
            return 200, {"ok": True, "ignored": True}
        prompt = broker.prompts.get(tool_use_id)
        if (
            prompt is not None
            and prompt.timeout is not None
            and time.time() >= prompt.requested_at + prompt.timeout
        ):
            return 410, _expired(public_id)  # its timeout's result may be on its way to the model
        answer: dict[str, Any] = {"status": body.status}
        if body.status == "success":
            answer["output"] = _decoded(body.output, prompt.kind if prompt is not None else None)
        elif body.status == "failed":
            answer["error_text"] = body.errorText or ""
        elif body.status == "skipped":
            answer = {"skip": True, "reason": body.errorText or ""}
        changed = asyncio.Event()

        def watch(event: Any) -> None:
            if isinstance(event, PromptChanged) and event.prompt.tool_use_id == tool_use_id:
                changed.set()

        unsubscribe = broker.events.subscribe(watch)
        try:
            refused = broker.answer(tool_use_id, answer, frontend="http")
            if refused is None:
                refused = await _settled(broker, tool_use_id, changed)
        finally:
            unsubscribe()
        prompt = broker.prompts.get(tool_use_id)
        status = prompt.status if prompt is not None else "pending"
        if status == "cancelled" or (status == "timed_out" and body.status != "timeout"):
            return 410, _expired(public_id)  # it ended otherwise while the agent took the answer
        if refused is None:
            if self._open.get(public_id) == held:  # (else its run ended, knowing it was taken)
                self._answered.add(public_id)
            return 200, {"ok": True}
        if status != "pending":
            return 200, {"ok": True, "ignored": True}
        return 422, {"ok": False, "reason": refused}


def _decoded(output: Any, kind: str | None) -> Any:
    """An approval's or a select's output sent as JSON text (as a form's is), as that JSON; else as sent."""
    if kind not in ("approval", "select") or not isinstance(output, str):
        return output
    try:
        value = json.loads(output)
    except ValueError:
        return output  # (refused by the broker, which says what it takes)
    return value if isinstance(value, dict | list) else output


def _expired(tool_use_id: str) -> dict[str, Any]:
    return {"ok": False, "reason": f"tool call {tool_use_id!r} expired"}


async def _settled(broker: PromptBroker, tool_use_id: str, changed: asyncio.Event) -> str | None:
    """None once the agent took the answer the broker took; why, when it refused it."""
    deadline = time.monotonic() + SETTLE_SECONDS
    while True:
        prompt = broker.prompts.get(tool_use_id)
        if prompt is None or prompt.status != "pending":
            return None
        if not broker.taken(tool_use_id):  # the agent refused it: the prompt reopened with the reason
            return prompt.error or "the answer was refused"
        left = deadline - time.monotonic()
        if left <= 0:
            return None  # still in the agent's hands (it waits for a tool run by hand): taken
        changed.clear()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(changed.wait(), left)
