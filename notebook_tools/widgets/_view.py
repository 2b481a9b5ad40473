"""The anywidget view of a chat: its synced traits and its comm, nothing else.

`Chat` owns one (composition, so the widget's own `send(content, buffers)` stays the
base class's); what the traits hold is decided by the projection, what the view's
messages do by the handlers in `_messages.py`.
"""

from __future__ import annotations

import pathlib
from collections.abc import Callable
from typing import Any

import traitlets

from ..prompts._files import MAX_UPLOAD_BYTES
from ._code_once import CodeOnce

__all__ = ["STATIC", "ChatView"]

STATIC = pathlib.Path(__file__).parent.parent / "static"


class ChatView(CodeOnce):
    """Transcript, prompts, input box, Stop button and status line, in a notebook's output."""

    _code = STATIC / "widget.js"

    mode = traitlets.Unicode("chat").tag(sync=True)
    status = traitlets.Unicode("idle").tag(sync=True)
    status_detail = traitlets.Unicode("").tag(sync=True)
    busy = traitlets.Bool(False).tag(sync=True)
    usage = traitlets.Dict().tag(sync=True)
    prompts = traitlets.Dict().tag(sync=True)
    answers = traitlets.Any(default_value={}).tag(sync=True)
    """A view may write answers here: {tool_use_id: {"value": ...} | {"skip": true}}.

    Our front end sends each answer as an "answer" custom message instead: ipywidgets
    holds back a view's second state update until the kernel reports idle, which it
    does not do while a cell sits in `await chat.send(...)`; custom messages are never
    held back. Both paths go through the same checks.
    """
    error = traitlets.Unicode("").tag(sync=True)
    notice = traitlets.Unicode("").tag(sync=True)
    max_upload_bytes = traitlets.Int(MAX_UPLOAD_BYTES).tag(sync=True)
    tools: traitlets.List[dict[str, Any]] = traitlets.List().tag(sync=True)
    """Tools the person may run by hand (mode "manual" or "both"): name, description, input_schema."""
    plugins: traitlets.List[dict[str, Any]] = traitlets.List().tag(sync=True)
    """The session's plugins: name, description, expanded, tools, skills (`_toolset_view`)."""

    def __init__(self, describe: Callable[[], str], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._describe = describe

    def __repr__(self) -> str:
        # nbval compares text/plain: no memory address, only what the chat holds.
        return self._describe()
