"""Prompts: what a person is asked, whichever front end shows it.

A prompt is one open frontend call or approval as a front end renders it. The
broker owns them; front ends show them (`PromptChanged` events) and report
answers (`PromptAnswer` action events), so a widget, a terminal and a web page
stay in step.
"""

from __future__ import annotations

from typing import Any, Literal, cast

from pydantic import BaseModel, ConfigDict

from ..tools._approvals import ApprovalPreview
from ..tools._tool import Tool

__all__ = ["Prompt", "PromptKind", "PromptStatus", "prompt_kind", "renderer_key"]

PromptKind = Literal["confirm", "text", "select", "file", "generic", "approval", "custom"]
PromptStatus = Literal["pending", "answered", "skipped", "timed_out", "cancelled", "failed"]


class Prompt(BaseModel):
    """One prompt as a front end shows it, keyed by the call's tool_use_id."""

    model_config = ConfigDict(extra="forbid")

    tool_use_id: str
    name: str
    kind: PromptKind
    input: dict[str, Any]
    description: str = ""
    status: PromptStatus = "pending"
    answer: str = ""
    """What was answered, as shown to the person (empty while pending)."""
    error: str = ""
    """Why the last answer was refused (empty when none was)."""
    timeout: float | None = None
    requested_at: float
    output_schema: dict[str, Any] | None = None
    input_schema: dict[str, Any] | None = None
    """For approval cards the schema the "edit the arguments" form is built from; for a custom
    tool's card, where its arguments' descriptions come from."""
    renderer: str = ""
    """For kind "custom": the front end's name for its renderer (the tool's name for a module of
    your own, sent to views on hello; "nt.open_url" and the like for the widget's built-ins)."""
    scope: str = ""
    """For an approval card whose tool has scopes: what "remember for calls like this" covers
    (the `ApprovalScope` label; empty: the card offers no such choice)."""
    reasons: list[str] = []
    """For an approval card: why this call asks (the scope's reasons), shown above its buttons."""
    preview: ApprovalPreview | None = None
    """For an approval card whose tool previews its calls: what the call will do (a diff, a command),
    shown as plain text above the arguments."""
    editable: bool = True
    """For an approval card: whether it offers to edit the arguments (an agent that runs a call only
    as it asked it, an ACP agent, takes no edited input: its card has no editor)."""


def prompt_kind(tool: Tool | None) -> PromptKind:
    """Which renderer shows this tool (a tool without one gets a validated text box)."""
    if tool is not None and tool.renderer is not None:
        return "custom"
    kind = (tool.display.get("prompt") if tool else None) or "generic"
    return cast(PromptKind, kind) if kind in ("confirm", "text", "select", "file") else "generic"


def renderer_key(tool: Tool | None, kind: PromptKind) -> str:
    """The `renderer` of a prompt of this tool ("" unless it is of kind "custom")."""
    return tool.renderer.key(tool.name) if kind == "custom" and tool and tool.renderer else ""
