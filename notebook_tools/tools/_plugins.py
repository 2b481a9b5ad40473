"""Plugins: named groups of tools the model sees as one container tool until it opens them.

A `Plugin` holds backend and frontend tools alike, `Skill`s (named workflows over some of its
tools), a one-time message for when it expands and persistent instructions for the system prompt
while it is expanded. `Augmented` is what a backend tool returns to change the tool set.
What is offered on each request is computed by `_toolset.Toolset` from these and the session.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from .._exceptions import ToolDefinitionError
from ..api._rules import TOOL_NAME_RE
from ._tool import Tool, tool
from ._toolset_state import Augmentation, ContextItem

__all__ = ["Augmented", "KeptData", "Plugin", "Skill", "augmentation"]


def _check_name(kind: str, name: object) -> str:
    if not isinstance(name, str) or not TOOL_NAME_RE.match(name):
        raise ToolDefinitionError(
            f"{kind} name {name!r} must be 1-64 letters, digits, '_' or '-': the model calls it as a tool"
        )
    return name


def _text(kind: str, value: object) -> str | None:
    if value is not None and not isinstance(value, str):
        raise ToolDefinitionError(f"{kind} must be a string or None, not {type(value).__name__}")
    return value or None


class KeptData(Protocol):
    """Where a plugin keeps JSON with the session of an agent that offers it (see `Plugin.bind`)."""

    @property
    def session(self) -> str:
        """The session's id (the agent's uuid): it changes when the agent takes up another session."""
        ...

    def get(self, name: str) -> dict[str, Any] | None:
        """What was kept under `name` in the session (None: nothing)."""
        ...

    def keep(self, name: str, data: dict[str, Any]) -> None:
        """Keep `data` (a JSON object) under `name`, saved with the session at once."""
        ...

    def remembered_scopes(self, tool: str) -> dict[str, str]:
        """The approval scopes of `tool` the person chose to remember in the session: key -> label."""
        ...


@dataclass(frozen=True)
class Skill:
    """A named workflow inside a plugin: activating it offers exactly the tools it names.

    Args:
        name: What the model calls to activate it (a tool name: letters, digits, `_`, `-`).
        description: When to use it (the model reads it on the skill's container tool).
        tools: Names of the plugin's tools the workflow uses.
        activation_message: Added once, to the automatic "{name} skill activated. ..." result.
        instructions: Joins the system prompt on every request while the skill is active.
    """

    name: str
    description: str
    tools: Sequence[str]
    activation_message: str | None = None
    instructions: str | None = None

    def __post_init__(self) -> None:
        _check_name("Skill", self.name)
        if isinstance(self.tools, str) or not all(isinstance(t, str) for t in self.tools) or not self.tools:
            raise ToolDefinitionError(f"Skill {self.name!r}: tools= takes a non-empty list of tool names")
        object.__setattr__(self, "tools", tuple(dict.fromkeys(self.tools)))
        _text("Skill description", self.description)
        object.__setattr__(self, "activation_message", _text("activation_message", self.activation_message))
        object.__setattr__(self, "instructions", _text("instructions", self.instructions))


@dataclass(frozen=True, eq=False)
class Plugin:
    """A group of tools that is ONE container tool for the model until it expands.

    Args:
        name: The container tool's name (letters, digits, `_`, `-`); unique among tools and plugins.
        description: What the group is for, shown on the container while collapsed.
        tools: Backend and frontend tools (`@tool` objects; plain functions become backend tools).
        skills: Named workflows over some of these tools.
        expansion_message: Added once, to the automatic "{name} expanded. Available functions: ..."
            result of the container call (never replacing it).
        instructions: Join the system prompt on every request while the plugin is expanded.
        start_collapsed: False offers the tools from the start (the container is then not offered).
    """

    name: str
    description: str = ""
    tools: Sequence[Tool | Callable[..., Any]] = ()
    skills: Sequence[Skill] = ()
    expansion_message: str | None = None
    instructions: str | None = None
    start_collapsed: bool = True
    by_name: dict[str, Tool] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        _check_name("Plugin", self.name)
        _text("Plugin description", self.description)
        object.__setattr__(self, "expansion_message", _text("expansion_message", self.expansion_message))
        object.__setattr__(self, "instructions", _text("instructions", self.instructions))
        if not isinstance(self.start_collapsed, bool):
            raise ToolDefinitionError("start_collapsed must be True or False")
        tools = tuple(t if isinstance(t, Tool) else tool(t) for t in self.tools)
        by_name: dict[str, Tool] = {}
        for t in tools:
            if t.name in by_name:
                raise ToolDefinitionError(f"Plugin {self.name!r} has two tools named {t.name!r}")
            by_name[t.name] = t
        if not by_name:
            raise ToolDefinitionError(f"Plugin {self.name!r} has no tools")
        if isinstance(self.skills, Skill) or not isinstance(self.skills, list | tuple):
            raise ToolDefinitionError(f"Plugin {self.name!r}: skills= takes a list of nt.Skill objects")
        skills = tuple(self.skills)
        seen = {self.name, *by_name}
        for skill in skills:
            if not isinstance(skill, Skill):
                raise ToolDefinitionError(f"Plugin {self.name!r}: skills= takes nt.Skill objects")
            if skill.name in seen:
                raise ToolDefinitionError(f"Plugin {self.name!r}: the name {skill.name!r} is used twice")
            seen.add(skill.name)
            if missing := [t for t in skill.tools if t not in by_name]:
                raise ToolDefinitionError(
                    f"Skill {skill.name!r} names tools that plugin {self.name!r} does not have: {missing}"
                )
        object.__setattr__(self, "tools", tools)
        object.__setattr__(self, "skills", skills)
        object.__setattr__(self, "by_name", by_name)

    def __repr__(self) -> str:
        return (
            f"Plugin(name={self.name!r}, tools={list(self.by_name)}, skills={[s.name for s in self.skills]})"
        )

    @property
    def model_tools(self) -> list[Tool]:
        """The tools the model may call (mode "llm" or "both"), in order."""
        return [t for t in self.by_name.values() if t.mode != "manual"]

    def skill(self, name: str) -> Skill | None:
        """The skill called `name`, if this plugin has one."""
        return next((s for s in self.skills if s.name == name), None)

    def bind(self, kept: KeptData) -> None:
        """Called by each agent that offers the plugin, with where it may keep JSON in the session.

        A plugin with state of its own (a ledger, remembered choices) overrides it; the default
        keeps nothing.
        """


def augmentation(
    *,
    inject: Iterable[str | Plugin] = (),
    remove: Iterable[str] = (),
    expand: Iterable[str] = (),
    collapse: Iterable[str] = (),
    hide: Iterable[str] = (),
    show: Iterable[str] = (),
    context: Iterable[ContextItem | tuple[str, str]] | dict[str, str] = (),
) -> Augmentation:
    """An `Augmentation` from names or objects (`Plugin`s to inject, `(key, value)` context pairs)."""
    injected = list(inject)
    pairs = context.items() if isinstance(context, dict) else context
    items = [c if isinstance(c, ContextItem) else ContextItem(key=c[0], value=c[1]) for c in pairs]
    change = Augmentation(
        inject=[p.name if isinstance(p, Plugin) else p for p in injected],
        remove=list(remove),
        expand=list(expand),
        collapse=list(collapse),
        hide=list(hide),
        show=list(show),
        context=items,
    )
    change._plugins = [p for p in injected if isinstance(p, Plugin)]
    return change


class Augmented:
    """What a backend tool returns to change the tool set along with its result.

    `return nt.Augmented("Logged in as admin", inject=[admin], hide=["login"])`: the model
    receives the value as usual; the changes apply from the next request.
    """

    def __init__(self, value: Any, change: Augmentation | None = None, **changes: Any) -> None:
        if change is not None and changes:
            raise ToolDefinitionError("give an Augmentation or keyword changes, not both")
        self.value = value
        self.augmentation = change if change is not None else augmentation(**changes)

    def __repr__(self) -> str:
        return f"Augmented({self.value!r}, {self.augmentation!r})"
