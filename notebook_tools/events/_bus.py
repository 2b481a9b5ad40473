"""The event bus that carries events between the runtime and its front ends, and a recorder.

Display events go from the runtime to every subscriber (the widget, a terminal, a
test); a front end's actions are published on the same bus, so one recorder sees a
whole session in order. Recordings are NDJSON (one event per line) and replay into
any front end: subscribe it to a fresh bus and `await recorder.replay(bus)`.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
import os
from collections.abc import Awaitable, Callable
from typing import Any

from ._events import _EVENT_LIST, EVENT_ADAPTER, _Event

__all__ = ["EventBus", "EventRecorder"]

log = logging.getLogger("notebook_tools")

Handler = Callable[[Any], Awaitable[None] | None]


class EventBus:
    """Delivers events to subscribers, sync or async, in subscription order.

    A subscriber that raises is logged and skipped: a broken UI never stops the loop.
    """

    def __init__(self) -> None:
        self._handlers: list[Handler] = []
        self._tasks: set[asyncio.Future[Any]] = set()  # async deliveries in flight (kept referenced)

    def subscribe(self, handler: Handler) -> Callable[[], None]:
        """Add a subscriber; returns a function that removes it."""
        self._handlers.append(handler)

        def unsubscribe() -> None:
            if handler in self._handlers:
                self._handlers.remove(handler)

        return unsubscribe

    def publish_nowait(self, event: _Event) -> None:
        """Deliver `event` from synchronous code: sync subscribers now, async ones as loop tasks."""
        for handler in list(self._handlers):
            try:
                outcome = handler(event)
                if inspect.isawaitable(outcome):
                    task = asyncio.ensure_future(outcome)
                    self._tasks.add(task)
                    task.add_done_callback(self._tasks.discard)
            except Exception:
                log.exception(
                    "event subscriber %r failed on a %s event", handler, getattr(event, "type", "?")
                )

    async def publish(self, event: _Event) -> None:
        """Deliver `event` to every subscriber, awaiting async ones."""
        for handler in list(self._handlers):
            try:
                outcome = handler(event)
                if inspect.isawaitable(outcome):
                    await outcome
            except Exception:
                log.exception(
                    "event subscriber %r failed on a %s event", handler, getattr(event, "type", "?")
                )


class EventRecorder:
    """A subscriber that keeps every event, for tests and replays."""

    def __init__(self) -> None:
        self.events: list[Any] = []

    def __call__(self, event: Any) -> None:
        self.events.append(event)

    def types(self) -> list[str]:
        """The `type` of each recorded event, in order."""
        return [e.type for e in self.events]

    def of_type(self, type_: str) -> list[Any]:
        """The recorded events of one type."""
        return [e for e in self.events if e.type == type_]

    def to_json(self) -> str:
        """All recorded events as a JSON array."""
        return _EVENT_LIST.dump_json(self.events).decode()

    @classmethod
    def from_json(cls, data: str | bytes) -> EventRecorder:
        """Rebuild a recorder from `to_json` output."""
        recorder = cls()
        recorder.events = list(_EVENT_LIST.validate_json(data))
        return recorder

    def to_ndjson(self) -> str:
        """The recorded events as NDJSON: one JSON event per line."""
        return "".join(EVENT_ADAPTER.dump_json(e).decode() + "\n" for e in self.events)

    @classmethod
    def from_ndjson(cls, text: str | bytes) -> EventRecorder:
        """Rebuild a recorder from NDJSON (blank lines are skipped; a bad line raises ValidationError)."""
        recorder = cls()
        lines = text.splitlines() if isinstance(text, str) else text.decode().splitlines()
        recorder.events = [EVENT_ADAPTER.validate_json(line) for line in lines if line.strip()]
        return recorder

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write the recording to `path` as NDJSON."""
        with open(path, "w", encoding="utf-8") as file:
            file.write(self.to_ndjson())

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> EventRecorder:
        """Read a recording written by `save`."""
        with open(path, encoding="utf-8") as file:
            return cls.from_ndjson(file.read())

    async def replay(self, bus: EventBus, *, types: set[str] | None = None) -> int:
        """Publish the recorded events (or those of `types`) on `bus`, in order; returns how many.

        Subscribe a front end to a fresh bus first: it renders the session as it happened.
        """
        count = 0
        for event in self.events:
            if types is None or event.type in types:
                await bus.publish(event.model_copy())
                count += 1
        return count
