"""An MCP server's app traffic in a cassette: the apps' HTML it served, and what its apps asked.

Recording, each `resources/read` (an app's HTML) and each request a chat's app made of the host
(`MCPAppHost`: a tool call, a message, a link, ...) is kept in the server's traffic where it was
made, with the reply it got. Replaying, a resource comes back from the cassette, and the apps'
requests are made again through the chat's app host at the same point of the traffic (right after
the call or request before them), so their cards show and are answered from the cassette and their
tool calls replay as recorded; a reply that differs is a mismatch.
"""

from __future__ import annotations

from typing import Any

from ..mcp._server import MCPServer, MCPServerError
from ._cassette_file import first_difference

__all__ = ["AppTraffic"]


class AppTraffic(MCPServer):
    """The app part of `CassetteMCPServer` (its `_replays`, `_next`, `_keep` and `_mismatch`)."""

    replaying: bool
    log: dict[str, Any]
    cassette: Any
    number: int

    def _replays(self) -> bool:
        raise NotImplementedError

    def _next(self, op: str) -> tuple[dict[str, Any], list[dict[str, Any]]]:
        raise NotImplementedError

    def _keep(self, entry: dict[str, Any]) -> None:
        raise NotImplementedError

    def _mismatch(self, difference: str) -> Exception:
        raise NotImplementedError

    def _notify(self, entries: list[dict[str, Any]]) -> None:
        raise NotImplementedError

    async def read_resource(self, uri: str) -> dict[str, Any]:
        """A resource (an app's HTML): read and kept, or the recorded one; another URI is a mismatch."""
        if self._replays():
            await self.start()
            entry, after = self._next("read_resource")
            if entry.get("uri") != uri:
                raise self._mismatch(f"MCP server {self.number + 1}: read {entry.get('uri')!r}, now {uri!r}")
            self._notify(after)
            if "error" in entry:
                raise MCPServerError(str(entry["error"]))
            return dict(entry["result"])
        kept: dict[str, Any] = {"op": "read_resource", "uri": uri}
        try:
            kept["result"] = await super().read_resource(uri)
        except MCPServerError as exc:
            kept["error"] = str(exc)
            raise
        finally:
            self._keep(kept)
        return dict(kept["result"])

    # -- what its apps asked (the chat's `MCPAppHost` calls these) -----------------------------

    def app_request_started(self, tool_use_id: str, method: str, params: dict[str, Any]) -> Any:
        """Recording: keep an app's request where it was made (its reply is added when it comes)."""
        if self.replaying:
            return None
        entry = {"op": "app", "tool_use_id": tool_use_id, "method": method, "params": params}
        self._keep(entry)
        return self.log["traffic"][-1]

    def app_request_done(self, kept: Any, reply: dict[str, Any]) -> None:
        """Recording: the reply the app got."""
        if isinstance(kept, dict):
            kept["reply"] = self.cassette.secrets.clean(reply)
            self.cassette.changed()

    def app_reply_differs(self, entry: dict[str, Any], reply: dict[str, Any]) -> None:
        """Replaying: an app's request got another reply than the recorded one: a mismatch."""
        recorded = entry.get("reply")
        recorded = recorded if isinstance(recorded, dict) else {"reply": recorded}
        difference = first_difference(recorded, self.cassette.secrets.clean(reply))
        if difference is not None:
            self._mismatch(f"MCP server {self.number + 1}: its app's {entry.get('method')}: {difference}")
