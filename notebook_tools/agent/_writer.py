"""The agent's saving and publishing: every change is saved (compare-and-set) before it is adopted.

`Agent`, its loop and its answer handling share this base: the attributes they read and the three
ways they change the world, so the store and the agent never disagree and events follow saves.
"""

from __future__ import annotations

import time
from typing import Any

import anthropic

from .._exceptions import AgentBusyError
from ..events._bus import EventBus
from ..events._events import MessageEvent, ToolErrorEvent, _Event
from ..results import KeptResults
from ..session._state import AgentState
from ..stores._store import SessionStore
from ..tools._approvals import ApprovalMode, AuditRecord
from ..tools._tool import Tool

__all__ = ["Busy", "SessionIO", "closed_calls"]


class SessionIO:
    """What the agent's parts share: its session, store, events and settings."""

    client: anthropic.AsyncAnthropic
    model: str
    system: str | None
    store: SessionStore
    events: EventBus
    state: AgentState
    tools: dict[str, Tool]
    results: KeptResults
    approval_mode: ApprovalMode
    max_turns: int
    max_tokens: int
    max_result_chars: int
    stream_retries: int
    retry_delay: float
    _interrupted: bool
    _requests: int

    @property
    def agent_uuid(self) -> str:
        """The id of the session this agent holds."""
        return self.state.agent_uuid

    def _save_and_adopt(self, new: AgentState) -> None:
        """Save `new` (compare-and-set on its revision), then make it the agent's state."""
        if new is self.state:
            return
        new = new.model_copy(update={"updated_at": time.time()})
        self.store.save(new)  # raises StaleSessionError and changes nothing when another writer won
        self.state = new

    async def _commit(self, new: AgentState) -> None:
        """Save and adopt `new`, then publish the messages it added or changed."""
        old = self.state
        self._save_and_adopt(new)
        start = len(old.messages)
        if old.messages and start <= len(new.messages) and new.messages[start - 1] is not old.messages[-1]:
            start -= 1  # the last user message was extended
        for index in range(start, len(new.messages)):
            await self._publish(MessageEvent(index=index, message=new.messages[index]))

    def _audit(
        self, tool_use_id: str, name: str, arguments: dict[str, Any], decision: Any, reason: str = ""
    ) -> None:
        record = AuditRecord(
            agent_uuid=self.agent_uuid,
            tool_use_id=tool_use_id,
            tool=name,
            arguments=arguments,
            decision=decision,
            reason=reason,
        )
        self.store.append_audit(record)

    async def _publish(self, event: _Event) -> None:
        event.agent_uuid = self.agent_uuid
        await self.events.publish(event)


class Busy:
    """Refuses re-entry: one run/resume/accept/manual run at a time per agent."""

    def __init__(self, agent: Any) -> None:
        self.agent = agent

    def __enter__(self) -> None:
        if self.agent._busy:
            raise AgentBusyError("the agent is already running; wait for the current call to return")
        self.agent._busy = True
        self.agent._interrupted = False

    def __exit__(self, *exc: object) -> None:
        self.agent._busy = False


def closed_calls(old: AgentState, new: AgentState) -> list[ToolErrorEvent]:
    """An error event for each call `interrupt` closed, so every front end shows it ended."""
    held = {r.tool_use_id for r in old.held_results}
    names = {b["id"]: b["name"] for b in old.messages[-1]["content"] if b.get("type") == "tool_use"}
    return [
        ToolErrorEvent(tool_use_id=b["tool_use_id"], name=names[b["tool_use_id"]], error=str(b["content"]))
        for b in new.messages[-1]["content"]
        if b.get("type") == "tool_result" and b["tool_use_id"] in names and b["tool_use_id"] not in held
    ]
