"""The tool set of each request, computed from the registered tools and plugins and the session.

`Toolset` holds every tool and plugin the agent knows; what the model is offered on a request
is a pure function of that registry and the session's `ToolsetState`: loose tools first, then
each plugin in registration order as its container tool (collapsed) or its tools (expanded),
then the containers of skills not yet active. The order never depends on when something
changed, so a request is byte-identical to the previous one whenever nothing changed (prompt
caching keeps working). Nothing here changes a session: the methods return new states.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

from .._exceptions import ToolDefinitionError
from ._plugins import Plugin, Skill
from ._tool import Tool, tool
from ._toolset_changes import ToolsetChanges, names_of
from ._toolset_state import ToolsetState

__all__ = ["FRONTEND_GROUP", "Toolset"]

FRONTEND_GROUP = "frontend_tools"
"""The plugin `collapse_frontend_tools=True` puts every loose frontend tool in."""

_EMPTY_SCHEMA = {"type": "object", "properties": {}}


class Toolset(ToolsetChanges):
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
