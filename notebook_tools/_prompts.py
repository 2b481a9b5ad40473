"""Prompts: what a person is asked, whichever front end shows it.

A prompt is one open frontend call or approval as a front end renders it. The
broker owns them; front ends show them (`PromptChanged` events) and report
answers (`PromptAnswer` action events), so a widget, a terminal and a web page
stay in step.
"""

from __future__ import annotations

from typing import Any, Literal, cast

from pydantic import BaseModel, ConfigDict

from ._tools import Tool

__all__ = ["Prompt", "PromptKind", "PromptStatus", "prompt_kind"]

PromptKind = Literal["confirm", "text", "select", "file", "generic", "approval"]
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


def prompt_kind(tool: Tool | None) -> PromptKind:
    """Which renderer shows this tool (a tool without one gets a validated text box)."""
    kind = (tool.display.get("prompt") if tool else None) or "generic"
    return cast(PromptKind, kind) if kind in ("confirm", "text", "select", "file") else "generic"
