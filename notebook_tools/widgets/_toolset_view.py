"""What the widget shows of an agent's tool set: the `plugins` and `tools` traits of the Tools menu.

Both are recomputed from the agent (its registry and the session's tool-set state) whenever the tool
set may have changed: a `ToolsetChanged` event, a turn's status, a cleared or loaded session. They
are saved in the notebook with the widget's state, so they carry names and one-line descriptions,
never schemas of tools the person cannot run.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..events._toolset_text import container_names as names_of_containers
from ._wire_kernel import PluginInfo, ToolInfo

if TYPE_CHECKING:
    from ..agent._agent import Agent
    from ._view import ChatView

__all__ = ["container_names", "manual_tools", "plugin_infos", "refresh"]

DESCRIPTION_CHARS = 200
"""A plugin's or skill's description in the menu: its first line, cut to this."""


def _line(text: str) -> str:
    first = text.strip().split("\n", 1)[0] if text else ""
    return first if len(first) <= DESCRIPTION_CHARS else first[: DESCRIPTION_CHARS - 1] + "…"


def plugin_infos(agent: Agent) -> list[PluginInfo]:
    """The session's plugins: name, one-line description, expanded, tool names, skills."""
    return [
        {
            "name": p["name"],
            "description": _line(p["description"]),
            "expanded": bool(p["expanded"]),
            "tools": list(p["tools"]),
            "skills": [
                {"name": s["name"], "description": _line(s["description"]), "active": bool(s["active"])}
                for s in p["skills"]
            ],
        }
        for p in agent.plugins
    ]


def manual_tools(agent: Agent) -> list[ToolInfo]:
    """Backend tools a person may run by hand: those in no plugin, and those of the session's plugins."""
    toolset = agent.toolset
    grouped = {name: p.name for p in toolset.plugins.values() for name in p.by_name}
    present = {p["name"] for p in agent.plugins}
    return [
        {"name": t.name, "description": t.description, "input_schema": t.input_schema}
        for t in agent.tools.values()
        if t.mode != "llm" and t.executor == "backend" and grouped.get(t.name, "") in present | {""}
    ]


def container_names(agent: Agent | None) -> frozenset[str]:
    """Names the model calls to expand a plugin or activate a skill (never shown as tool cards)."""
    return frozenset() if agent is None else names_of_containers(agent.toolset.plugins.values())


def refresh(view: ChatView, agent: Agent) -> None:
    """Bring the `plugins` and `tools` traits up to date (a trait that did not change is not sent)."""
    values: dict[str, Any] = {"plugins": plugin_infos(agent), "tools": manual_tools(agent)}
    changed = {name: value for name, value in values.items() if getattr(view, name) != value}
    if changed:
        with view.hold_sync():
            for name, value in changed.items():
                setattr(view, name, value)
