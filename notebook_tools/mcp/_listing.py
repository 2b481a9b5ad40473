"""The agent's MCP servers: each one a plugin, listed before a turn's first request and on `list_changed`.

A server starts on the first turn (its tools are listed then); a server that cannot start is left
out of that turn with a warning, and tried again on the next. A `notifications/tools/list_changed`
lists its tools again in the background: the new plugin is offered from the next request, and a
`ToolsetChanged` (change "mcp", by "server") tells the front ends, whose Tools menus follow.
Notifications are coalesced per server: at most one listing runs, and any number of notifications
during it ask for one more after it (a storm of 2,000 costs two listings, not 2,000).
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Callable, Sequence

from .._exceptions import ToolDefinitionError
from ..events._events import ToolsetChanged
from ..events._progress import reporter
from ..tools._toolset import Toolset
from ._plugins import plugin_for
from ._server import MCPServer, MCPServerError, Progress

__all__ = ["MCPTools"]

log = logging.getLogger("notebook_tools")


def _progress() -> Progress | None:
    return reporter().progress


class MCPTools:
    """The plugins of an agent's MCP servers, kept in step with what the servers list."""

    def __init__(
        self,
        toolset: Toolset,
        servers: Sequence[MCPServer],
        announce: Callable[[ToolsetChanged], None] | None = None,
    ) -> None:
        if isinstance(servers, MCPServer) or not all(isinstance(s, MCPServer) for s in servers):
            raise ToolDefinitionError("mcp_servers= takes a list of nt.MCPServer objects")
        self.toolset = toolset
        self.servers = list(servers)
        self.announce = announce or (lambda event: None)
        """Publishes the `ToolsetChanged` of a server whose tools changed (the agent's writer's)."""
        self.plugin_names: dict[int, str] = {}  # id(server) -> its plugin's name
        self._listed: dict[int, str] = {}  # id(server) -> its last listing, as JSON
        self._stale = {id(s) for s in self.servers}
        self.unlisted = set(self._stale)
        """Servers whose tools were never listed (their calls in a saved session wait for them)."""
        self._refreshing: dict[int, asyncio.Task[None]] = {}  # id(server) -> its listing in flight
        self._again: set[int] = set()  # servers that changed again while their listing ran
        for server in self.servers:
            # the newest agent given a server hears its changes (an agent cell run again does not pile up)
            server.on_tools_changed[:] = [
                c for c in server.on_tools_changed if not isinstance(getattr(c, "__self__", None), MCPTools)
            ]
            server.on_tools_changed.append(self._changed)

    def _changed(self, server: MCPServer) -> None:
        self._stale.add(id(server))
        if id(server) in self._refreshing:
            self._again.add(id(server))  # one more listing once this one ends, however many arrive
            return
        task = asyncio.get_running_loop().create_task(self._relist(server))
        self._refreshing[id(server)] = task
        task.add_done_callback(lambda _: self._refreshing.pop(id(server), None))

    async def _relist(self, server: MCPServer) -> None:
        """List `server`'s tools until no change arrived during the last listing."""
        while True:
            self._again.discard(id(server))
            await self.refresh(server)
            if id(server) not in self._again:
                return

    async def settle(self) -> None:
        """Wait for the listings a `list_changed` started (each bounded by its server's timeout)."""
        while self._refreshing:
            await asyncio.gather(*self._refreshing.values(), return_exceptions=True)

    async def ready(self) -> None:
        """List the tools of every server not listed yet (or changed since)."""
        await self.settle()
        for server in self.servers:
            if id(server) in self._stale or not server.running:
                await self.refresh(server)

    async def refresh(self, server: MCPServer) -> None:
        """List `server`'s tools and offer them as its plugin (replacing what it offered before).

        A listing after the first that differs from the last (tools added, removed or redescribed)
        is announced: a `ToolsetChanged` names the plugin and its tools now.
        """
        try:
            listing = await server.list_tools()
        except (MCPServerError, TimeoutError, OSError) as exc:
            log.warning("MCP server %s is left out: %s", server.name, exc)
            return
        except Exception as exc:
            log.warning("MCP server %s could not list its tools: %s", server.name, exc)
            return
        self._stale.discard(id(server))
        listed = json.dumps(listing, sort_keys=True, default=str)
        changed = self._listed.get(id(server), listed) != listed  # the first listing changes nothing
        self._listed[id(server)] = listed
        self.unlisted.discard(id(server))
        before_name = self.plugin_names.get(id(server), "")
        self._remove(server)
        taken = set(self.toolset.tools) | set(self.toolset.plugins) | self.toolset._reserved
        taken |= set(self.toolset._skills)
        plugin = plugin_for(server, listing, taken, _progress)
        if plugin is not None:
            self.toolset.register(plugin, start=True)
            self.plugin_names[id(server)] = plugin.name
        if changed:
            name = plugin.name if plugin is not None else before_name or server.name
            now = list(plugin.by_name) if plugin is not None else []
            self.announce(ToolsetChanged(change="mcp", names=[name], by="server", tools=now))

    def _remove(self, server: MCPServer) -> None:
        name = self.plugin_names.pop(id(server), None)
        old = self.toolset.plugins.pop(name, None) if name else None
        if old is None:
            return
        for tool_name in old.by_name:
            self.toolset.tools.pop(tool_name, None)
            self.toolset._home.pop(tool_name, None)

    async def aclose(self) -> None:
        """Stop every server (each starts again on its next use)."""
        for server in self.servers:
            await server.aclose()
