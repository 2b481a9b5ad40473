"""Custom messages from the widget's views: each becomes an action on the runtime.

Every handler takes the chat, the message content and its binary buffers, and uses
only the chat's small interface (`broker`, `driver`, `agent`, `transcript`, `view`,
`post`, `refuse`, `send_nowait`, `run_tool`, `stop`). A message that is malformed
or not allowed now is refused with a reason shown in the widget and logged, never
raised into the kernel.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any, Protocol

from .._exceptions import (
    AgentBusyError,
    FileAccessError,
    NotebookToolsError,
    NothingToRetryError,
    Refused,
    ToolDefinitionError,
)
from ..frontend._session import FrontendSession
from ..prompts._broker import PromptBroker
from ..prompts._downloads import downloadable, media_type, read_at_most
from ..prompts._files import CHUNK_BYTES, FileInbox
from ..session._state import RunResult, ToolResult
from ._app_messages import app_error_reply, app_open, app_request
from ._projection import Projection
from ._shown import page_reply
from ._transcript import Transcript
from ._view import ChatView
from ._wire import parse_view_message

__all__ = ["HANDLERS", "Chat", "Refused", "dispatch"]

log = logging.getLogger("notebook_tools")


class Chat(Protocol):
    """What the handlers may use of a chat."""

    broker: PromptBroker
    projection: Projection
    transcript: Transcript
    view: ChatView

    @property
    def busy(self) -> bool: ...

    @property
    def inbox(self) -> FileInbox: ...

    def require_driver(self) -> FrontendSession: ...

    def post(self, content: dict[str, Any], buffers: list[bytes] | None = None) -> None: ...

    def refuse(self, message: str) -> None: ...

    def send_nowait(self, text: str) -> asyncio.Task[RunResult]: ...

    async def run_tool(self, name: str, arguments: dict[str, Any]) -> ToolResult: ...

    def stop(self) -> None: ...


_TASKS: set[asyncio.Task[None]] = set()  # manual runs in flight, kept referenced until they end


def dispatch(chat: Chat, content: Any, buffers: list[bytes]) -> None:
    """Handle one custom message from a view: checked against the wire protocol, then acted on.

    A message that does not fit the protocol, or is not allowed now, is refused with the
    reason shown in the widget; a request that carries an id still gets its (error) reply.
    Nothing raises into the kernel.
    """
    message, reason = parse_view_message(content)
    try:
        if message is None:
            raise Refused(reason)
        HANDLERS[message.type](chat, message, buffers)
    except (Refused, FileAccessError) as exc:
        chat.refuse(str(exc))
        _error_reply(chat, content, str(exc))
    except Exception as exc:  # never let a message escape into the kernel
        log.exception("notebook_tools widget: message handling failed")
        chat.refuse(f"the message could not be handled: {type(exc).__name__}: {exc}")
        _error_reply(chat, content, f"{type(exc).__name__}: {exc}")


def _error_reply(chat: Chat, content: Any, error: str) -> None:
    """The reply a refused request still gets, so the view never waits for it."""
    if not isinstance(content, dict) or not isinstance(content.get("type"), str):
        return
    kind = content["type"]
    if app_error_reply(chat, kind, content, error):
        return
    upload_id, request_id = content.get("upload_id"), content.get("request_id")
    if kind.startswith("upload") and isinstance(upload_id, str):
        chat.post({"type": "upload_ack", "upload_id": upload_id, "received": 0, "ok": False, "error": error})
    elif kind == "list_dir" and isinstance(request_id, str):
        path = content.get("path") if isinstance(content.get("path"), str) else ""
        chat.post({"type": "listing", "request_id": request_id, "path": path, "entries": [], "error": error})
    elif kind == "download" and isinstance(request_id, str):  # the card fails at once, not after 60 s
        chat.post({**_NO_FILE, "request_id": request_id, "error": error})
    elif kind == "manual_tool" and isinstance(request_id, str):
        chat.post({"type": "manual_result", "request_id": request_id, "ok": False, "error": error})
    elif kind == "plugin" and isinstance(request_id, str):
        chat.post({"type": "plugin_result", "request_id": request_id, "ok": False, "error": error})
    elif kind == "result_page" and isinstance(request_id, str):  # a table's pager says why, at once
        tool_use_id = content.get("tool_use_id") if isinstance(content.get("tool_use_id"), str) else ""
        empty = {"start": 0, "index": [], "rows": [], "error": error}
        chat.post({"type": "result_rows", "request_id": request_id, "tool_use_id": tool_use_id, **empty})


def ping(chat: Chat, message: Any, _buffers: list[bytes]) -> None:
    chat.broker.seen(message.view_id or "anonymous")


def bye(chat: Chat, message: Any, _buffers: list[bytes]) -> None:
    chat.broker.gone(message.view_id or "anonymous")


def hello(chat: Chat, message: Any, _buffers: list[bytes]) -> None:
    chat.broker.seen(message.view_id or "anonymous")
    modules = {}
    for tool in chat.broker.tools.values():
        if tool.renderer is not None and not tool.renderer.builtin:
            try:  # a module file deleted, grown too big or not text since: reported; the view still loads
                modules[tool.name] = tool.renderer.source
            except (OSError, ValueError, NotebookToolsError) as exc:
                chat.refuse(f"the renderer of {tool.name!r} could not be read: {exc}")
    if modules:  # before the snapshot: a card of a custom prompt waits for its module
        chat.post({"type": "renderers", "renderers": modules})
    pages = chat.transcript.snapshot_pages()
    for page_no, page in enumerate(pages):
        chat.post({"type": "snapshot", "items": page, "page": page_no, "pages": len(pages)})


def retry(chat: Chat, _message: Any, _buffers: list[bytes]) -> None:
    if chat.busy:
        raise Refused("the agent is busy; wait for the turn to end")
    driver = chat.require_driver()
    if not driver.agent.retryable:
        raise Refused(str(NothingToRetryError()))
    driver.start(driver.agent.retry())


def continue_turn(chat: Chat, _message: Any, _buffers: list[bytes]) -> None:
    """A turn notice's Continue: `agent.continue_turn()`, run as the Send button runs a turn."""
    if chat.busy:
        raise Refused("the agent is busy; wait for the turn to end")
    driver = chat.require_driver()
    if not chat.projection.continued():
        raise Refused("there is no cut-off turn to continue")
    driver.start(driver.agent.continue_turn())


