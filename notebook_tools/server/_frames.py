"""The reference stream's two formatters: what each SSE message of a run carries.

Both send the control elements the same way, each as one SSE message whose `event` is
the element's name and whose data is the element, its JSON in an HTML-escaped `data`
attribute: `meta_init`, `awaiting_frontend_tools`, `awaiting_frontend_acks`,
`awaiting_approval`, `error`, and last `meta_final` (which also carries `stop_reason`
as an attribute of its own, so `stop_reason="awaiting_frontend_tools"` ends a paused
stream).

- "xml" frames the content too: `<text>` (the model's text, escaped), `<tool_call>`,
  `<tool_result>` and `<tool_error>`. A client can read the whole stream as one XML
  fragment, and nothing the model or a tool writes can look like a control element.
- "raw" sends the model's text as it is, as SSE messages of event `text`, and nothing of
  tool calls but the control elements. A client must take control elements only from
  messages whose event is not `text` (text that merely looks like a tag is text).
"""

from __future__ import annotations

import html
import json
from typing import Any

from ..events._events import TextDelta, ToolCompleted, ToolErrorEvent, ToolStarted, _Event

__all__ = ["Frames", "frames_for"]

Frame = dict[str, str]


def _attr(value: Any) -> str:
    return html.escape(json.dumps(value, separators=(",", ":")), quote=True)


def _text(text: str) -> str:
    return html.escape(text, quote=True).replace("\r", "&#13;")


class Frames:
    """The "raw" formatter: control elements framed, the model's text as it is."""

    name = "raw"

    def control(self, kind: str, data: Any) -> Frame:
        """A control element as one SSE message."""
        return {"event": kind, "data": f'<{kind} data="{_attr(data)}"></{kind}>'}

    def final(self, data: dict[str, Any]) -> Frame:
        """The last element: the stop reason, as an attribute too."""
        reason = _text(str(data.get("stop_reason", "")))
        element = f'<meta_final stop_reason="{reason}" data="{_attr(data)}"></meta_final>'
        return {"event": "meta_final", "data": element}

    def content(self, event: _Event) -> list[Frame]:
        """The SSE messages of one run event (none for most)."""
        if isinstance(event, TextDelta):
            return [{"event": "text", "data": event.text}]
        return []


class XMLFrames(Frames):
    """The "xml" formatter: every part of the stream is an element."""

    name = "xml"

    def content(self, event: _Event) -> list[Frame]:
        """Text, tool calls, results and errors as elements."""
        if isinstance(event, TextDelta):
            return [{"event": "text", "data": f"<text>{_text(event.text)}</text>"}]
        if isinstance(event, ToolStarted):
            call = {"tool_use_id": event.tool_use_id, "name": event.name, "input": event.input}
            return [self.control("tool_call", {**call, "executor": event.executor})]
        if isinstance(event, ToolCompleted):
            result = event.result
            data = {"tool_use_id": result.tool_use_id, "name": event.name, "is_error": result.is_error}
            return [self.control("tool_result", {**data, "content": result.content})]
        if isinstance(event, ToolErrorEvent):
            data = {"tool_use_id": event.tool_use_id, "name": event.name, "error": event.error}
            return [self.control("tool_error", data)]
        return []


def frames_for(formatter: str) -> Frames:
    """The formatter named `formatter` ("xml" or "raw")."""
    return XMLFrames() if formatter == "xml" else Frames()
