"""What the model's calls of containers do, and how the tool set changes.

The second half of `_toolset.Toolset` (the registry and what a session offers are in `_toolset`):
routing a call (an offered tool, a plugin or skill container, or a tool that is not available and
how to make it so), expanding, activating, collapsing, and applying an `Augmentation`. Every
method returns a new `ToolsetState`; nothing here changes a session.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from .._exceptions import AugmentationError
from ._plugins import Plugin, Skill
from ._tool import Tool
from ._toolset_state import Augmentation, ToolsetState

__all__ = ["MAX_CONTEXT_ITEMS", "Route", "ToolsetChanges", "names_of"]

MAX_CONTEXT_ITEMS = 50
"""Context items a session keeps (by key); more push the oldest out, so the system prompt stays bounded."""


@dataclass(frozen=True)
class Route:
    """What a call of `name` is: an offered tool, a plugin or skill container, or unavailable."""

    kind: Literal["tool", "plugin", "skill", "unavailable"]
    plugin: Plugin | None = None
    skill: Skill | None = None
    text: str = ""
    """Why the tool cannot be called and how to make it available (for "unavailable")."""


def names_of(tools: Iterable[Tool]) -> str:
    """Tool names for a message: "a, b, c" (or "none")."""
    return ", ".join(t.name for t in tools) or "none"


class ToolsetChanges:
    """Routing and changes; the registry they read is `Toolset`'s."""

    tools: dict[str, Tool]
    plugins: dict[str, Plugin]
    _home: dict[str, str]
    _skills: dict[str, str]
    _start: set[str]
    _hidden: set[str]

    def present(self, state: ToolsetState, plugin: str) -> bool:
        raise NotImplementedError

    def expanded(self, state: ToolsetState, plugin: str) -> bool:
        raise NotImplementedError

    def visible(self, state: ToolsetState, tool: str) -> bool:
        raise NotImplementedError

    def offered(self, state: ToolsetState) -> list[Tool | Plugin | Skill]:
        raise NotImplementedError

    def register(self, plugin: Plugin, *, start: bool = False) -> None:
        raise NotImplementedError

    def _plugin_tools(self, state: ToolsetState, plugin: Plugin) -> list[Tool]:
        raise NotImplementedError

    def _skill_tools(self, state: ToolsetState, plugin: Plugin, skill: Skill) -> list[Tool]:
        raise NotImplementedError

    # -- calls of the model ----------------------------------------------------------------

    def route(self, asked: ToolsetState, now: ToolsetState, name: str) -> Route:
        """What a call of `name` is.

        `asked` is the tool set the request offered; `now` the state after the reply's earlier calls.
        """
        offered_then = self.offered(asked)
        containers = {item.name for item in offered_then if not isinstance(item, Tool)}
        known = name in self.plugins and self.present(now, name)
        if known and (name in containers or self.expanded(now, name)):  # expanded: "already expanded"
            return Route("plugin", plugin=self.plugins[name])
        home = self._skills.get(name)
        if home is not None and self.present(now, home) and (name in containers or name in now.skills):
            return Route("skill", plugin=self.plugins[home], skill=self.plugins[home].skill(name))
        offered = {item.name for item in offered_then if isinstance(item, Tool)}
        if name in offered:
            return Route("tool")
        found = self.tools.get(name)
        if found is None or found.mode == "manual":
            return Route("unavailable", text=self.unknown_text(name, asked))
        if not self.visible(now, name):
            text = (
                f"Tool {name!r} is hidden at the moment, so it cannot be called; it is offered again "
                "once a tool result or the user shows it."
            )
            return Route("unavailable", text=text)
        plugin = self._home[name]
        if not self.present(now, plugin):
            text = (
                f"Tool {name!r} belongs to the plugin {plugin!r}, which is not part of this session now; "
                "it is offered again if a tool result adds the plugin back."
            )
            return Route("unavailable", text=text)
        if name in {item.name for item in self.offered(now)}:
            text = (
                f"Tool {name!r} was not offered yet when you called it: it became available in this "
                "same reply. Call it again."
            )
            return Route("unavailable", text=text)
        skills = [s.name for s in self.plugins[plugin].skills if name in s.tools]
        hint = f" (or one of its skills that uses it: {', '.join(skills)})" if skills else ""
        text = (
            f"Tool {name!r} is part of the collapsed plugin {plugin!r}. Call the tool {plugin!r}{hint} "
            "first to make it available, then call this tool again."
        )
        return Route("unavailable", text=text)

    def unknown_text(self, name: str, state: ToolsetState) -> str:
        """What the model is told when it calls a tool it was never offered."""
        names = ", ".join(item.name for item in self.offered(state)) or "none"
        return f"Unknown tool {name!r}. Available tools: {names}."

    # -- changes ---------------------------------------------------------------------------

    def expand(self, state: ToolsetState, plugin: Plugin) -> tuple[ToolsetState, str, list[str]]:
        """Expand `plugin`: the new state, the container call's result text, the functions it offers."""
        tools = [t.name for t in self._plugin_tools(state, plugin)]
        if self.expanded(state, plugin.name):
            return state, f"{plugin.name} is already expanded. Available functions: {', '.join(tools)}", tools
        text = f"{plugin.name} expanded. Available functions: {', '.join(tools)}"
        if plugin.expansion_message:
            text += f"\n\n{plugin.expansion_message}"
        return self._set(state, "expanded", plugin.name, True), text, tools

    def activate(
        self, state: ToolsetState, plugin: Plugin, skill: Skill
    ) -> tuple[ToolsetState, str, list[str]]:
        """Activate `skill`: the new state, the skill call's result text, the functions it offers."""
        tools = [t.name for t in self._skill_tools(state, plugin, skill)]
        if skill.name in state.skills:
            return (
                state,
                f"{skill.name} skill is already active. Available functions: {', '.join(tools)}",
                tools,
            )
        text = f"{skill.name} skill activated. Available functions: {', '.join(tools)}"
        if skill.activation_message:
            text += f"\n\n{skill.activation_message}"
        return state.model_copy(update={"skills": [*state.skills, skill.name]}), text, tools

    def collapse(self, state: ToolsetState, plugin: str) -> ToolsetState:
        """Fold `plugin` back into its container; its active skills end."""
        state = self._set(state, "expanded", plugin, False)
        skills = [s for s in state.skills if self._skills.get(s) != plugin]
        return state.model_copy(update={"skills": skills})

    def _set(self, state: ToolsetState, field: str, key: str, value: bool) -> ToolsetState:
        """Set one override; a value equal to the default removes it (so states compare by meaning)."""
        default = {
            "plugins": lambda: key in self._start,
            "expanded": lambda: not self.plugins[key].start_collapsed,
            "tools": lambda: key not in self._hidden,
        }[field]()
        current = dict(getattr(state, field))
        current.pop(key, None)
        if value != default:
            current[key] = value
        return state.model_copy(update={field: current})

    def check(self, change: Augmentation) -> list[str]:
        """What is wrong with `change` (unknown names), as readable lines; empty when it can apply."""
        known = {*self.plugins, *(p.name for p in change._plugins)}
        problems = []
        for field in ("inject", "remove", "expand", "collapse"):
            if unknown := [n for n in getattr(change, field) if n not in known]:
                problems.append(f"{field}: no plugin named {', '.join(map(repr, unknown))} is registered")
        tools = {*self.tools, *(t for p in change._plugins for t in p.by_name)}
        for field in ("hide", "show"):
            if unknown := [n for n in getattr(change, field) if n not in tools]:
                problems.append(f"{field}: no tool named {', '.join(map(repr, unknown))}")
        return problems

    def _clashes(self, plugins: list[Plugin]) -> list[str]:
        """Names the new plugin objects would take twice (with the registry or with each other)."""
        taken = {*self.tools, *self.plugins, *self._skills}
        problems = []
        for plugin in plugins:
            if self.plugins.get(plugin.name) is plugin:
                continue
            names = [plugin.name, *(s.name for s in plugin.skills), *plugin.by_name]
            if clash := [n for n in names if n in taken]:
                problems.append(
                    f"plugin {plugin.name!r} takes names already used: {', '.join(map(repr, clash))}"
                )
            taken.update(names)
        return problems

    def apply(self, state: ToolsetState, change: Augmentation) -> ToolsetState:
        """The state after `change` (registering the plugin objects it injects).

        Raises:
            AugmentationError: a name is unknown or an injected plugin clashes; nothing changed.
        """
        if problems := self.check(change) + self._clashes(change._plugins):
            raise AugmentationError("; ".join(problems))
        for plugin in change._plugins:
            self.register(plugin)  # checked above: registers all or none
        for name in change.inject:
            state = self._set(state, "plugins", name, True)
        for name in change.remove:
            state = self._set(state, "plugins", name, False)
            state = state.model_copy(
                update={"skills": [s for s in state.skills if self._skills.get(s) != name]}
            )
        for name in change.expand:
            state = self._set(state, "expanded", name, True)
        for name in change.collapse:
            state = self.collapse(state, name)
        for name in change.hide:
            state = self._set(state, "tools", name, False)
        for name in change.show:
            state = self._set(state, "tools", name, True)
        if change.context:
            latest = list({c.key: c for c in change.context}.values())  # a key given twice: the last
            keys = {c.key for c in latest}
            kept = [c for c in state.context if c.key not in keys]
            context = [*kept, *latest][-MAX_CONTEXT_ITEMS:]  # the oldest facts go first
            state = state.model_copy(update={"context": context})
        return state
