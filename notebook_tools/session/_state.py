"""Pause values and session state: what a paused agent needs, as pydantic models.

Besides what is sent to the model, a session keeps parts for the record and for front ends:
`SetAside` holds exchanges taken out of the history; `FrontView` holds what a front end needs to
show the history the way it first showed it (the ids its client gave messages, the order tool
results arrived in). Everything here round-trips through JSON exactly (`model_dump_json` then
`model_validate_json` gives an equal object), because a paused session is saved
to the store and resumed by `agent_uuid` in another process.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Sequence
from typing import Any, Literal

import pydantic
from pydantic import BaseModel, ConfigDict, Field

from ..api._prices import SCRIPTED_USAGE, billed_tokens, token_count
from ..api._rules import content_block_errors
from ..tools._approvals import PendingApproval, RememberedApproval
from ..tools._toolset_state import Augmentation, ToolsetState

__all__ = [
    "AgentState",
    "FrontView",
    "FrontendAck",
    "PendingFrontendTool",
    "QueuedCall",
    "RunResult",
    "SetAside",
    "StopReason",
    "ToolResult",
    "Usage",
]

SCHEMA_VERSION = 6  # 2: `revision`; 3: `toolset`; 4: turn options, continuation, set-aside; 5: app results;
# 6: front view

StopReason = Literal[
    "end_turn",
    "awaiting_frontend_tools",
    "awaiting_approval",
    "max_turns",
    "max_tokens",
    "refusal",
    "stop_sequence",
    "pause_turn",
    "model_context_window_exceeded",
    "stopped",
]
"""Why a turn returned; "stopped": the person pressed Stop (or interrupted the kernel) and every open
call was closed, so the next message carries on."""


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_assignment=True)


class SetAside(_Model):
    """An exchange taken out of the history (a refused turn), kept to show and for the record."""

    messages: list[dict[str, Any]]
    """The messages removed, from the person's message on."""
    stop_reason: str
    stop_details: dict[str, Any] | None = None
    at: float = Field(default_factory=time.time)


class FrontView(_Model):
    """How front ends saw the history: their own message ids, and the order results arrived in."""

    client_ids: dict[str, str] = Field(default_factory=dict)
    """A client's id for a message, by the id derived from the history (`msg_<index>`, `result_<call>`)."""
    result_order: dict[str, list[str]] = Field(default_factory=dict)
    """For a tool results message (by its index) whose results arrived out of call order, the call ids in
    the order they arrived: a backend result streams before the person answers a frontend call."""

    def arrived(self, index: int, results: Sequence[Any], calls: list[str]) -> FrontView:
        """This view once the results message at `index` holds `results` (in arrival order) for `calls`."""
        order = [r.tool_use_id for r in results]
        if order == calls:
            return self
        return self.model_copy(update={"result_order": {**self.result_order, str(index): order}})

    def client_id(self, derived: str) -> str:
        """The client's id for the message `derived` names, else `derived` itself."""
        return self.client_ids.get(derived, derived)


class ToolResult(_Model):
    """The answer to one tool call, as the model will receive it in a `tool_result` block.

    Strict: untrusted answers are never coerced (`"true"` is not a bool, `7` is not an id).
    """

    model_config = ConfigDict(extra="forbid", validate_assignment=True, strict=True)

    kind: Literal["tool_result"] = "tool_result"
    tool_use_id: str
    """The id of the `tool_use` block this answers."""
    content: str | list[dict[str, Any]]
    """Text, or a list of Messages API content blocks (text, image, document, ...)."""
    is_error: bool = False
    """True when the call failed, was skipped or timed out; the model sees it as an error."""
    augmentation: Augmentation | None = None
    """How this answer changes the tool set from the next request on (never sent to the model)."""

    @pydantic.field_validator("content")
    @classmethod
    def _blocks_are_api_blocks(cls, content: str | list[dict[str, Any]]) -> str | list[dict[str, Any]]:
        # The same rules the scripted API enforces: strict keys, decodable base64, allowed media types.
        errors = content_block_errors(content)
        if errors:
            raise ValueError("; ".join(errors[:5]))
        return content

    @pydantic.model_serializer(mode="wrap")
    def _no_empty_augmentation(self, handler: pydantic.SerializerFunctionWrapHandler) -> dict[str, Any]:
        data: dict[str, Any] = handler(self)
        if data.get("augmentation", 0) is None:
            del data["augmentation"]  # saved states and dumps look as they did before plugins existed
        return data

    @pydantic.model_validator(mode="after")
    def _errors_say_something(self) -> ToolResult:
        if self.is_error and not self.content:
            raise ValueError("an error result needs content: the API refuses an empty one with is_error")
        return self

    def text_size(self) -> int:
        """Characters of text this result carries (text blocks and plain text)."""
        if isinstance(self.content, str):
            return len(self.content)
        return sum(len(str(b.get("text", ""))) for b in self.content)

    def to_block(self) -> dict[str, Any]:
        """The Messages API `tool_result` block."""
        block: dict[str, Any] = {
            "type": "tool_result",
            "tool_use_id": self.tool_use_id,
            "content": self.content,
        }
        if self.is_error:
            block["is_error"] = True
        return block


