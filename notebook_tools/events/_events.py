"""Typed events between the agent runtime and any UI (the bus that carries them is in `_bus`).

Display events go from the runtime to a UI (the widget, a terminal, a web page);
action events go from a UI to the runtime. Both are pydantic models with a `type`
discriminator, correlated by `tool_use_id`, so they can be logged, recorded in
tests and replayed. The widget is one subscriber among others, never a special
case inside the loop.
"""

from __future__ import annotations

import logging
from typing import Annotated, Any, Literal

import pydantic
from pydantic import Field

from ..results._kinds import RichResult
from ..session._state import PendingFrontendTool, ToolResult, Usage
from ._event_base import _Event as _Event  # re-exported: every event module imports it from here
from ._prompt import Prompt
from ._reply_events import AssistantBlock as AssistantBlock
from ._reply_events import ThinkingDelta as ThinkingDelta
from ._reply_events import ToolInputDelta as ToolInputDelta
from ._reply_events import TurnNotice as TurnNotice

__all__ = [
    "ActionEvent",
    "DisplayEvent",
    "Event",
]

log = logging.getLogger("notebook_tools")


# -- display events: runtime -> UI ---------------------------------------------------------


class TextDelta(_Event):
    """A piece of assistant text as it streams in."""

    type: Literal["text_delta"] = "text_delta"
    text: str
    request: int
    """Which API request of the session this text belongs to (a retried request gets a new number)."""
    index: int = 0
    """The content block of that response the text belongs to."""


class MessageEvent(_Event):
    """A whole message was added to the history (user, assistant or tool results)."""

    type: Literal["message"] = "message"
    index: int
    """Position of the message in the history."""
    message: dict[str, Any]


class ToolStarted(_Event):
    """A tool call began (a backend function runs, or a frontend prompt opens)."""

    type: Literal["tool_started"] = "tool_started"
    tool_use_id: str
    name: str
    input: dict[str, Any]
    executor: Literal["backend", "frontend"]


class ToolProgress(_Event):
    """A running tool reported progress (0.0-1.0, or None when unknown)."""

    type: Literal["tool_progress"] = "tool_progress"
    tool_use_id: str
    progress: float | None = None
    message: str = ""


class ToolStep(_Event):
    """A running tool reported a named step."""

    type: Literal["tool_step"] = "tool_step"
    tool_use_id: str
    step: str
    data: dict[str, Any] = Field(default_factory=dict)
    """What the step reports, e.g. {"urls_scraped": 3, "urls_total": 5}."""


class ToolResultPreview(_Event):
    """A partial result of a running tool."""

    type: Literal["tool_result_preview"] = "tool_result_preview"
    tool_use_id: str
    preview: str


class ToolCompleted(_Event):
    """A tool call has its result (which may be an error result)."""

    type: Literal["tool_completed"] = "tool_completed"
    tool_use_id: str
    name: str
    result: ToolResult
    duration: float
    """Seconds from start to result."""
    shown: RichResult | None = None
    """What the person sees when it is richer than the model's text (a table, a diff, a figure)."""


class ToolErrorEvent(_Event):
    """A tool call failed; the model receives the message as an `is_error` result."""

    type: Literal["tool_error"] = "tool_error"
    tool_use_id: str
    name: str
    error: str


class AwaitingFrontendTools(_Event):
    """The loop paused: these frontend calls wait for a person."""

    type: Literal["awaiting_frontend_tools"] = "awaiting_frontend_tools"
    pending: list[PendingFrontendTool]


class ApprovalRequired(_Event):
    """The loop paused: these calls wait for approval."""

    type: Literal["approval_required"] = "approval_required"
    tool_use_id: str
    name: str
    input: dict[str, Any]


class Status(_Event):
    """The runtime's state changed."""

    type: Literal["status"] = "status"
    state: Literal[
        "running", "awaiting_frontend_tools", "awaiting_approval", "idle", "retrying", "stopped", "error"
    ]
    detail: str = ""


class ToolsetChanged(_Event):
    """The session's tool set changed; it applies from the next request."""

    type: Literal["toolset_changed"] = "toolset_changed"
    change: Literal[
        "expanded",
        "collapsed",
        "skill_activated",
        "injected",
        "removed",
        "hidden",
        "shown",
        "context",
        "reset",
        "mcp",
    ]
    names: list[str]
    """The plugins, skills or tools changed (context keys for "context"; for "mcp" the MCP server's
    plugin, whose tools are now `tools`)."""
    by: Literal["model", "person", "tool", "run", "server"]
    """Who changed it: the model calling a container, the person by hand, a tool's result, a run's
    `expand=`, an MCP server (its tool list changed)."""
    tool_use_id: str = ""
    """The call that changed it (a container call, or the tool whose result asked for it)."""
    tools: list[str] = Field(default_factory=list)
    """The functions now available through it (for "expanded", "skill_activated" and "mcp")."""


