"""The Claude Code CLI's messages as the toolkit's display events, so every front end shows them unchanged.

The Claude Agent SDK hands its host whole messages: each content block of a response comes as an
`AssistantMessage` of its own (they share the response's `message_id`), a tool's result comes in a
`UserMessage` (with the CLI's structured `tool_use_result` beside the model's text) and a turn ends
with a `ResultMessage` carrying its cost and usage. `CliEvents` turns them into what the chat, the
terminal and the HTTP server already render for our own agent: text and thinking as
`AssistantBlock`s of one request per response, each tool call a `ToolStarted` / `ToolCompleted` card
(Bash's output as its result, Write and Edit as a diff), the turn's cost as a `UsageEvent`.

Pure: no I/O, no SDK import (the messages are read by their attributes), so a test can feed it
recorded messages.
"""

from __future__ import annotations

import json
import time
from typing import Any

from ..api._prices import SCRIPTED_USAGE
from ..events._events import (
    AssistantBlock,
    MessageEvent,
    Status,
    ToolCompleted,
    ToolStarted,
    UsageEvent,
    _Event,
)
from ..results._builders import diff
from ..results._kinds import RichResult
from ..session._state import ToolResult, Usage

__all__ = ["CliEvents"]


class CliEvents:
    """Turns the SDK's messages of one CLI session into display events, message by message."""

    def __init__(self) -> None:
        self.usage = Usage()
        """The session's tokens and cost, summed over the turns' `ResultMessage`s."""
        self._requests: dict[str, int] = {}
        """Request number of each response (by `message_id`), as our transcript numbers requests."""
        self._blocks: dict[int, int] = {}
        """Blocks of each request seen so far (a block's index in its response)."""
        self._calls: dict[str, tuple[str, dict[str, Any], float]] = {}
        """Open tool calls by id: name, input, when they started."""
        self.history: list[dict[str, Any]] = []
        """The conversation as Messages API messages (the person's text, the replies' blocks, the tool
        results): what a chat rebuilds its transcript from after a restart (kept in the store)."""
        self.session = ""

    def prompt(self, text: str) -> list[_Event]:
        """The person's message, as the transcript shows it, and the turn running."""
        message = MessageEvent(index=self._kept({"role": "user", "content": text}), message=self.history[-1])
        return self._tag([message, Status(state="running")])

    def _kept(self, message: dict[str, Any]) -> int:
        """`message` appended to the history; its index there (a `MessageEvent`'s)."""
        self.history.append(message)
        return len(self.history)

    def __call__(self, message: Any) -> list[_Event]:
        """The events one SDK message shows (none for those a person need not see)."""
        self.session = getattr(message, "session_id", None) or self.session
        kind = type(message).__name__
        if kind == "AssistantMessage":
            return self._tag(self._assistant(message))
        if kind == "UserMessage":
            return self._tag(self._results(message))
        if kind == "ResultMessage":
            return self._tag(self._result(message))
        return []

    def stopped(self) -> list[_Event]:
        """Calls still open when a turn was stopped: closed as not run (their cards stop spinning)."""
        events: list[_Event] = []
        for tool_use_id, (name, _, started) in list(self._calls.items()):
            result = ToolResult(tool_use_id=tool_use_id, content="Stopped before it finished.", is_error=True)
            events.append(
                ToolCompleted(tool_use_id=tool_use_id, name=name, result=result, duration=_since(started))
            )
            self._kept_result(result)
        self._calls.clear()
        return self._tag(events)

    def _tag(self, events: list[_Event]) -> list[_Event]:
        for event in events:
            event.agent_uuid = self.session
        return events

    def _assistant(self, message: Any) -> list[_Event]:
        key = message.message_id or f"m{len(self._requests)}"
        request = self._requests.setdefault(key, len(self._requests) + 1)
        events: list[_Event] = []
        blocks = []
        for block in message.content:
            index = self._blocks.get(request, 0)
            self._blocks[request] = index + 1
            data = _block(block)
            blocks.append(data)
            if data["type"] == "tool_use":
                self._calls[data["id"]] = (data["name"], data["input"], time.monotonic())
                events.append(
                    ToolStarted(
                        tool_use_id=data["id"], name=data["name"], input=data["input"], executor="backend"
                    )
                )
            else:
                events.append(AssistantBlock(request=request, index=index, block=data))
        # the block is whole: the reply so far stays as shown
        index = self._kept({"role": "assistant", "content": blocks})
        events.append(MessageEvent(index=index, message=self.history[-1]))
        return events

    def _results(self, message: Any) -> list[_Event]:
        content = message.content if isinstance(message.content, list) else []
        events: list[_Event] = []
        for block in content:
            tool_use_id = getattr(block, "tool_use_id", None)
            if tool_use_id is None or tool_use_id not in self._calls:
                continue
            name, tool_input, started = self._calls.pop(tool_use_id)
            failed = bool(getattr(block, "is_error", False))
            result = ToolResult(tool_use_id=tool_use_id, content=_text(block.content), is_error=failed)
            shown = None if failed else _shown(name, tool_input, message.tool_use_result)
            events.append(
                ToolCompleted(
                    tool_use_id=tool_use_id, name=name, result=result, duration=_since(started), shown=shown
                )
            )
            self._kept_result(result)
        return events

    def _kept_result(self, result: ToolResult) -> None:
        """A call's result in the history (a restarted chat closes its card with it)."""
        block = {"type": "tool_result", "tool_use_id": result.tool_use_id, "content": result.content}
        self._kept({"role": "user", "content": [block | ({"is_error": True} if result.is_error else {})]})

    def _result(self, message: Any) -> list[_Event]:
        turn = Usage()
        turn.add(_billed(message.usage or {}), message.total_cost_usd)
        turn.requests = max(int(message.num_turns or 0), 1)  # the CLI's requests of the turn
        if (message.usage or {}).get(SCRIPTED_USAGE) is True:  # a script answered (a replay says so)
            turn.scripted_requests = turn.requests
        if message.total_cost_usd is None:
            turn.unpriced_requests = turn.requests
        self.usage = _summed(self.usage, turn)
        events: list[_Event] = [UsageEvent(usage=self.usage, turn=turn)]
        if message.is_error and message.subtype != "error_during_execution":  # (a Stop ends that way)
            said = "; ".join(message.errors or []) or message.result or message.subtype
            events.append(Status(state="error", detail=str(said)[:500]))
        else:
            events.append(Status(state="idle"))
        return events


