"""A stand-in for the browser: injects comm messages the way the front end sends them."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from tests.support.readiness import CEILING


class FakeView:
    """Speaks the widget protocol to a widget without a kernel, recording what the widget sends."""

    def __init__(self, chat: Any) -> None:
        self.chat = chat
        self.widget = widget = getattr(chat, "view", chat)  # the anywidget a browser talks to
        self.sent: list[tuple[dict[str, Any], list[bytes]]] = []
        self.published: list[dict[str, Any]] = []
        original = widget.comm.publish_msg

        def publish(
            msg_type: str, data: Any = None, metadata: Any = None, buffers: Any = None, **keys: Any
        ) -> None:
            self.published.append({"msg_type": msg_type, "data": data, "buffers": list(buffers or [])})
            if data and data.get("method") == "custom":
                self.sent.append((data["content"], list(buffers or [])))
            return original(msg_type, data, metadata, buffers, **keys)

        widget.comm.publish_msg = publish

    def update(self, **state: Any) -> None:
        """A state update from the browser (model.set + save_changes)."""
        msg = {"content": {"data": {"method": "update", "state": state, "buffer_paths": []}}, "buffers": []}
        self.widget._handle_msg(msg)

    def answer(self, tool_use_id: str, answer: Any) -> None:
        """What a prompt's submit does in our front end: an "answer" custom message."""
        self.custom({"type": "answer", "tool_use_id": tool_use_id, "answer": answer})

    def answer_by_trait(self, tool_use_id: str, answer: Any) -> None:
        """The other way in: a view adds the answer to the synced `answers` dict."""
        answers = dict(self.widget.answers or {})
        answers[tool_use_id] = answer
        self.update(answers=answers)

    def custom(self, content: Any, buffers: list[bytes] | None = None) -> None:
        """A custom message (model.send) from the browser."""
        msg = {"content": {"data": {"method": "custom", "content": content}}, "buffers": list(buffers or [])}
        self.widget._handle_msg(msg)

    def of_type(self, kind: str) -> list[dict[str, Any]]:
        return [c for c, _ in self.sent if c.get("type") == kind]

    def bytes_sent(self) -> int:
        return sum(len(json.dumps(p["data"])) + sum(len(b) for b in p["buffers"]) for p in self.published)


async def until(predicate, timeout: float = CEILING) -> None:
    """Wait until predicate() is true (polling the loop); `timeout` only ends a hung run."""
    deadline = asyncio.get_running_loop().time() + max(timeout, CEILING)
    while not predicate():
        if asyncio.get_running_loop().time() > deadline:
            raise TimeoutError("condition not reached")
        await asyncio.sleep(0.005)


def pending_ids(chat: Any) -> list[str]:
    return [k for k, p in chat.prompts.items() if p["status"] == "pending"]


def items(chat: Any, kind: str) -> list[dict[str, Any]]:
    """The chat's transcript items of `kind` ("user", "assistant", "tool", ...), in order."""
    return [i for i in chat.transcript.items.values() if i.get("kind") == kind]


async def first_pending(chat: Any, turn: Any, seen: Any = ()) -> str:
    """The next card that opens (not one of `seen`), while the turn waits for it."""
    await until(lambda: [c for c in pending_ids(chat) if c not in seen] or turn.done())
    assert not turn.done(), turn.result()
    [card] = [c for c in pending_ids(chat) if c not in seen]
    return card
