"""The agent's tool-set control: containers the model calls, tool results that augment, a person's hand.

Every change is a new `ToolsetState` committed like any other change of the session (saved before
it is adopted) and announced with a `ToolsetChanged` event; it applies from the next request.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from typing import Any, Literal

from .._exceptions import AugmentationError, InvalidToolResultError, ToolDefinitionError
from ..events._events import ToolsetChanged
from ..session import _transitions as tr
from ..session._state import AgentState, ToolResult
from ..tools._tool import Tool
from ..tools._toolset import Toolset
from ..tools._toolset_state import Augmentation, ToolsetState
from ._settings import Settings
from ._writer import SessionWriter

__all__ = ["ToolsetControl", "change_events"]

log = logging.getLogger("notebook_tools")

By = Literal["model", "person", "tool", "run"]
_FIELDS: dict[str, Any] = {
    "inject": "injected",
    "remove": "removed",
    "expand": "expanded",
    "collapse": "collapsed",
    "hide": "hidden",
    "show": "shown",
}


def change_events(change: Augmentation, by: By, tool_use_id: str = "") -> list[ToolsetChanged]:
    """One event per kind of change an augmentation makes."""
    events = [
        ToolsetChanged(change=kind, names=list(getattr(change, field)), by=by, tool_use_id=tool_use_id)
        for field, kind in _FIELDS.items()
        if getattr(change, field)
    ]
    if change.context:
        keys = [c.key for c in change.context]
        events.append(ToolsetChanged(change="context", names=keys, by=by, tool_use_id=tool_use_id))
    return events


class ToolsetControl:
    """Tool-set changes of one agent, and the request parts that depend on them.

    Args:
        writer: The session's writer (every change is saved before it is adopted).
        toolset: The agent's tool definitions and plugins.
        settings: The agent's settings (for its system prompt).
    """

    def __init__(self, writer: SessionWriter, toolset: Toolset, settings: Settings) -> None:
        self.writer = writer
        self.toolset = toolset
        self.settings = settings
        self.tools: dict[str, Tool] = toolset.tools
        self.unlisted: Callable[[], bool] = lambda: False
        """Whether some MCP server's tools are not listed yet (set by the agent's MCP servers)."""

    # -- what a request carries --------------------------------------------------------------

    def tool_definitions(self) -> list[dict[str, Any]]:
        """The `tools` the next request offers (containers of collapsed plugins, expanded tools)."""
        return self.toolset.definitions(self.writer.state.toolset)

    def system_prompt(self) -> str:
        """The system prompt of the next request: `system`, then plugin and skill instructions and context."""
        extra = self.toolset.instructions(self.writer.state.toolset)
        return "\n\n".join(part for part in (self.settings.system, extra) if part)

    @property
    def plugins(self) -> list[dict[str, Any]]:
        """The plugins of this session: name, description, expanded, tools, skills (and which are active)."""
        return self.toolset.describe(self.writer.state.toolset)

    # -- changes by a tool result ------------------------------------------------------------

    def augmented(
        self, toolset: ToolsetState, result: ToolResult, *, strict: bool
    ) -> tuple[ToolResult, ToolsetState, list[ToolsetChanged]]:
        """`result` without its augmentation, the tool set after it, and the events to publish.

        A change naming something unknown is refused: for a person's answer (`strict`) the whole
        answer is (`InvalidToolResultError`, nothing changed); for a backend tool's result the model
        is told in the result and the tool set stays as it was.
        """
        change = result.augmentation
        if change is None:
            return result, toolset, []
        result = result.model_copy(update={"augmentation": None})
        try:
            after = self.toolset.apply(toolset, change)
        except AugmentationError as exc:
            if strict:
                raise InvalidToolResultError(
                    result.tool_use_id, f"its tool-set change is refused: {exc}"
                ) from None
            log.warning("the tool-set change of %s was refused: %s", result.tool_use_id, exc)
            note = f"(Its change to the available tools was refused: {exc}.)"
            content: Any = (
                f"{result.content}\n{note}"
                if isinstance(result.content, str)
                else [*result.content, {"type": "text", "text": note}]
            )
            return result.model_copy(update={"content": content}), toolset, []
        return result, after, change_events(change, "tool", result.tool_use_id)

    def hooked(self, result: ToolResult, name: str) -> ToolResult:
        """`result` with the change its tool's `augment=` function asks for (a failing function: none)."""
        hook = getattr(self.tools.get(name), "augment", None)
        if hook is None or result.is_error or result.augmentation is not None:
            return result
        try:
            change = hook(result)
        except Exception:
            log.warning("the augment= function of %s raised; the tool set is unchanged", name, exc_info=True)
            return result
        if change is not None and not isinstance(change, Augmentation):
            log.warning("the augment= function of %s returned %r, not an nt.Augmentation", name, change)
            return result
        return result if change is None else result.model_copy(update={"augmentation": change})

    async def record(self, result: ToolResult, name: str) -> None:
        """A queued backend call finished: hold its result, applying the tool-set change it asks for."""
        writer = self.writer
        result = self.hooked(result, name)
        result, toolset, events = self.augmented(writer.state.toolset, result, strict=False)
        await writer.commit(tr.record_result(tr.set_toolset(writer.state, toolset), result))
        for event in events:
            await writer.publish(event)

    # -- changes by hand ---------------------------------------------------------------------

    def expand_plugin(self, name: str) -> str:
        """Expand a plugin by hand; the model is told with the next message. Returns what it is told."""
        plugin = self._plugin(name)
        toolset, _, tools = self.toolset.expand(self.writer.state.toolset, plugin)
        extra = f" {plugin.expansion_message}" if plugin.expansion_message else ""
        note = f"[The user expanded the plugin {name}. Available functions: {', '.join(tools)}.{extra}]"
        self._by_hand(
            toolset, note, ToolsetChanged(change="expanded", names=[name], by="person", tools=tools)
        )
        return note

    def collapse_plugin(self, name: str) -> str:
        """Collapse a plugin by hand (its skills end); the model is told with the next message."""
        self._plugin(name)
        toolset = self.toolset.collapse(self.writer.state.toolset, name)
        note = (
            f"[The user collapsed the plugin {name}: its tools are offered again only after calling {name}.]"
        )
        self._by_hand(toolset, note, ToolsetChanged(change="collapsed", names=[name], by="person"))
        return note

    def reset_toolset(self) -> None:
        """Every plugin, skill, tool and context back to how the agent's definitions start.

        The model is told with the next message (it may hold on to tools no longer offered).
        """
        self.writer.refuse_while_busy("the agent is running; stop it first")
        event = ToolsetChanged(change="reset", names=[], by="person")
        self._by_hand(ToolsetState(), tr.RESET_NOTE, event)

    def add_tools(self, tools: Iterable[Tool]) -> None:
        """Offer more tools from now on (e.g. a web client's own frontend tools for one request).

        Raises:
            ToolDefinitionError: a name is taken by a tool, plugin or skill the agent has.
        """
        self.toolset.add(list(tools))

    def end_calls_of_missing_tools(self, *, listed: bool = False) -> None:
        """End the open calls of tools this agent does not have, telling the model why.

        A plugin object injected by a result and not registered again after a restart leaves such
        calls: they could never run or be answered. While an MCP server's tools are not listed yet
        (`unlisted`), its calls wait for the listing of the next turn (`listed=True` then).
        """
        if self.unlisted() and not listed:
            return
        state = self.writer.state
        gone = {c.tool_use_id for c in tr.open_calls(state) if c.name not in self.tools}
        if gone:
            text = "This tool is no longer available in this session (it is not registered on the agent)."
            self.writer.save_and_adopt(tr.interrupt(state, unanswered=text, running=text, only=gone))

    def _plugin(self, name: str) -> Any:
        self.writer.refuse_while_busy("the agent is running; change plugins when the turn has ended")
        if not self.toolset.present(self.writer.state.toolset, name):
            have = ", ".join(p["name"] for p in self.plugins) or "none"
            raise ToolDefinitionError(f"no plugin named {name!r} in this session; plugins: {have}")
        return self.toolset.plugins[name]

    def _by_hand(self, toolset: ToolsetState, note: str, event: ToolsetChanged) -> None:
        writer = self.writer
        if toolset == writer.state.toolset:
            return  # already so: nothing to tell the model
        writer.save_and_adopt(tr.add_manual_note(tr.set_toolset(writer.state, toolset), note))
        writer.announce(event)

    def pre_expand(self, state: AgentState, names: Iterable[str]) -> tuple[AgentState, list[ToolsetChanged]]:
        """A run's `expand=`: the named plugins expanded before its first request."""
        names = [names] if isinstance(names, str) else list(names)
        if not names:
            return state, []
        change = Augmentation(expand=names)
        try:
            toolset = self.toolset.apply(state.toolset, change)
        except AugmentationError as exc:
            raise ToolDefinitionError(f"expand=: {exc}") from None
        absent = [n for n in names if not self.toolset.present(toolset, n)]
        if absent:
            raise ToolDefinitionError(f"expand=: plugins not in this session: {absent}")
        if toolset == state.toolset:
            return state, []  # already expanded: nothing to announce
        return tr.set_toolset(state, toolset), change_events(change, "run")