class UsageEvent(_Event):
    """Token counts and cost of the session (and of the turn) after a response."""

    type: Literal["usage"] = "usage"
    usage: Usage
    """The whole session's."""
    turn: Usage | None = None
    """This turn's (since the person's last message)."""
    context_tokens: int = 0
    """Input tokens of the last request (cached ones included): how full the context window is."""
    context_window: int | None = None
    """The model's context window in tokens, when the prices file knows the model."""


# -- action events: UI -> runtime -------------------------------------------------------------


class UserInput(_Event):
    """The person sent a message."""

    type: Literal["user_input"] = "user_input"
    text: str


class ToolResults(_Event):
    """Answers to pending frontend calls."""

    type: Literal["tool_results"] = "tool_results"
    results: list[ToolResult]


class ApprovalResponse(_Event):
    """A decision on a call that needs approval."""

    type: Literal["approval_response"] = "approval_response"
    tool_use_id: str
    approved: bool
    reason: str = ""
    edited_input: dict[str, Any] | None = None


class Interrupt(_Event):
    """Stop what the agent is doing."""

    type: Literal["interrupt"] = "interrupt"


class ManualToolInvoke(_Event):
    """The person runs a tool by hand."""

    type: Literal["manual_tool_invoke"] = "manual_tool_invoke"
    name: str
    input: dict[str, Any]
    request_id: str


class PromptAnswer(_Event):
    """Action: a front end's answer to one prompt, as the person gave it.

    `answer` is `{"value": ...}`, `{"skip": true}`, or an ack in its long form
    (`{"status": "success", "output": ...}`, `{"status": "failed", "error_text": ...}`,
    `{"status": "timeout"}`). The broker turns it into the call's `ToolResult` or
    `ApprovalDecision`, or refuses it and leaves the prompt open.
    """

    type: Literal["prompt_answer"] = "prompt_answer"
    tool_use_id: str
    answer: Any
    frontend: str = ""
    """Which front end sent it (a view id, "terminal", ...)."""


class PromptChanged(_Event):
    """Display: a prompt opened, was answered, refused an answer, timed out or was cancelled."""

    type: Literal["prompt_changed"] = "prompt_changed"
    prompt: Prompt


class AnswerRefused(_Event):
    """Display: an answer (or a front end's message) was refused; the prompt, if any, stays open."""

    type: Literal["answer_refused"] = "answer_refused"
    tool_use_id: str = ""
    reason: str


DisplayEvent = Annotated[
    TextDelta
    | ThinkingDelta
    | ToolInputDelta
    | AssistantBlock
    | TurnNotice
    | MessageEvent
    | ToolStarted
    | ToolProgress
    | ToolStep
    | ToolResultPreview
    | ToolCompleted
    | ToolErrorEvent
    | AwaitingFrontendTools
    | ApprovalRequired
    | Status
    | ToolsetChanged
    | UsageEvent
    | PromptChanged
    | AnswerRefused,
    Field(discriminator="type"),
]
ActionEvent = Annotated[
    UserInput | PromptAnswer | ToolResults | ApprovalResponse | Interrupt | ManualToolInvoke,
    Field(discriminator="type"),
]
Event = Annotated[
    TextDelta
    | ThinkingDelta
    | ToolInputDelta
    | AssistantBlock
    | TurnNotice
    | MessageEvent
    | ToolStarted
    | ToolProgress
    | ToolStep
    | ToolResultPreview
    | ToolCompleted
    | ToolErrorEvent
    | AwaitingFrontendTools
    | ApprovalRequired
    | Status
    | ToolsetChanged
    | UsageEvent
    | PromptChanged
    | AnswerRefused
    | UserInput
    | PromptAnswer
    | ToolResults
    | ApprovalResponse
    | Interrupt
    | ManualToolInvoke,
    Field(discriminator="type"),
]
EVENT_ADAPTER: pydantic.TypeAdapter[Event] = pydantic.TypeAdapter(Event)
_EVENT_LIST: pydantic.TypeAdapter[list[Event]] = pydantic.TypeAdapter(list[Event])