def send(chat: Chat, message: Any, _buffers: list[bytes]) -> None:
    if chat.busy:
        raise Refused("the agent is busy; wait for the turn to end or press Stop")
    chat.send_nowait(message.text)


def answer(chat: Chat, message: Any, _buffers: list[bytes]) -> None:
    chat.broker.answer(message.tool_use_id, message.answer, frontend="view")


def manual_tool(chat: Chat, message: Any, _buffers: list[bytes]) -> None:
    if chat.busy:
        raise Refused("the agent is busy; run tools by hand when the turn has ended")
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        raise Refused("running a tool by hand needs the kernel's event loop") from None

    async def run() -> None:
        reply: dict[str, Any] = {"type": "manual_result", "request_id": message.request_id, "ok": True}
        try:
            result = await chat.run_tool(message.name, message.input)
            reply["is_error"] = result.is_error
        except Exception as exc:  # refused: say why in the widget
            reply.update(ok=False, error=str(exc))
            chat.refuse(str(exc))
        chat.post(reply)

    task = loop.create_task(run())
    _TASKS.add(task)
    task.add_done_callback(_TASKS.discard)


def plugin(chat: Chat, message: Any, _buffers: list[bytes]) -> None:
    if chat.busy:
        raise Refused("the agent is busy; expand or collapse plugins when the turn has ended")
    agent = chat.require_driver().agent
    try:  # the model is told with the next message; the ToolsetChanged event refreshes the menu
        if message.action == "expand":
            agent.expand_plugin(message.name)
        else:
            agent.collapse_plugin(message.name)
    except (AgentBusyError, ToolDefinitionError) as exc:
        raise Refused(str(exc)) from None
    chat.post({"type": "plugin_result", "request_id": message.request_id, "ok": True})