def _since(started: float) -> float:
    return max(0.0, time.monotonic() - started)


def _block(block: Any) -> dict[str, Any]:
    """An SDK content block as the Messages API's block (what our transcript reads)."""
    kind = type(block).__name__
    if kind == "TextBlock":
        return {"type": "text", "text": block.text}
    if kind == "ThinkingBlock":
        return {"type": "thinking", "thinking": block.thinking, "signature": block.signature}
    if kind == "ToolUseBlock":
        return {"type": "tool_use", "id": block.id, "name": block.name, "input": dict(block.input)}
    data = (
        {k: v for k, v in vars(block).items() if not k.startswith("_")} if hasattr(block, "__dict__") else {}
    )
    return {"type": str(data.pop("type", kind)), **data}


def _text(content: Any) -> str:
    """A tool result's content as text (the CLI's results are text, images aside)."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    parts = []
    for block in content:
        if isinstance(block, dict) and block.get("type") == "text":
            parts.append(str(block.get("text", "")))
        elif isinstance(block, dict):
            parts.append(f"[{block.get('type', 'block')}]")
    return "\n".join(parts) if parts else json.dumps(content)[:2000]


def _shown(name: str, tool_input: dict[str, Any], structured: Any) -> RichResult | None:
    """What a person sees of a result beyond its text: Write and Edit as a diff of the file."""
    if not isinstance(structured, dict) or name not in ("Write", "Edit"):
        return None
    path = structured.get("filePath") or tool_input.get("file_path")
    original = structured.get("originalFile")
    if not isinstance(path, str):
        return None
    if name == "Write" and isinstance(structured.get("content"), str):
        before = original if isinstance(original, str) else ""
        return diff(path, before, structured["content"], is_new=original is None)
    old, new = structured.get("oldString"), structured.get("newString")
    if isinstance(original, str) and isinstance(old, str) and isinstance(new, str):
        after = original.replace(old, new) if structured.get("replaceAll") else original.replace(old, new, 1)
        return diff(path, original, after)
    return None


def _summed(a: Usage, b: Usage) -> Usage:
    """Two usages added up (the session's after a turn's)."""
    data = {k: v + getattr(b, k) for k, v in a.model_dump().items() if isinstance(v, int | float)}
    servers = dict(a.server_tool_use)
    for k, n in b.server_tool_use.items():
        servers[k] = servers.get(k, 0) + n
    return Usage(**{**data, "cost_usd": round(a.cost_usd + b.cost_usd, 10)}, server_tool_use=servers)


def _billed(usage: dict[str, Any]) -> dict[str, Any]:
    """The token counts of the CLI's usage (it adds fields of its own that our `Usage` does not sum)."""
    keys = ("input_tokens", "output_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")
    counted: dict[str, Any] = {k: int(usage.get(k) or 0) for k in keys}
    server = usage.get("server_tool_use")
    if isinstance(server, dict):
        counted["server_tool_use"] = {k: int(v) for k, v in server.items() if isinstance(v, int) and v}
    return counted