class PendingFrontendTool(_Model):
    """A frontend tool call the model made that waits for a person's answer."""

    kind: Literal["pending_frontend_tool"] = "pending_frontend_tool"
    tool_use_id: str
    """The id of the model's `tool_use` block; the answer must carry the same id."""
    name: str
    """The frontend tool's name."""
    input: dict[str, Any]
    """The arguments the model gave (validated against the tool's input schema)."""
    requested_at: float = Field(default_factory=time.time)
    """Unix time when the call was made."""
    timeout: float | None = None
    """Seconds the person has to answer, or None for no limit."""


class QueuedCall(_Model):
    """A backend call of the last assistant message that is allowed to run and has not finished yet.

    Saved before it runs: if the process dies while it runs, the call runs again when the
    session carries on (at-least-once).
    """

    kind: Literal["queued_call"] = "queued_call"
    tool_use_id: str
    name: str
    input: dict[str, Any]
    """The arguments it runs with (the person's edit, when they edited them)."""
    original_input: dict[str, Any] | None = None
    """The model's arguments, when the person edited them before approving."""
    checkpoint: dict[str, Any] | None = Field(default=None, exclude_if=lambda value: value is None)
    """What the running call saved to pick up after a restart (`nt.checkpoint()`); left out when None."""


class FrontendAck(_Model):
    """What a front end reports for one frontend call: answered, failed, or timed out."""

    kind: Literal["frontend_ack"] = "frontend_ack"
    tool_use_id: str
    status: Literal["success", "failed", "timeout"]
    output: Any = None
    """The answer (for "success")."""
    error_text: str = ""
    """Why it failed or what the model is told (for "failed" and "timeout")."""
    requested_at: float
    """Unix time the call was made."""
    answered_at: float = Field(default_factory=time.time)


class Usage(_Model):
    """Token counts, server-tool requests and estimated cost, summed over a session's or a turn's requests."""

    input_tokens: int = 0
    """Input tokens billed at the full rate (after the last cache breakpoint)."""
    output_tokens: int = 0
    """Output tokens, thinking included."""
    cache_creation_input_tokens: int = 0
    """Input tokens written to the prompt cache."""
    cache_read_input_tokens: int = 0
    """Input tokens read from the prompt cache (billed at a tenth)."""
    server_tool_use: dict[str, int] = Field(default_factory=dict)
    """Server-tool requests by kind, as the API counts them (`web_search_requests`, ...)."""
    requests: int = 0
    cost_usd: float = 0.0
    """Estimated cost in US dollars, priced from `api/model_prices.json` at each response."""
    unpriced_requests: int = 0
    """Requests whose model the prices file does not know (not in `cost_usd`)."""
    scripted_requests: int = 0
    """Requests a scripted model answered (`testing.ScriptedTransport`): estimated tokens, no cost."""

    def add(self, usage: Any, cost: float | None = None) -> None:
        """Add the `usage` of one API response (its dict, or the SDK's model) and its cost (None: unknown)."""
        data = usage if isinstance(usage, dict) else usage.model_dump(exclude_none=True)
        tokens = billed_tokens(data)  # a compacted response: every iteration
        self.input_tokens += tokens["input_tokens"]
        self.output_tokens += tokens["output_tokens"]
        self.cache_creation_input_tokens += tokens["cache_creation_input_tokens"]
        self.cache_read_input_tokens += tokens["cache_read_input_tokens"]
        counts = data.get("server_tool_use")
        if isinstance(counts, dict):
            merged = dict(self.server_tool_use)
            for kind, n in counts.items():
                if token_count(n):
                    merged[kind] = merged.get(kind, 0) + n
            self.server_tool_use = merged
        self.requests += 1
        if data.get(SCRIPTED_USAGE) is True:
            self.scripted_requests += 1
        if cost is None:
            self.unpriced_requests += 1
        else:
            self.cost_usd = round(self.cost_usd + cost, 10)

    @property
    def context_tokens(self) -> int:
        """Every input token (full rate, cache written, cache read)."""
        return self.input_tokens + self.cache_creation_input_tokens + self.cache_read_input_tokens