def clear(chat: Chat, _message: Any, _buffers: list[bytes]) -> None:
    if chat.busy:
        raise Refused("the agent is busy; stop it before clearing")
    chat.require_driver().agent.new_session()
    chat.transcript.items.clear()
    chat.projection.seen_history([])
    chat.projection.refresh_toolset()
    chat.broker.clear()
    chat.view.prompts = {}
    chat.post({"type": "cleared"})


def stop(chat: Chat, _message: Any, _buffers: list[bytes]) -> None:
    chat.stop()


def upload_start(chat: Chat, message: Any, _buffers: list[bytes]) -> None:
    prompt = chat.broker.prompts.get(message.tool_use_id)
    if prompt is None or prompt.status != "pending" or prompt.kind != "file":
        raise Refused(f"no pending file prompt {message.tool_use_id!r} to upload to")
    accept = str(prompt.input.get("accept") or "")
    chat.inbox.start(
        message.upload_id, message.tool_use_id, message.name, message.size, message.media_type, accept
    )
    chat.post({"type": "upload_ack", "upload_id": message.upload_id, "received": 0, "ok": True})


def upload_chunk(chat: Chat, message: Any, buffers: list[bytes]) -> None:
    if len(buffers) != 1:
        raise Refused("an upload chunk needs exactly one binary buffer")
    received, done = chat.inbox.chunk(message.upload_id, message.seq, buffers[0])
    reply = {"type": "upload_ack", "upload_id": message.upload_id, "received": received, "ok": True}
    chat.post({**reply, "done": done})


def list_dir(chat: Chat, message: Any, _buffers: list[bytes]) -> None:
    reply: dict[str, Any] = {"type": "listing", "request_id": message.request_id, "path": message.path}
    try:
        reply.update(chat.inbox.listing(message.path, message.accept))
    except (FileAccessError, OSError) as exc:
        reply.update(entries=[], error=str(exc))
        chat.refuse(str(exc))
    chat.post(reply)


_NO_FILE = {"type": "download_chunk", "seq": 0, "last": True, "filename": "", "size": 0, "media_type": ""}


def download(chat: Chat, message: Any, _buffers: list[bytes]) -> None:
    reply = {"type": "download_chunk", "request_id": message.request_id, "seq": 0, "last": True}
    prompt = chat.broker.prompts.get(message.tool_use_id)
    if prompt is None or prompt.status != "pending" or prompt.renderer != "nt.download_file":
        raise Refused(f"no pending download {message.tool_use_id!r}")
    try:
        path, name = downloadable(chat.inbox, prompt.input)
        data = read_at_most(path, chat.inbox.max_upload_bytes)
    except (FileAccessError, OSError) as exc:
        chat.post({**_NO_FILE, "request_id": message.request_id, "error": str(exc)})
        return
    head = {**reply, "filename": name, "size": len(data), "media_type": media_type(name)}
    pieces = [data[i : i + CHUNK_BYTES] for i in range(0, len(data), CHUNK_BYTES)] or [b""]
    for seq, piece in enumerate(pieces):  # under 4 MiB each: one websocket message stays small
        chat.post({**head, "seq": seq, "last": seq == len(pieces) - 1}, [piece])


def result_page(chat: Chat, message: Any, _buffers: list[bytes]) -> None:
    chat.post(dict(page_reply(chat.projection.agent, message)))


HANDLERS: dict[str, Callable[[Chat, Any, list[bytes]], None]] = {
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
    "download": download,
    "plugin": plugin,
    "result_page": result_page,
    "continue": continue_turn,
    "app_open": app_open,
    "app_request": app_request,
}
