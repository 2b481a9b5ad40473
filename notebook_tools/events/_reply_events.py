"""Display events of a response as it streams and ends: thinking, each complete block, a turn ended early."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from ._event_base import _Event

__all__ = ["AssistantBlock", "ThinkingDelta", "ToolInputDelta", "TurnNotice"]


class ToolInputDelta(_Event):
    """The arguments of a call as they stream in, parsed as far as they go.

    Only for a tool whose card shows them live (an MCP app's: its app gets them as `tool-input-partial`);
    `ToolStarted` brings them whole.
    """

    type: Literal["tool_input_delta"] = "tool_input_delta"
    tool_use_id: str
    name: str
    input: dict[str, Any]


class ThinkingDelta(_Event):
    """A piece of the model's thinking as it streams in (shown collapsed, never as the answer)."""

    type: Literal["thinking_delta"] = "thinking_delta"
    text: str
    request: int
    index: int = 0
    """The content block of that response the thinking belongs to."""


class AssistantBlock(_Event):
    """One content block of a response, complete (it streamed in; its message is added at the end).

    Every type the API returns, known or new: text (with its `citations`), thinking, redacted_thinking,
    server_tool_use, web_search_tool_result, web_fetch_tool_result, code_execution_tool_result,
    bash_code_execution_tool_result, text_editor_code_execution_tool_result, tool_search_tool_result,
    mcp_tool_use, mcp_tool_result, container_upload, compaction, ... A front end shows the kinds it
    knows and names the others.
    """

    type: Literal["assistant_block"] = "assistant_block"
    request: int
    index: int
    block: dict[str, Any]


class TurnNotice(_Event):
    """The turn ended for a reason the person must hear: a refusal, a cut-off reply, a full window.

    `stop_reason` is the API's; `actions` are what a front end offers ("continue": `continue_turn()`).
    """

    type: Literal["turn_notice"] = "turn_notice"
    stop_reason: str
    title: str
    """One sentence: what happened."""
    detail: str = ""
    """The API's explanation (a refusal's `stop_details`), when it gave one."""
    advice: str = ""
    """What to do about it."""
    actions: list[Literal["continue"]] = Field(default_factory=list)
    stop_details: dict[str, Any] | None = None
