"""An ACP agent's session updates as the toolkit's display events, so every front end shows them unchanged.

An Agent Client Protocol agent reports a turn as `session/update` notifications: the reply and its
thinking as chunks of text (`agent_message_chunk`, `agent_thought_chunk`), each tool call as a
`tool_call` and its `tool_call_update`s (status, content: text, a diff, a terminal; the files it
touches), the agent's plan as a whole list of entries each time it changes, and the context's size
(`usage_update`). `AcpEvents` turns them into what the chat, the terminal and the HTTP server
already render for our own agent: text and thinking as deltas, then whole blocks of one request per
reply; each tool call a `ToolStarted` / `ToolCompleted` card (a diff shown as one, the text or
terminal output as its result); the plan as a card of its own whose checklist follows the updates;
the turn's tokens and cost as a `UsageEvent`.

Pure: no I/O, no ACP import (updates are read by their attributes), so a test can feed it recorded
updates. What an agent sends is untrusted: texts are kept as text (front ends never render them as
HTML) and anything malformed is passed over, never raised.
"""

from __future__ import annotations

import json
import time
from typing import Any

from ..events._events import (
    MessageEvent,
    Status,
    TextDelta,
    ToolCompleted,
    ToolResultPreview,
    ToolStarted,
    UsageEvent,
    _Event,
)
from ..events._reply_events import AssistantBlock, ThinkingDelta
from ..results._builders import diff
from ..results._kinds import RichResult
from ..session._state import ToolResult, Usage
from ._cli_events import _summed

__all__ = ["AcpEvents", "call_name", "identified", "plan_text", "tool_text"]

_MARKS = {"completed": "[x]", "in_progress": "[~]", "pending": "[ ]"}


