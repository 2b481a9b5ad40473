"""A view's MCP app messages: a card's app opened, the app's requests answered through the session's host.

Each is answered by exactly one reply with the same `request_id`, an error reply when the chat
cannot answer (no agent, no event loop): the card never waits for nothing.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any, Protocol

from ..frontend._session import FrontendSession

__all__ = ["app_error_reply", "app_open", "app_request"]

log = logging.getLogger("notebook_tools")
_TASKS: set[asyncio.Task[None]] = set()  # replies in flight, kept referenced until they are sent
_NO_APP: dict[str, Any] = {"html": "", "csp": "", "allow": "", "prefers_border": None, "tool": {}}


class Chat(Protocol):
    """What these handlers use of a chat."""

    def require_driver(self) -> FrontendSession: ...

    def post(self, content: dict[str, Any], buffers: list[bytes] | None = None) -> None: ...


def app_error_reply(chat: Chat, kind: str, content: dict[str, Any], error: str) -> bool:
    """Reply to a refused `app_open` / `app_request` with its error (False: not an app message)."""
    request_id, tool_use_id = content.get("request_id"), content.get("tool_use_id")
    if not isinstance(request_id, str):
        return False
    tool_use_id = tool_use_id if isinstance(tool_use_id, str) else ""
    head = {"request_id": request_id, "tool_use_id": tool_use_id}
    if kind == "app_open":
        chat.post({"type": "app_resource", **head, **_NO_APP, "error": error})
    elif kind == "app_request":
        chat.post({"type": "app_reply", **head, "error": {"code": -32603, "message": error[:500]}})
    else:
        return False
    return True


def _answer(chat: Chat, message: Any, reply_type: str, work: Any) -> None:
    host = chat.require_driver().apps
    head = {"type": reply_type, "request_id": message.request_id, "tool_use_id": message.tool_use_id}
    if host is None:
        app_error_reply(chat, message.type, head, "this chat has no agent, so no MCP apps")
        return

    async def run() -> None:
        try:
            reply = await work(host)
        except Exception as exc:  # never raised into the kernel: the app hears why
            log.info("MCP app request failed", exc_info=True)
            app_error_reply(chat, message.type, head, f"{type(exc).__name__}: {exc}")
            return
        chat.post({**head, **reply})

    task = asyncio.get_running_loop().create_task(run())
    _TASKS.add(task)
    task.add_done_callback(_TASKS.discard)


def app_open(chat: Chat, message: Any, _buffers: list[bytes]) -> None:
    _answer(chat, message, "app_resource", lambda host: host.open(message.tool_use_id))


def app_request(chat: Chat, message: Any, _buffers: list[bytes]) -> None:
    _answer(
        chat,
        message,
        "app_reply",
        lambda host: host.request(message.tool_use_id, message.method, message.params),
    )
