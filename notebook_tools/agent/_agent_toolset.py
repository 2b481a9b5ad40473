"""The agent's tool-set methods: runs by hand, plugins, tools added, options checked (a part of `Agent`)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from ..session._state import ToolResult
from ..tools._tool import Tool

if TYPE_CHECKING:
    from ..api._options import RequestOptions
    from ._manual_runs import ManualRuns
    from ._settings import Settings
    from ._toolset_control import ToolsetControl

__all__ = ["ToolsetMethods"]


class ToolsetMethods:
    """What `Agent` offers for its tool set; each method is one call to a part."""

    control: ToolsetControl
    manual: ManualRuns
    settings: Settings

    def check_options(self, options: RequestOptions) -> None:
        """Raise `ConfigurationError` when the API would refuse `options` with these tools and limits."""
        tools = [*self.control.tool_definitions(), *self.settings.server_tools]
        options.check(self.settings.max_tokens, tools)

    # -- by hand -----------------------------------------------------------------------------

    async def run_manual(self, name: str, arguments: dict[str, Any]) -> ToolResult:
        """Run a tool by hand (mode "manual" or "both"); the model hears of it with the next message."""
        return await self.manual.run(name, arguments)

    def tool_definitions(self) -> list[dict[str, Any]]:
        """The `tools` the next request offers (containers of collapsed plugins, expanded tools)."""
        return self.control.tool_definitions()

    def system_prompt(self) -> str:
        """The system prompt of the next request: `system`, then plugin and skill instructions and context."""
        return self.control.system_prompt()

    @property
    def plugins(self) -> list[dict[str, Any]]:
        """The plugins of this session: name, description, expanded, tools, skills (and which are active)."""
        return self.control.plugins

    def expand_plugin(self, name: str) -> str:
        """Expand a plugin by hand; the model is told with the next message. Returns what it is told."""
        return self.control.expand_plugin(name)

    def collapse_plugin(self, name: str) -> str:
        """Collapse a plugin by hand (its skills end); the model is told with the next message."""
        return self.control.collapse_plugin(name)

    def reset_toolset(self) -> None:
        """Every plugin, skill, tool and context back to how the agent's definitions start."""
        self.control.reset_toolset()

    def add_tools(self, tools: Iterable[Tool]) -> None:
        """Offer more tools from now on (e.g. a web client's own frontend tools for one request).

        Raises:
            ToolDefinitionError: a name is taken by a tool, plugin or skill the agent has.
        """
        self.control.add_tools(tools)