class AcpEvents:
    """Turns one ACP session's updates into display events, update by update."""

    def __init__(self) -> None:
        self.usage = Usage()
        """The session's tokens and cost, summed over its turns."""
        self.history: list[dict[str, Any]] = []
        """The conversation as Messages API messages (the person's text, the replies' blocks, the tool
        results): what a chat rebuilds its transcript from after a restart (kept in the store)."""
        self.session = ""
        self.context: tuple[int, int | None] = (0, None)
        """Tokens in the agent's context and its window, as the agent last said."""
        self._requests = 0
        self._message: str | None = None
        """The id of the reply being written (a new one starts a new request)."""
        self._blocks: list[dict[str, Any]] = []
        """The blocks of the reply being written, the last one maybe still open."""
        self._open = False
        self._calls: dict[str, tuple[str, dict[str, Any], float]] = {}
        """Open tool calls by id: name, input, when they started."""
        self._content: dict[str, list[Any]] = {}
        """The latest content of each open call (its updates replace it)."""
        self._plan: str | None = None
        """The id of this turn's plan card, once the agent sent a plan."""
        self._plans = 0
        self._turn_text: list[str] = []
        self._cost: float | None = None

    # -- the turn's edges ----------------------------------------------------------------------

    def prompt(self, text: str) -> list[_Event]:
        """The person's message, as the transcript shows it, and the turn running."""
        self._turn_text = []
        self._cost = None
        self.history.append({"role": "user", "content": text})
        return self._tag(
            [MessageEvent(index=len(self.history), message=self.history[-1]), Status(state="running")]
        )

    def end(self, stop_reason: str, usage: Any = None) -> list[_Event]:
        """The turn ended (`PromptResponse`): the reply closes, its plan card too, the tokens counted."""
        events = self._flush()
        events += self._close_plan()
        billed = {
            "input_tokens": _count(getattr(usage, "input_tokens", 0)),
            "output_tokens": _count(getattr(usage, "output_tokens", 0)),
            "cache_read_input_tokens": _count(getattr(usage, "cached_read_tokens", 0)),
            "cache_creation_input_tokens": _count(getattr(usage, "cached_write_tokens", 0)),
        }
        turn = Usage()
        turn.add(billed, self._cost)  # (one turn, the agent's requests within it unknown to us)
        self.usage = _summed(self.usage, turn)
        used, window = self.context
        events.append(UsageEvent(usage=self.usage, turn=turn, context_tokens=used, context_window=window))
        if stop_reason in ("refusal", "max_tokens", "max_turn_requests"):
            events.append(Status(state="error", detail=f"the agent stopped: {stop_reason}"))
        elif stop_reason != "cancelled":  # (a Stop: the front end's session says it stopped)
            events.append(Status(state="idle"))
        return self._tag(events)

    @property
    def turn_text(self) -> str:
        """What the agent said in the running (or last) turn, its text chunks joined."""
        return "".join(self._turn_text)

    def stopped(self) -> list[_Event]:
        """Calls still open when a turn was stopped: closed as not run (their cards stop spinning)."""
        events = self._flush() + self._close_plan()  # (the plan is kept nowhere: no call stands behind it)
        for tool_use_id, (name, _, started) in list(self._calls.items()):
            result = ToolResult(tool_use_id=tool_use_id, content="Stopped before it finished.", is_error=True)
            events.append(
                ToolCompleted(tool_use_id=tool_use_id, name=name, result=result, duration=_since(started))
            )
            self._kept_result(result)
        self._calls.clear()
        self._content.clear()
        return self._tag(events)

    # -- updates -------------------------------------------------------------------------------

    def __call__(self, update: Any) -> list[_Event]:
        """The events one `session/update` shows (none for those a person need not see)."""
        kind = getattr(update, "session_update", None)
        if kind == "agent_message_chunk":
            return self._tag(self._chunk(update, "text"))
        if kind == "agent_thought_chunk":
            return self._tag(self._chunk(update, "thinking"))
        if kind == "tool_call":
            return self._tag(self._started(update))
        if kind == "tool_call_update":
            return self._tag(self._progress(update))
        if kind == "plan":
            return self._tag(self._plan_update(update))
        if kind == "usage_update":
            self._usage_update(update)
        return []

    def _tag(self, events: list[_Event]) -> list[_Event]:
        for event in events:
            event.agent_uuid = self.session
        return events

    def _chunk(self, update: Any, kind: str) -> list[_Event]:
        content = getattr(update, "content", None)
        text = getattr(content, "text", None)
        if not isinstance(text, str) or not text:
            return []  # (an image or a resource in the reply: not shown yet)
        events: list[_Event] = []
        message = getattr(update, "message_id", None)
        if message is not None and message != self._message and self._blocks:
            events += self._flush()  # another reply: the last one is whole
        self._message = message if message is not None else self._message
        if not self._blocks:
            self._requests += 1
        key = "text" if kind == "text" else "thinking"
        if not (self._open and self._blocks[-1]["type"] == kind):
            events += self._close_block()
            self._blocks.append({"type": kind, key: ""} | ({"signature": ""} if kind == "thinking" else {}))
            self._open = True
        self._blocks[-1][key] += text
        index = len(self._blocks) - 1
        if kind == "text":
            self._turn_text.append(text)
            events.append(TextDelta(text=text, request=self._requests, index=index))
        else:
            events.append(ThinkingDelta(text=text, request=self._requests, index=index))
        return events

    def _close_block(self) -> list[_Event]:
        """The open text or thinking block is whole: shown as a block of its request."""
        if not self._open:
            return []
        self._open = False
        index = len(self._blocks) - 1
        return [AssistantBlock(request=self._requests, index=index, block=dict(self._blocks[index]))]

    def _flush(self) -> list[_Event]:
        """The reply being written is whole: its message joins the history."""
        events = self._close_block()
        if self._blocks:
            self.history.append({"role": "assistant", "content": self._blocks})
            events.append(MessageEvent(index=len(self.history), message=self.history[-1]))
        self._blocks = []
        self._message = None
        return events

    def _started(self, update: Any) -> list[_Event]:
        tool_use_id = getattr(update, "tool_call_id", None)
        if not isinstance(tool_use_id, str) or tool_use_id in self._calls:
            return self._progress(update) if isinstance(tool_use_id, str) else []
        name = call_name(update)
        tool_input = _input(update)
        events = self._close_block()
        if not self._blocks:
            self._requests += 1
        self._blocks.append({"type": "tool_use", "id": tool_use_id, "name": name, "input": tool_input})
        self._calls[tool_use_id] = (name, tool_input, time.monotonic())
        self._content[tool_use_id] = _items(getattr(update, "content", None))
        events.append(ToolStarted(tool_use_id=tool_use_id, name=name, input=tool_input, executor="backend"))
        events += self._flush()
        status = getattr(update, "status", None)
        if status in ("completed", "failed"):  # an agent may report a call already done
            events += self._finished(tool_use_id, update, status == "failed")
        return events

    def _progress(self, update: Any) -> list[_Event]:
        tool_use_id = getattr(update, "tool_call_id", None)
        if tool_use_id not in self._calls:
            return []  # (an update of a call we never saw start, or one already closed)
        if getattr(update, "content", None) is not None:
            self._content[tool_use_id] = _items(update.content)
        status = getattr(update, "status", None)
        if status in ("completed", "failed"):
            return self._finished(tool_use_id, update, status == "failed")
        text = tool_text(self._content.get(tool_use_id, []), None)
        return [ToolResultPreview(tool_use_id=tool_use_id, preview=text[:2000])] if text else []

    def _finished(self, tool_use_id: str, update: Any, failed: bool) -> list[_Event]:
        name, _, started = self._calls.pop(tool_use_id)
        content = self._content.pop(tool_use_id, [])
        text = tool_text(content, getattr(update, "raw_output", None)) or ("Failed." if failed else "Done.")
        result = ToolResult(tool_use_id=tool_use_id, content=text, is_error=failed)
        shown = None if failed else _shown(content)
        self._kept_result(result)
        return [
            ToolCompleted(
                tool_use_id=tool_use_id, name=name, result=result, duration=_since(started), shown=shown
            )
        ]

    def _kept_result(self, result: ToolResult) -> None:
        """A call's result in the history (a restarted chat closes its card with it)."""
        block = {"type": "tool_result", "tool_use_id": result.tool_use_id, "content": result.content}
        self.history.append(
            {"role": "user", "content": [block | ({"is_error": True} if result.is_error else {})]}
        )

    def _plan_update(self, update: Any) -> list[_Event]:
        text = plan_text(getattr(update, "entries", None))
        events = self._close_block()
        if self._plan is None:
            self._plans += 1
            self._plan = f"plan_{self._plans}"
            self._calls[self._plan] = ("plan", {}, time.monotonic())
            events.append(ToolStarted(tool_use_id=self._plan, name="plan", input={}, executor="backend"))
        self._content[self._plan] = [text]
        return [*events, ToolResultPreview(tool_use_id=self._plan, preview=text[:2000] or "(no steps)")]

    def _close_plan(self) -> list[_Event]:
        if self._plan is None or self._plan not in self._calls:
            self._plan = None
            return []
        plan_id, self._plan = self._plan, None
        name, _, started = self._calls.pop(plan_id)
        [text] = self._content.pop(plan_id, [""]) or [""]
        result = ToolResult(tool_use_id=plan_id, content=str(text) or "(no steps)")
        return [ToolCompleted(tool_use_id=plan_id, name=name, result=result, duration=_since(started))]

    def _usage_update(self, update: Any) -> None:
        used, size = getattr(update, "used", None), getattr(update, "size", None)
        if isinstance(used, int) and used >= 0:
            self.context = (used, size if isinstance(size, int) and size > 0 else None)
        amount = getattr(getattr(update, "cost", None), "amount", None)
        if isinstance(amount, int | float) and amount >= 0:
            self._cost = float(amount)  # the turn's cost so far, as the agent counts it


