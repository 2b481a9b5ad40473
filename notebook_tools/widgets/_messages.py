"""Custom messages from the widget's views: one handler per message type.

Every handler takes the chat, the message content and its binary buffers; a
message that is malformed or not allowed now is refused with a reason shown in
the widget and logged, never raised into the kernel.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .._exceptions import FileAccessError, Refused

if TYPE_CHECKING:
    from ._chat import Chat

__all__ = ["HANDLERS", "Refused", "dispatch"]

log = logging.getLogger("notebook_tools")


def _int(content: dict[str, Any], key: str) -> int:
    value = content.get(key)
    if not isinstance(value, int) or isinstance(value, bool):
        raise Refused(f"'{key}' must be an integer")
    return value


def _str(content: dict[str, Any], key: str) -> str:
    value = content.get(key)
    if not isinstance(value, str) or not value:
        raise Refused(f"'{key}' must be a non-empty string")
    return value


def dispatch(chat: Chat, content: Any, buffers: list[bytes]) -> None:
    """Handle one custom message from a view; a bad one is refused in the widget, never raised."""
    try:
        if not isinstance(content, dict) or not isinstance(content.get("type"), str):
            raise Refused("a message must be an object with a 'type'")
        handler = HANDLERS.get(content["type"])
        if handler is None:
            raise Refused(f"unknown message type {content['type']!r}")
        handler(chat, content, buffers)
    except (Refused, FileAccessError) as exc:
        chat._refuse(str(exc))
        if content.get("type", "").startswith("upload") and isinstance(content.get("upload_id"), str):
            chat._send_msg(
                {
                    "type": "upload_ack",
                    "upload_id": content["upload_id"],
                    "received": 0,
                    "ok": False,
                    "error": str(exc),
                }
            )
    except Exception as exc:  # never let a malformed message escape into the kernel
        log.exception("notebook_tools widget: message handling failed")
        chat._refuse(f"the message could not be handled: {type(exc).__name__}: {exc}")


def saw_view(chat: Chat, content: dict[str, Any]) -> None:
    view_id = content.get("view_id")
    chat._views[view_id if isinstance(view_id, str) and view_id else "anonymous"] = time.monotonic()


def ping(chat: Chat, content: dict[str, Any], _buffers: list[bytes]) -> None:
    saw_view(chat, content)


def bye(chat: Chat, content: dict[str, Any], _buffers: list[bytes]) -> None:
    chat._views.pop(str(content.get("view_id")), None)


def retry(chat: Chat, _content: dict[str, Any], _buffers: list[bytes]) -> None:
    if chat.busy:
        raise Refused("the agent is busy; wait for the turn to end")
    chat._start(chat._require_agent().retry())


def hello(chat: Chat, content: dict[str, Any], _buffers: list[bytes]) -> None:
    saw_view(chat, content)
    pages = chat.transcript.snapshot_pages()
    for page_no, page in enumerate(pages):
        chat._send_msg({"type": "snapshot", "items": page, "page": page_no, "pages": len(pages)})


def send(chat: Chat, content: dict[str, Any], _buffers: list[bytes]) -> None:
    text = content.get("text")
    if not isinstance(text, str) or not text.strip():
        raise Refused("a message to send must be non-empty text")
    if chat.busy:
        raise Refused("the agent is busy; wait for the turn to end or press Stop")
    chat.send_nowait(text)


def answer(chat: Chat, content: dict[str, Any], _buffers: list[bytes]) -> None:
    chat._take_answers({_str(content, "tool_use_id"): content.get("answer")})


def manual_tool(chat: Chat, content: dict[str, Any], _buffers: list[bytes]) -> None:
    name, request_id = _str(content, "name"), _str(content, "request_id")
    arguments = content.get("input")
    if not isinstance(arguments, dict):
        raise Refused("'input' must be an object of arguments")
    if chat.busy:
        raise Refused("the agent is busy; run tools by hand when the turn has ended")
    try:
        loop = chat._loop or asyncio.get_running_loop()
    except RuntimeError:
        raise Refused("running a tool by hand needs the kernel's event loop") from None
    chat._loop = loop

    async def run() -> None:
        reply: dict[str, Any] = {"type": "manual_result", "request_id": request_id, "ok": True}
        try:
            result = await chat.run_tool(name, arguments)
            reply["is_error"] = result.is_error
        except Exception as exc:  # refused: say why in the widget
            reply.update(ok=False, error=str(exc))
            chat._refuse(str(exc))
        chat._send_msg(reply)

    loop.create_task(run())


def clear(chat: Chat, _content: dict[str, Any], _buffers: list[bytes]) -> None:
    if chat.busy:
        raise Refused("the agent is busy; stop it before clearing")
    chat._require_agent().new_session()
    chat.transcript.items.clear()
    chat.prompts = {}
    chat._send_msg({"type": "cleared"})


def stop(chat: Chat, _content: dict[str, Any], _buffers: list[bytes]) -> None:
    chat.stop()


def upload_start(chat: Chat, content: dict[str, Any], _buffers: list[bytes]) -> None:
    upload_id, tool_use_id = _str(content, "upload_id"), _str(content, "tool_use_id")
    prompt = chat.prompts.get(tool_use_id)
    if prompt is None or prompt["status"] != "pending" or prompt["kind"] != "file":
        raise Refused(f"no pending file prompt {tool_use_id!r} to upload to")
    chat.inbox.start(
        upload_id,
        tool_use_id,
        _str(content, "name"),
        _int(content, "size"),
        str(content.get("media_type", "")),
    )
    chat._send_msg({"type": "upload_ack", "upload_id": upload_id, "received": 0, "ok": True})


def upload_chunk(chat: Chat, content: dict[str, Any], buffers: list[bytes]) -> None:
    upload_id, seq = _str(content, "upload_id"), content.get("seq")
    if not isinstance(seq, int) or len(buffers) != 1:
        raise Refused("an upload chunk needs an integer 'seq' and exactly one binary buffer")
    received, done = chat.inbox.chunk(upload_id, seq, buffers[0])
    chat._send_msg(
        {"type": "upload_ack", "upload_id": upload_id, "received": received, "ok": True, "done": done}
    )


def list_dir(chat: Chat, content: dict[str, Any], _buffers: list[bytes]) -> None:
    request_id, path = _str(content, "request_id"), content.get("path", "")
    reply: dict[str, Any] = {"type": "listing", "request_id": request_id, "path": path, "entries": []}
    try:
        reply["entries"] = chat.inbox.list_dir(path)
    except FileAccessError as exc:
        reply["error"] = str(exc)
        chat._refuse(str(exc))
    chat._send_msg(reply)


HANDLERS: dict[str, Callable[[Chat, dict[str, Any], list[bytes]], None]] = {
    "hello": hello,
    "ping": ping,
    "bye": bye,
    "retry": retry,
    "manual_tool": manual_tool,
    "clear": clear,
    "send": send,
    "stop": stop,
    "answer": answer,
    "upload_start": upload_start,
    "upload_chunk": upload_chunk,
    "list_dir": list_dir,
}
