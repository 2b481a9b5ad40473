"""The tool set of each request, computed from the registered tools and plugins and the session.

`Toolset` holds every tool and plugin the agent knows; what the model is offered on a request
is a pure function of that registry and the session's `ToolsetState`: loose tools first, then
each plugin in registration order as its container tool (collapsed) or its tools (expanded),
then the containers of skills not yet active. The order never depends on when something
changed, so a request is byte-identical to the previous one whenever nothing changed (prompt
caching keeps working).

How the model's calls of containers change that state is here too: routing a call (an offered
tool, a plugin or skill container, or a tool that is not available and how to make it so),
expanding, activating, collapsing, and applying an `Augmentation`. Nothing here changes a
session: every method returns a new `ToolsetState`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from .._exceptions import AugmentationError, ToolDefinitionError
from ._plugins import Plugin, Skill
from ._tool import Tool, tool
from ._toolset_state import Augmentation, ToolsetState

__all__ = ["FRONTEND_GROUP", "MAX_CONTEXT_ITEMS", "Route", "Toolset", "names_of"]

FRONTEND_GROUP = "frontend_tools"
"""The plugin `collapse_frontend_tools=True` puts every loose frontend tool in."""

_EMPTY_SCHEMA = {"type": "object", "properties": {}}
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


class Toolset:
    """Every tool and plugin an agent knows, and what a session offers of them."""

    def __init__(
        self,
        loose: Sequence[Tool],
        plugins: Sequence[Plugin] = (),
        available: Sequence[Plugin] = (),
        *,
        collapse_frontend_tools: bool = False,
        frontend_instructions: str | None = None,
        hidden_tools: Iterable[str] = (),
    ) -> None:
        self.tools: dict[str, Tool] = {}
        self.plugins: dict[str, Plugin] = {}
        self.frontend_instructions = frontend_instructions or None
        self._home: dict[str, str] = {}  # tool name -> its plugin's name
        self._skills: dict[str, str] = {}  # skill name -> its plugin's name
        self._reserved: set[str] = set()  # names of the API's own tools (server tools)
        self._start: set[str] = set()  # plugins in a session from its start
        for item in loose:
            self._claim(item.name, f"tool {item.name!r}")
            self.tools[item.name] = item
        self._loose = [t.name for t in loose]
        grouped = [t for t in loose if t.executor == "frontend"] if collapse_frontend_tools else []
        if grouped:
            self._loose = [t.name for t in loose if t.executor != "frontend"]
            group = Plugin(
                FRONTEND_GROUP,
                "Tools that ask the user something or act in their browser",
                grouped,
                instructions=self.frontend_instructions,
            )
            self._add_plugin(group, start=True, own_tools=False)
        for plugin in plugins:
            self.register(plugin, start=True)
        for plugin in available:
            self.register(plugin)
        self._hidden = set(hidden_tools)
        if unknown := sorted(self._hidden - set(self.tools)):
            raise ToolDefinitionError(f"hidden_tools names tools the agent does not have: {unknown}")

    # -- the registry --------------------------------------------------------------------

    def _claim(self, name: str, what: str) -> None:
        taken = self.tools.keys() | self.plugins.keys() | self._skills.keys() | self._reserved
        if name in taken:
            raise ToolDefinitionError(f"two tools are named {name!r} (the second: {what})")

    def reserve(self, names: Sequence[str], what: str) -> None:
        """Names the API's own tools (server tools) take: no tool, plugin or skill may have one."""
        for name in names:
            self._claim(name, f"{what} {name!r}")
        self._reserved.update(names)

    def add(self, tools: Sequence[Tool]) -> None:
        """Add loose tools (all or none: a clash adds nothing)."""
        names = [t.name for t in tools]
        for item in tools:
            if not isinstance(item, Tool):
                raise ToolDefinitionError(f"add takes nt.Tool objects, not {type(item).__name__}")
            self._claim(item.name, f"tool {item.name!r}")
            if names.count(item.name) > 1:
                raise ToolDefinitionError(f"two tools are named {item.name!r}")
        for item in tools:
            self.tools[item.name] = item
            self._loose.append(item.name)

    def register(self, plugin: Plugin, *, start: bool = False) -> None:
        """Make `plugin` known (a plugin object registered again is left as it is)."""
        if not isinstance(plugin, Plugin):
            raise ToolDefinitionError(f"plugins take nt.Plugin objects, not {type(plugin).__name__}")
        if self.plugins.get(plugin.name) is plugin:
            return
        self._add_plugin(plugin, start=start, own_tools=True)

    def _add_plugin(self, plugin: Plugin, *, start: bool, own_tools: bool) -> None:
        self._claim(plugin.name, f"plugin {plugin.name!r}")
        for skill in plugin.skills:
            self._claim(skill.name, f"skill {skill.name!r} of plugin {plugin.name!r}")
        if own_tools:
            for t in plugin.by_name.values():
                self._claim(t.name, f"tool {t.name!r} of plugin {plugin.name!r}")
        self.plugins[plugin.name] = plugin
        for t in plugin.by_name.values():
            self.tools[t.name] = t
            self._home[t.name] = plugin.name
        for skill in plugin.skills:
            self._skills[skill.name] = plugin.name
        if start:
            self._start.add(plugin.name)

    # -- reading a session's state ---------------------------------------------------------

    def present(self, state: ToolsetState, plugin: str) -> bool:
        """Whether the plugin is part of the session (registered at the start, or injected)."""
        return plugin in self.plugins and state.plugins.get(plugin, plugin in self._start)

    def expanded(self, state: ToolsetState, plugin: str) -> bool:
        """Whether the plugin offers its tools (rather than its container)."""
        return state.expanded.get(plugin, not self.plugins[plugin].start_collapsed)

    def visible(self, state: ToolsetState, tool: str) -> bool:
        """Whether the tool is not hidden."""
        return state.tools.get(tool, tool not in self._hidden)

    def active_skills(self, state: ToolsetState) -> list[tuple[Plugin, Skill]]:
        """The active skills of plugins in the session."""
        out = []
        for name in state.skills:
            home = self._skills.get(name)
            if home is not None and self.present(state, home):
                plugin = self.plugins[home]
                skill = plugin.skill(name)
                assert skill is not None
                out.append((plugin, skill))
        return out

    def _skill_tools(self, state: ToolsetState, plugin: Plugin, skill: Skill) -> list[Tool]:
        tools = (plugin.by_name[n] for n in skill.tools)
        return [t for t in tools if t.mode != "manual" and self.visible(state, t.name)]

    def _plugin_tools(self, state: ToolsetState, plugin: Plugin) -> list[Tool]:
        return [t for t in plugin.model_tools if self.visible(state, t.name)]

    def offered(self, state: ToolsetState) -> list[Tool | Plugin | Skill]:
        """What the model is offered, in the request's (stable) order."""
        out: dict[str, Tool | Plugin | Skill] = {}
        for name in self._loose:
            t = self.tools[name]
            if t.mode != "manual" and self.visible(state, name):
                out[name] = t
        active = {skill.name for _, skill in self.active_skills(state)}
        for plugin in self.plugins.values():
            if not self.present(state, plugin.name):
                continue
            tools = self._plugin_tools(state, plugin)
            if self.expanded(state, plugin.name):
                out.update((t.name, t) for t in tools)
            else:
                if tools:  # a container that would open nothing (all hidden or manual) is not offered
                    out[plugin.name] = plugin
                for skill in plugin.skills:
                    if skill.name in active:
                        out.update((t.name, t) for t in self._skill_tools(state, plugin, skill))
            for skill in plugin.skills:
                if skill.name not in active and self._skill_tools(state, plugin, skill):
                    out[skill.name] = skill
        return list(out.values())

    def definitions(self, state: ToolsetState) -> list[dict[str, Any]]:
        """The request's `tools`: tool definitions and container tools."""
        return [self._definition(state, item) for item in self.offered(state)]

    def _definition(self, state: ToolsetState, item: Tool | Plugin | Skill) -> dict[str, Any]:
        if isinstance(item, Tool):
            return item.to_dict()
        if isinstance(item, Plugin):
            tools = self._plugin_tools(state, item)
            about = f" {item.description.rstrip('.')}." if item.description else ""
            count = f"{len(tools)} tool{'' if len(tools) == 1 else 's'}"
            text = (
                f"{item.name} ({count}):{about} Call this tool (no arguments) to make its "
                f"tools available: {names_of(tools)}."
            )
        else:
            home = self.plugins[self._skills[item.name]]
            tools = self._skill_tools(state, home, item)
            about = f" {item.description.rstrip('.')}." if item.description else ""
            text = (
                f"{item.name} (a skill of {home.name}):{about} Call this tool (no arguments) to activate "
                f"it; it offers: {names_of(tools)}."
            )
        return {"name": item.name, "description": text, "input_schema": dict(_EMPTY_SCHEMA)}

    def instructions(self, state: ToolsetState) -> str:
        """The system prompt's part that depends on the session: plugin and skill instructions, context."""
        parts = []
        offered = self.offered(state)
        frontend = any(isinstance(t, Tool) and t.executor == "frontend" for t in offered)
        if self.frontend_instructions and frontend and FRONTEND_GROUP not in self.plugins:
            parts.append(self.frontend_instructions)
        for plugin in self.plugins.values():
            if plugin.instructions and self.present(state, plugin.name) and self.expanded(state, plugin.name):
                parts.append(f"Instructions for the {plugin.name} tools:\n{plugin.instructions}")
        for _, skill in self.active_skills(state):
            if skill.instructions:
                parts.append(f"Instructions for the {skill.name} skill:\n{skill.instructions}")
        if state.context:
            parts.append("Context:\n" + "\n".join(f"- {c.key}: {c.value}" for c in state.context))
        return "\n\n".join(parts)

    def describe(self, state: ToolsetState) -> list[dict[str, Any]]:
        """The plugins of the session for front ends: name, description, expanded, tools, skills."""
        return [
            {
                "name": p.name,
                "description": p.description,
                "expanded": self.expanded(state, p.name),
                "tools": [t.name for t in p.by_name.values()],
                "skills": [
                    {"name": s.name, "description": s.description, "active": s.name in state.skills}
                    for s in p.skills
                ],
            }
            for p in self.plugins.values()
            if self.present(state, p.name)
        ]

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


def loose_tools(
    tools: Sequence[Tool | Callable[..., Any]], frontend_tools: Sequence[Tool | Callable[..., Any]]
) -> list[Tool]:
    """An agent's tools outside plugins: plain functions wrapped, each in the list of its executor.

    Raises:
        ToolDefinitionError: a frontend tool given in `tools=`, or a backend one in `frontend_tools=`.
    """

    def checked(item: Tool, executor: str) -> Tool:
        if item.executor != executor:
            where = "tools" if executor == "backend" else "frontend_tools"
            raise ToolDefinitionError(f"{item.name!r} is a {item.executor} tool but was given in {where}=")
        return item

    made = [checked(t if isinstance(t, Tool) else tool(t), "backend") for t in tools]
    return made + [
        checked(t if isinstance(t, Tool) else tool(executor="frontend")(t), "frontend")
        for t in frontend_tools
    ]