def call_name(update: Any) -> str:
    """A tool call's name for its card: the agent's tool (`_meta.claudeCode.toolName`), else its kind."""
    meta = getattr(update, "field_meta", None)
    claude = meta.get("claudeCode") if isinstance(meta, dict) else None
    name = claude.get("toolName") if isinstance(claude, dict) else None
    if not isinstance(name, str) or not name:
        name = str(getattr(update, "kind", None) or "tool")
    return "".join(c if c.isalnum() or c in "_-" else "_" for c in name)[:60] or "tool"


def identified(update: Any) -> bool:
    """Whether the agent said which tool a call is (`_meta.claudeCode.toolName`, or a kind but "other")."""
    meta = getattr(update, "field_meta", None)
    claude = meta.get("claudeCode") if isinstance(meta, dict) else None
    if isinstance(claude, dict) and isinstance(claude.get("toolName"), str) and claude["toolName"]:
        return True
    return getattr(update, "kind", None) not in (None, "other")


def _input(update: Any) -> dict[str, Any]:
    """What a call was asked with (`rawInput`), else its title and the files it touches."""
    raw = getattr(update, "raw_input", None)
    if isinstance(raw, dict):
        return dict(raw)
    shown: dict[str, Any] = {}
    title = getattr(update, "title", None)
    if isinstance(title, str) and title:
        shown["title"] = title
    paths = [getattr(place, "path", None) for place in _items(getattr(update, "locations", None))]
    if any(isinstance(p, str) for p in paths):
        shown["locations"] = [p for p in paths if isinstance(p, str)]
    return shown


def tool_text(content: list[Any], raw_output: Any) -> str:
    """A call's content as its result's text: its text blocks, a line per diff, terminals named."""
    parts: list[str] = []
    for item in content:
        if isinstance(item, str):
            parts.append(item)
            continue
        kind = getattr(item, "type", None)
        if kind == "content":
            text = getattr(getattr(item, "content", None), "text", None)
            if isinstance(text, str):
                parts.append(text)
        elif kind == "diff":
            parts.append(f"Changed {getattr(item, 'path', '?')}")
        elif kind == "terminal":
            parts.append(f"[terminal {getattr(item, 'terminal_id', '?')}]")
    if not parts and raw_output is not None:
        parts.append(
            raw_output if isinstance(raw_output, str) else json.dumps(raw_output, default=str)[:4000]
        )
    return "\n".join(parts)


def plan_text(entries: Any) -> str:
    """An agent's plan as a checklist: `[x]` done, `[~]` under way, `[ ]` to do, one entry a line."""
    lines = []
    for entry in _items(entries):
        content = getattr(entry, "content", None)
        if isinstance(content, str):
            lines.append(f"{_MARKS.get(str(getattr(entry, 'status', '')), '[ ]')} {content}")
    return "\n".join(lines)


def _shown(content: list[Any]) -> RichResult | None:
    """What a person sees of a result beyond its text: a file change as a diff."""
    for item in content:
        if getattr(item, "type", None) == "diff" and isinstance(getattr(item, "new_text", None), str):
            old = getattr(item, "old_text", None)
            return diff(
                str(item.path), old if isinstance(old, str) else "", item.new_text, is_new=old is None
            )
    return None


def _items(value: Any) -> list[Any]:
    """A list the agent sent, as a list (anything else it sent there: none)."""
    return list(value) if isinstance(value, list | tuple) else []


def _count(value: Any) -> int:
    return value if isinstance(value, int) and value >= 0 else 0


def _since(started: float) -> float:
    return max(0.0, time.monotonic() - started)
