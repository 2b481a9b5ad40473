"""What a session remembers of its tool set, and the changes a tool result can ask for.

Plain pydantic values that round-trip through JSON exactly: `ToolsetState` is part of the
saved `AgentState`, so an expanded plugin, an injected one or a hidden tool is still so after a
restart. Only names are kept; the `Plugin` objects themselves are registered on the agent.
Everything is stored as an override of the agent's defaults, so a plugin or tool added to the
code later starts as its definition says.
"""

from __future__ import annotations

from typing import Any

import pydantic
from pydantic import BaseModel, ConfigDict, Field

__all__ = ["Augmentation", "ContextItem", "ToolsetState"]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_assignment=True, strict=True)


class ContextItem(_Model):
    """A fact the model keeps seeing in the system prompt (e.g. `user`: "an admin is logged in")."""

    key: str = Field(min_length=1, max_length=200)
    """A later item with the same key replaces the earlier one."""
    value: str = Field(max_length=10_000)


class Augmentation(_Model):
    """How a tool result changes the tool set, from the next request on.

    Applied in this order: inject, remove, expand, collapse, hide, show, context. Every name must be
    known to the agent (a plugin registered on it, a tool it has), else the whole change is refused.
    """

    inject: list[str] = Field(default_factory=list)
    """Plugins to add to the session (registered on the agent, e.g. with `available_plugins=`)."""
    remove: list[str] = Field(default_factory=list)
    """Plugins to take out of the session."""
    expand: list[str] = Field(default_factory=list)
    """Plugins whose tools are offered from now on (instead of their container tool)."""
    collapse: list[str] = Field(default_factory=list)
    """Plugins folded back into their container tool (their skills end too)."""
    hide: list[str] = Field(default_factory=list)
    """Tools not to offer, wherever they are."""
    show: list[str] = Field(default_factory=list)
    """Tools to offer again (or, for `hidden_tools=`, for the first time)."""
    context: list[ContextItem] = Field(default_factory=list)
    """Facts for the system prompt."""

    _plugins: list[Any] = pydantic.PrivateAttr(default_factory=list)
    """`Plugin` objects given to `inject` (registered on the agent when the change is applied)."""

    def is_empty(self) -> bool:
        """Whether it changes nothing."""
        return not any(getattr(self, name) for name in type(self).model_fields)


class ToolsetState(_Model):
    """The session's tool set, as overrides of the agent's defaults."""

    plugins: dict[str, bool] = Field(default_factory=dict)
    """Plugin name -> in the session (True: injected, False: removed)."""
    expanded: dict[str, bool] = Field(default_factory=dict)
    """Plugin name -> expanded (overrides the plugin's `start_collapsed`)."""
    skills: list[str] = Field(default_factory=list)
    """Active skills, by name."""
    tools: dict[str, bool] = Field(default_factory=dict)
    """Tool name -> offered (False: hidden; True: shown although `hidden_tools=` hides it)."""
    context: list[ContextItem] = Field(default_factory=list)
    """Facts added by tool results, in the system prompt while the session lasts."""
