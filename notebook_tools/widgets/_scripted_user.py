"""A scripted person for notebooks run without a browser (nbval, CI, papermill).

It answers a Chat's prompts through the widget's own comm entry point, with the
same messages the front end sends (answers, chunked uploads), so a notebook
under nbval exercises the real path, not a shortcut around the widget.
"""

from __future__ import annotations

import asyncio
import os
import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from ..prompts._files import CHUNK_BYTES
from ._chat import Chat
from ._wire_kernel import PromptState

__all__ = ["HEADLESS_ENV", "SKIP", "ScriptedUser"]

HEADLESS_ENV = "NOTEBOOK_TOOLS_SCRIPTED_USER"
SKIP = object()
"""Answer value that presses Skip."""

AnswerSpec = Any | Callable[[PromptState], Any]


class ScriptedUser:
    """Answers pending prompts after `delay` seconds, as a person clicking in the widget would.

    Args:
        chat: The widget to answer.
        answers: By tool name: the value to answer (a string for confirm/text, a list for select,
            a path or list of paths for a file prompt, any JSON value for a custom renderer, an ack
            such as `{"status": "failed", "error_text": ...}`, `SKIP`), or a function of the prompt.
            A browser-executed built-in (`nt.open_url`, ...) acks success by default, as the browser would.
        delay: Seconds to wait before answering, like a person reading the prompt.
        apps: By tool name: what the person does in the MCP app of a call of that tool once its
            card shows, as the app's requests `(method, params)` (e.g. `("tools/call", {"name": ...})`).
    """

    def __init__(
        self,
        chat: Chat,
        answers: Mapping[str, AnswerSpec] | None = None,
        *,
        delay: float = 0.05,
        apps: Mapping[str, Sequence[tuple[str, dict[str, Any]]]] | None = None,
    ) -> None:
        self.chat = chat
        self.answers = dict(answers or {})
        self.apps = {name: list(steps) for name, steps in (apps or {}).items()}
        if self.apps and chat.driver is not None:  # what the person does in an app, once its card shows
            chat.driver.broker.events.subscribe(self._on_event)
        self.delay = delay
        self.answered: list[tuple[str, Any]] = []
        """(tool name, value) of every answer given, in order."""
        self._seen: set[str] = set()
        chat.view.observe(self._on_prompts, names="prompts")
        self._send({"type": "hello", "view_id": "scripted-user"})
        view = chat.view
        view.notice = (view.notice + " " if view.notice else "") + "Prompts are answered by a scripted user."

    @classmethod
    def when_headless(
        cls, chat: Chat, answers: Mapping[str, AnswerSpec] | None = None
    ) -> ScriptedUser | None:
        """A scripted user when running without a browser (NOTEBOOK_TOOLS_SCRIPTED_USER=1), else None."""
        if os.environ.get(HEADLESS_ENV) != "1":
            return None
        return cls(chat, answers)

    def _on_event(self, event: Any) -> None:
        steps = (
            self.apps.get(getattr(event, "name", ""))
            if getattr(event, "type", "") == "tool_completed"
            else None
        )
        host = self.chat.driver.apps if self.chat.driver is not None else None
        if steps and host is not None and getattr(event.shown, "kind", "") == "mcp.app":
            host.act(event.tool_use_id, steps)

    def _on_prompts(self, change: dict[str, Any]) -> None:
        # Present as a view when prompts open, as a browser tab pings while it is open.
        self._send({"type": "ping", "view_id": "scripted-user"})
        for tool_use_id, prompt in change["new"].items():
            if prompt["status"] == "pending" and tool_use_id not in self._seen:
                self._seen.add(tool_use_id)
                asyncio.get_running_loop().call_later(self.delay, self._answer, tool_use_id)

    def _value(self, prompt: PromptState) -> Any:
        spec = self.answers.get(prompt["name"], _DEFAULT)
        if callable(spec) and spec is not SKIP:
            return spec(prompt)
        if spec is not _DEFAULT:
            return spec
        args = prompt["input"]
        tool = self.chat.broker.tools.get(prompt["name"])
        if prompt["kind"] == "custom" and tool and tool.renderer and tool.renderer.headless:
            return {"status": "success", "output": tool.renderer.headless(args)}  # as the browser acks
        defaults = {
            "confirm": "yes",
            "text": args.get("default") or "ok",
            "select": list(args.get("options", []))[:1],
        }
        return defaults.get(prompt["kind"], SKIP)

    def _answer(self, tool_use_id: str) -> None:
        prompt = self.chat.prompts.get(tool_use_id)
        if prompt is None or prompt["status"] != "pending":
            return
        value = self._value(prompt)
        if value is SKIP:
            answer: dict[str, Any] = {"skip": True}
        elif prompt["kind"] == "file":
            paths = [value] if isinstance(value, str | os.PathLike) else list(value)
            answer = {"value": {"uploads": [self._upload(tool_use_id, Path(p)) for p in paths]}}
        elif prompt["kind"] == "select" and isinstance(value, str):
            answer = {"value": [value]}
        elif isinstance(value, dict) and value.get("status") in ("success", "failed", "timeout"):
            answer = dict(value)  # an ack in its long form, as a browser-executed tool sends it
        else:
            answer = {"value": value}
        self.answered.append((prompt["name"], "skip" if value is SKIP else value))
        self._send({"type": "answer", "tool_use_id": tool_use_id, "answer": {**answer, "at": time.time()}})

    def _upload(self, tool_use_id: str, path: Path) -> str:
        data = path.read_bytes()
        upload_id = f"scripted-{uuid.uuid4().hex[:8]}"
        start = {"type": "upload_start", "upload_id": upload_id, "tool_use_id": tool_use_id}
        self._send({**start, "name": path.name, "size": len(data), "media_type": ""})
        for seq, offset in enumerate(range(0, len(data), CHUNK_BYTES)):
            chunk = {"type": "upload_chunk", "upload_id": upload_id, "seq": seq}
            self._send(chunk, [data[offset : offset + CHUNK_BYTES]])
        return upload_id

    def _send(self, content: dict[str, Any], buffers: list[bytes] | None = None) -> None:
        # The widget's comm entry point: exactly where a browser's message arrives.
        msg = {"content": {"data": {"method": "custom", "content": content}}, "buffers": list(buffers or [])}
        self.chat.view._handle_msg(msg)


_DEFAULT = object()
