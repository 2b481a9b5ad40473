"""How a tool-set change reads in a front end's transcript: one short line, the same in every front end.

The widget and the terminal both show a `ToolsetChanged` as a muted line ("cleaning expanded · 2
tools: drop_nulls, fill"), and both rebuild such lines from a saved history after a restart, where
the only trace of a container call is its tool_use block and the automatic result text (and of a
change by hand, the note the model was sent). Everything here is a pure function of that text.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Literal

from ..session._transitions import PLUGIN_NOTE_PREFIXES, RESET_NOTE, is_manual_note
from ..tools._plugins import Plugin

__all__ = [
    "available_tools",
    "change_phrase",
    "container_answer",
    "container_names",
    "event_line",
    "is_note",
    "note_line",
    "tools_phrase",
]

MAX_NAMES = 6
"""Names listed in a line before the rest is "…"."""

_VERBS = {
    "expanded": "expanded",
    "collapsed": "collapsed",
    "skill_activated": "activated skill",
    "injected": "injected",
    "removed": "removed",
    "hidden": "hidden",
    "shown": "shown",
    "context": "added context",
    "reset": "reset the tools",
    "mcp": "changed the tools of",
}
_AVAILABLE = re.compile(r"Available functions: ([^\n]*)")

ContainerAnswer = Literal["expanded", "skill_activated", "already"]


def _names(names: Sequence[str]) -> str:
    shown = ", ".join(names[:MAX_NAMES])
    return shown + (", …" if len(names) > MAX_NAMES else "")


def tools_phrase(tools: Sequence[str]) -> str:
    """The tools a container offers, counted and named: "2 tools: a, b" (or "no tools")."""
    if not tools:
        return "no tools"
    return f"{len(tools)} tool{'s' if len(tools) != 1 else ''}: {_names(tools)}"


def change_phrase(change: str, names: Sequence[str]) -> str:
    """One change in a few words: "injected admin", "hid login", "reset the tools"."""
    verb = _VERBS.get(change, change)
    return f"{verb} {_names(names)}" if names else verb


def event_line(
    change: str, names: Sequence[str], by: str, tools: Sequence[str] = (), source: str = ""
) -> str:
    """The transcript line of one `ToolsetChanged` (`source`: the tool whose result changed it)."""
    what = _names(names)
    if by == "person":
        return "You reset the tools" if change == "reset" else f"You {change_phrase(change, names)}"
    if by == "tool":
        return f"Tools changed by {source or 'a tool'}: {change_phrase(change, names)}"
    if by == "run":
        return f"Before this run: {change_phrase(change, names)}"
    if by == "server":
        return f"MCP server {what} changed its tools · {tools_phrase(tools)}"
    if change == "expanded":
        return f"{what} expanded · {tools_phrase(tools)}"
    if change == "skill_activated":
        return f"Skill {what} activated · {tools_phrase(tools)}"
    return change_phrase(change, names).capitalize()


def container_names(plugins: Iterable[Plugin]) -> frozenset[str]:
    """The names the model calls to expand a plugin or activate a skill (never shown as tool cards)."""
    plugins = list(plugins)
    return frozenset([p.name for p in plugins] + [s.name for p in plugins for s in p.skills])


def container_answer(name: str, text: str) -> ContainerAnswer | None:
    """What the answer of a container call `name` says: expanded, activated, already so (None: neither)."""
    if text.startswith(f"{name} expanded. Available functions:"):
        return "expanded"
    if text.startswith(f"{name} skill activated. Available functions:"):
        return "skill_activated"
    if text.startswith((f"{name} is already expanded.", f"{name} skill is already active.")):
        return "already"
    return None


def available_tools(text: str) -> list[str]:
    """The functions a container's answer lists."""
    found = _AVAILABLE.search(text)
    return [n for n in (found.group(1).split(", ") if found else []) if n]


def is_note(text: str) -> bool:
    """Whether a user-message text block holds notes of things done by hand (not the person's words).

    The notes of one message are joined by lines into one block; `_transitions.is_manual_note` reads
    its start, which misses a block whose first note is the reset note followed by others.
    """
    return is_manual_note(text) or text.startswith(RESET_NOTE + "\n")


def note_line(text: str) -> str | None:
    """The line of a note of a plugin changed, or the tools reset, by hand ("You expanded plotting")."""
    if text == RESET_NOTE:
        return "You reset the tools"
    for prefix, verb in zip(PLUGIN_NOTE_PREFIXES, ("expanded", "collapsed"), strict=True):
        if text.startswith(prefix):
            name = re.split(r"[.:]", text[len(prefix) :], maxsplit=1)[0]
            return f"You {verb} {name}"
    return None