class AgentState(_Model):
    """Everything a paused session needs to resume, in this process or another."""

    schema_version: int = SCHEMA_VERSION
    agent_uuid: str = Field(default_factory=lambda: str(uuid.uuid4()))
    """The session's id; `Agent.resume(..., agent_uuid=...)` loads it from the store."""
    messages: list[dict[str, Any]] = Field(default_factory=list)
    """The conversation as Messages API message params."""
    pending_frontend_tools: list[PendingFrontendTool] = Field(default_factory=list)
    """Frontend calls of the last assistant message still waiting for answers."""
    held_results: list[ToolResult] = Field(default_factory=list)
    """Results of the same message's backend calls, held until the frontend answers arrive."""
    pending_approvals: list[PendingApproval] = Field(default_factory=list)
    """Calls of the last assistant message waiting for a person's approval."""
    deferred_frontend_tools: list[PendingFrontendTool] = Field(default_factory=list)
    """Frontend calls of the same message, opened once the approvals are decided."""
    queued_calls: list[QueuedCall] = Field(default_factory=list)
    """Backend calls of the last assistant message allowed to run and not finished yet."""
    approvals: list[RememberedApproval] = Field(default_factory=list)
    """Approvals remembered for this session ("remember for this session")."""
    manual_notes: list[str] = Field(default_factory=list)
    """Tools the person ran by hand since the last message, told to the model with the next one."""
    toolset: ToolsetState = Field(default_factory=ToolsetState)
    """Plugins expanded, injected or removed, skills active, tools hidden or shown, context added."""
    usage: Usage = Field(default_factory=Usage)
    turn_usage: Usage = Field(default_factory=Usage)
    """Usage since the person's last message."""
    turn_options: dict[str, Any] | None = None
    """The request options of the running turn (`RequestOptions` as JSON): every request of a turn, and a
    resume after a restart, sends the same thinking setting."""
    turn_start: int | None = None
    """Index of the message that started the running turn (the person's), for setting a refused turn aside."""
    continuation: Literal["pause_turn", "max_tokens", "model_context_window_exceeded"] | None = None
    """The last response stopped early: `continue_turn()` carries it on (without a user message for
    "pause_turn")."""
    context_tokens: int = 0
    """Input tokens of the last request (cached ones included)."""
    set_aside: list[SetAside] = Field(default_factory=list)
    """Exchanges taken out of the history (refusals), oldest first."""
    plugin_data: dict[str, dict[str, Any]] = Field(default_factory=dict)
    """What plugins keep with the session (JSON), by plugin name (see `Plugin.bind`)."""
    app_results: dict[str, dict[str, Any]] = Field(default_factory=dict)
    """MCP apps' results by tool call id (`CallToolResult`s): a rebuilt chat's app cards get them again."""
    front_view: FrontView = Field(default_factory=FrontView)
    """Front ends' own message ids and the order results arrived in (never sent to the model)."""
    revision: int = 0
    """How many times this session was saved; the store refuses a save that does not start from the
    latest revision (`SessionStore.save` sets it)."""
    created_at: float = Field(default_factory=time.time)
    updated_at: float = Field(default_factory=time.time)

    @property
    def status(self) -> Literal["idle", "running", "awaiting_frontend_tools", "awaiting_approval"]:
        """What the session waits for.

        "awaiting_approval" while any approval is open (a person decides first); "running" while
        backend calls of the last message are queued (`continue_turn()` runs them); then
        "awaiting_frontend_tools" while prompts are open.
        """
        if self.pending_approvals:
            return "awaiting_approval"
        if self.queued_calls:
            return "running"
        return "awaiting_frontend_tools" if self.pending_frontend_tools else "idle"

    def tool_results_message(self, results: list[ToolResult]) -> dict[str, Any]:
        """The one user message answering every `tool_use` of the last assistant message, in its order.

        `results` must hold exactly one result per id (held results included).
        """
        by_id = {r.tool_use_id: r for r in results}
        return {"role": "user", "content": [by_id[i].to_block() for i in self.last_tool_use_ids()]}

    def last_tool_use_ids(self) -> list[str]:
        """Ids of the `tool_use` blocks of the last assistant message, in order."""
        for message in reversed(self.messages):
            if message["role"] == "assistant":
                content = message["content"]
                if isinstance(content, str):
                    return []
                return [b["id"] for b in content if b.get("type") == "tool_use"]
        return []


class RunResult(_Model):
    """What `Agent.run` and `Agent.resume` return when the loop stops or pauses."""

    stop_reason: StopReason | str
    """Why the loop returned; "awaiting_frontend_tools" means call `resume` with answers (a stop reason the
    API adds later arrives as its own string)."""
    agent_uuid: str
    pending_frontend_tools: list[PendingFrontendTool] = Field(default_factory=list)
    pending_approvals: list[PendingApproval] = Field(default_factory=list)
    """Calls waiting for approval when stop_reason is "awaiting_approval"; resume with ApprovalDecisions."""
    text: str = ""
    """The text of the last assistant message."""
    usage: Usage = Field(default_factory=Usage)
    """Token counts and cost of the whole session so far."""
    turn_usage: Usage = Field(default_factory=Usage)
    """Token counts and cost of this turn (since the person's message)."""
    thinking: str = ""
    """The thinking of this turn (summarized, as the API returns it), every block in order; "" without."""
    stop_details: dict[str, Any] | None = None
    """The API's `stop_details` (a refusal's category and explanation), when it sent them."""
    advice: str = ""
    """What happened and what to do, when the turn ended early (refusal, max_tokens, a full window)."""
