"""The one writer of a session: every change is saved (compare-and-set) before it is adopted.

Each part of the agent (the loop, answering, manual runs, tool-set control, tool calls) receives
this writer instead of inheriting attributes from the others: it holds the session's state, its
store and its event bus, and lets one call at a time change them, so the store and the agent never
disagree and events follow saves.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import Iterator
from typing import Any

from .._exceptions import AgentBusyError
from ..events._bus import EventBus
from ..events._events import MessageEvent, ToolErrorEvent, _Event
from ..session._state import AgentState
from ..stores._store import SessionStore
from ..tools._approvals import AuditRecord

__all__ = ["PluginData", "SessionWriter", "closed_calls"]


class SessionWriter:
    """A session's state, store and events, and the ways a change reaches them.

    Args:
        store: Where every change is saved before it is adopted.
        events: Where every change is announced after it is saved.
    """

    def __init__(self, store: SessionStore, events: EventBus) -> None:
        self.state = AgentState()
        self.store = store
        self.events = events
        self.busy = False
        """Whether a call (a run, a resume, answers, a run by hand) is changing the session."""
        self.interrupted = False
        """A Stop was asked for: the running call stops at its next await point."""

    @property
    def agent_uuid(self) -> str:
        """The id of the session written."""
        return self.state.agent_uuid

    @contextlib.contextmanager
    def exclusive(self) -> Iterator[None]:
        """Refuse re-entry: one run/resume/accept/manual run at a time."""
        if self.busy:
            raise AgentBusyError("the agent is already running; wait for the current call to return")
        self.busy = True
        self.interrupted = False
        try:
            yield
        finally:
            self.busy = False

    def refuse_while_busy(self, message: str) -> None:
        """Raise `AgentBusyError(message)` while a call is changing the session."""
        if self.busy:
            raise AgentBusyError(message)

    def save_and_adopt(self, new: AgentState) -> None:
        """Save `new` (compare-and-set on its revision), then make it the session's state."""
        if new is self.state:
            return
        new = new.model_copy(update={"updated_at": time.time()})
        self.store.save(new)  # raises StaleSessionError and changes nothing when another writer won
        self.state = new

    async def commit(self, new: AgentState) -> None:
        """Save and adopt `new`, then publish the messages it added or changed.

        A store with an async `asave` (a server's: SQLite in a thread, PostgreSQL on its pool) saves
        without holding up the event loop. A save that started finishes and is adopted even when the
        call is cancelled meanwhile (a Stop): the store and the agent never disagree.
        """
        old = self.state
        await self._save(new)
        start = len(old.messages)
        if old.messages and start <= len(new.messages) and new.messages[start - 1] is not old.messages[-1]:
            start -= 1  # the last user message was extended
        for index in range(start, len(new.messages)):
            await self.publish(MessageEvent(index=index, message=new.messages[index]))

    async def _save(self, new: AgentState) -> None:
        asave = getattr(self.store, "asave", None)
        if new is self.state or asave is None:
            self.save_and_adopt(new)
            return
        new = new.model_copy(update={"updated_at": time.time()})
        saving = asyncio.ensure_future(asave(new))
        cancelled = False
        while not saving.done():
            try:
                await asyncio.shield(saving)
            except asyncio.CancelledError:
                cancelled = True  # (again, maybe: the save still finishes first)
        saving.result()  # its error (a lost race) replaces a cancel: nothing was adopted
        self.state = new
        if cancelled:
            raise asyncio.CancelledError

    def audit(
        self, tool_use_id: str, name: str, arguments: dict[str, Any], decision: Any, reason: str = ""
    ) -> None:
        """Append one approval decision to the store's audit log."""
        record = AuditRecord(
            agent_uuid=self.agent_uuid,
            tool_use_id=tool_use_id,
            tool=name,
            arguments=arguments,
            decision=decision,
            reason=reason,
        )
        self.store.append_audit(record)

    async def publish(self, event: _Event) -> None:
        """Publish `event` as this session's, awaiting async subscribers."""
        event.agent_uuid = self.agent_uuid
        await self.events.publish(event)

    def announce(self, event: Any) -> None:
        """Publish `event` as this session's from synchronous code (or a tool's thread)."""
        event.agent_uuid = self.agent_uuid
        self.events.publish_nowait(event)


def closed_calls(old: AgentState, new: AgentState) -> list[ToolErrorEvent]:
    """An error event for each call `interrupt` closed, so every front end shows it ended."""
    held = {r.tool_use_id for r in old.held_results}
    names = {b["id"]: b["name"] for b in old.messages[-1]["content"] if b.get("type") == "tool_use"}
    return [
        ToolErrorEvent(tool_use_id=b["tool_use_id"], name=names[b["tool_use_id"]], error=str(b["content"]))
        for b in new.messages[-1]["content"]
        if b.get("type") == "tool_result" and b["tool_use_id"] in names and b["tool_use_id"] not in held
    ]


class PluginData:
    """A plugin's JSON in the writer's session (`tools.KeptData`): read live, saved at once."""

    def __init__(self, writer: SessionWriter) -> None:
        self.writer = writer

    @property
    def session(self) -> str:
        """The session's id."""
        return self.writer.state.agent_uuid

    def get(self, name: str) -> dict[str, Any] | None:
        """What the plugin `name` kept in the session (a copy), or None."""
        kept = self.writer.state.plugin_data.get(name)
        return json.loads(json.dumps(kept)) if kept is not None else None

    def remembered_scopes(self, tool: str) -> dict[str, str]:
        """The approval scopes of `tool` remembered in the session: key -> label."""
        return {r.scope: r.label for r in self.writer.state.approvals if r.tool == tool and r.scope}

    def keep(self, name: str, data: dict[str, Any]) -> None:
        """Save `data` as the plugin `name`'s with the session."""
        state = self.writer.state
        kept = json.loads(json.dumps(data))  # JSON now: a value that is not fails here, not at the save
        data_now = {**state.plugin_data, name: kept}
        self.writer.save_and_adopt(state.model_copy(update={"plugin_data": data_now}))
