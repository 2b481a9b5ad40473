"""MCP traffic in a cassette: a notebook that used MCP servers replays with neither the servers nor a key.

    cas = nt.cassette("11_mcp.cassette.json")
    everything = cas.mcp(nt.MCPServer.stdio("mcp-server-everything"))
    agent = nt.Agent(client=cas.client(), mcp_servers=[everything])

Recording, the real server runs and what it said is kept: who it is (name, instructions), each
tool listing (one the same as the last as `unchanged`), and each tool call with its arguments,
progress, the requests the server made while it ran (elicitation and sampling: their params and
the answer the notebook gave) and its result or failure. Replaying, no process starts: listings
come back in order, each call must be the one recorded at that point (tool and arguments, else
`CassetteMismatchError`, as for the Messages API), and the server's requests are made again, so
the person's prompts show and are answered from the cassette (a sampling request goes through the
cassette's own client). An answer that differs from the recorded one is a mismatch too.

Servers are matched by the order of `cas.mcp(...)` calls (a command line or a path may differ
between machines). Secrets are kept out as for the API exchanges.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any, Protocol

from .._exceptions import CassetteError, CassetteMismatchError
from ..mcp._server import MCPServer, MCPServerError, Progress
from ._cassette_file import first_difference
from ._cassette_mcp_apps import AppTraffic
from ._cassette_secrets import Secrets

__all__ = ["CassetteMCPServer"]


class Cassette(Protocol):
    """What a server needs of its cassette (`Cassette`)."""

    path: Path
    recording: bool
    secrets: Secrets
    mcp_traffic: list[dict[str, Any]]
    mismatch: CassetteMismatchError | None

    def changed(self) -> None:
        """Something new was recorded."""


class CassetteMCPServer(AppTraffic, MCPServer):
    """An MCP server whose traffic a cassette records (the real server runs) or replays (none does)."""

    def __init__(self, real: MCPServer, cassette: Cassette, number: int) -> None:
        super().__init__(
            real._connect,
            name=real._given_name,
            label=real.label,
            approval=real.approval,
            timeout=real.timeout,
        )
        self.cassette = cassette
        self.number = number
        self.replaying = not cassette.recording
        if self.replaying and number >= len(cassette.mcp_traffic):
            raise CassetteError(
                f"cassette {cassette.path} recorded {len(cassette.mcp_traffic)} MCP servers; "
                f"server {number + 1} ({real.label!r}) was not recorded"
            )
        if not self.replaying:
            cassette.mcp_traffic.append({"label": cassette.secrets.clean(real.label), "traffic": []})
        self.log: dict[str, Any] = cassette.mcp_traffic[number]
        self._read = {"list_tools": 0, "call_tool": 0, "read_resource": 0}
        self._upto = 0  # entries up to here were replayed
        self._opened = False
        self._listed: list[dict[str, Any]] = []  # the last listing (one that did not change is kept as such)
        self._in_flight: list[dict[str, Any]] = []

    def __repr__(self) -> str:
        how = "replaying" if self.replaying else "recording"
        return (
            f"CassetteMCPServer(name={self.name!r}, {how} server {self.number + 1} of {self.cassette.path})"
        )

    # -- the record ----------------------------------------------------------------------------

    def _replays(self) -> bool:
        """Whether this use replays; once an `auto` cassette re-records, the real server takes over.

        What was not replayed yet is dropped (the real server answers from here on, and is kept).
        """
        if self.replaying and self.cassette.recording:
            self.replaying = False
            del self.log["traffic"][self._upto :]
        return self.replaying

    def _keep(self, entry: dict[str, Any]) -> None:
        self.log["traffic"].append(self.cassette.secrets.clean(entry))
        self.cassette.changed()

    def _next(self, op: str) -> tuple[dict[str, Any], list[dict[str, Any]]]:
        """The next recorded entry of kind `op` (replaying), and the entries up to the next one."""
        traffic, seen = self.log["traffic"], -1
        for index, entry in enumerate(traffic):
            if entry.get("op") == op:
                seen += 1
                if seen == self._read[op]:
                    self._read[op] += 1
                    self._upto = max(self._upto, index + 1)
                    problem = _problem(entry)
                    if problem:  # a mismatch: the replay fails with it even where the call's error is kept
                        raise self._mismatch(
                            f"MCP server {self.number + 1}, {op} {seen + 1}: {problem} (edited by hand?)"
                        )
                    return dict(entry), self._until_next_op(index + 1)
        raise self._mismatch(f"nothing more was recorded for {op} of MCP server {self.number + 1}")

    def _until_next_op(self, start: int) -> list[dict[str, Any]]:
        """The entries from `start` up to the next listing or call (the notifications in between)."""
        traffic = self.log["traffic"]
        end = start
        while end < len(traffic) and traffic[end].get("op") not in (
            "list_tools",
            "call_tool",
            "read_resource",
        ):
            end += 1
        return list(traffic[start:end])

    def _notify(self, entries: list[dict[str, Any]]) -> None:
        """Replaying: what the server announced at this point, announced again.

        (Tool-list changes; and what its apps asked from here, made again through the chat's app host.)
        """
        apps = [e for e in entries if e.get("op") == "app"]
        broken = [e for e in apps if not _app_entry(e)]
        if broken:  # replayed up to the first broken one; the replay fails with a mismatch naming it
            self._mismatch(f"MCP server {self.number + 1}: an app request is malformed (edited by hand?)")
            apps = apps[: apps.index(broken[0])]
        for entry in entries:
            if entry.get("op") == "tools_changed":
                self._tools_changed()
        if apps and self.app_host is not None:
            self.app_host.replay(self, apps)

    def _mismatch(self, difference: str) -> CassetteMismatchError:
        error = CassetteMismatchError(str(self.cassette.path), self._read["call_tool"], difference)
        self.cassette.mismatch = self.cassette.mismatch or error
        return error

    # -- the connection ------------------------------------------------------------------------

    async def start(self) -> Any:
        """Recording: start the real server (and keep who it is). Replaying: who it was."""
        if self._replays():
            if not self._opened:  # who it is, and what it announced while it started
                info, about = self.log.get("server_info"), self.log.get("instructions")
                if not (isinstance(info, dict | None) and isinstance(about, str | None)):
                    raise self._mismatch(
                        f"MCP server {self.number + 1}: its server_info is not an object or its "
                        "instructions not text (was it edited by hand?)"
                    )
                self._opened = True
                self.server_info = dict(self.log.get("server_info") or {})
                self.instructions = self.log.get("instructions")
                self._notify(self._until_next_op(0))
            return None
        started = await super().start()
        self.log["server_info"] = self.cassette.secrets.clean(self.server_info)
        self.log["instructions"] = self.cassette.secrets.clean(self.instructions)
        return started

    @property
    def running(self) -> bool:
        """Replaying, the server is always there; recording, whether the real one is up."""
        return True if self.replaying else super().running

    async def list_tools(self) -> list[dict[str, Any]]:
        """The server's tools: the real listing (kept), or the next recorded one."""
        if self._replays():
            await self.start()
            listing, after = self._next("list_tools")
            if not listing.get("unchanged"):
                self._listed = list(listing.get("tools") or [])
            self._notify(after)
            self.listed = list(self._listed)
            return list(self._listed)
        tools = await super().list_tools()
        same = self._listed == tools and bool(self.log["traffic"])
        self._keep({"op": "list_tools", "unchanged": True} if same else {"op": "list_tools", "tools": tools})
        self._listed = tools
        return tools

    async def call_tool(
        self, name: str, arguments: dict[str, Any], progress: Progress | None = None
    ) -> dict[str, Any]:
        """A tool call: made and kept, or the recorded one played back."""
        if self._replays():
            return await self._replay_call(name, arguments, progress)
        entry: dict[str, Any] = {"op": "call_tool", "name": name, "arguments": arguments, "asked": []}
        steps: list[list[Any]] = []

        def noted(fraction: float | None, said: str) -> None:
            steps.append([fraction, said])
            if progress is not None:
                progress(fraction, said)

        self._in_flight.append(entry)
        try:
            entry["result"] = await super().call_tool(name, arguments, noted)
        except MCPServerError as exc:
            entry["error"] = str(exc)
            raise
        finally:
            self._in_flight.remove(entry)
            if steps:
                entry["progress"] = steps
            if "result" in entry or "error" in entry:
                self._keep(entry)
        result: dict[str, Any] = entry["result"]
        return dict(result)

    async def _replay_call(
        self, name: str, arguments: dict[str, Any], progress: Progress | None
    ) -> dict[str, Any]:
        await self.start()
        entry, after = self._next("call_tool")
        difference = first_difference(
            {"tool": entry.get("name"), "arguments": entry.get("arguments")},
            self.cassette.secrets.clean({"tool": name, "arguments": arguments}),
        )
        if difference is not None:
            raise self._mismatch(
                f"MCP server {self.number + 1}, call {self._read['call_tool']}: {difference}"
            )
        for fraction, said in entry.get("progress") or []:
            if progress is not None:
                progress(fraction, said)
        for asked in entry.get("asked") or []:
            answer = await self._answer(asked["kind"], asked["params"])
            recorded = asked.get("answer")
            if self.cassette.secrets.clean(answer) != recorded:
                raise self._mismatch(
                    f"MCP server {self.number + 1}: the answer to its {asked['kind']} request was "
                    f"{str(recorded)[:160]}, now {str(answer)[:160]}"
                )
        if entry.get("tools_changed"):
            self._tools_changed()
        self._notify(after)
        await asyncio.sleep(0)  # a call is never instant for the tasks waiting on it
        if "error" in entry:
            raise MCPServerError(str(entry["error"]))
        result: dict[str, Any] = entry["result"]
        return dict(result)

    # -- what the server asks ------------------------------------------------------------------

    async def _answer(self, kind: str, params: dict[str, Any]) -> dict[str, Any]:
        """The notebook's answer to a replayed request (its handler, as when it was recorded)."""
        if kind == "elicit":
            handler, default = self.elicitation_handler, {"action": "decline"}
        else:
            handler, default = self.sampling_handler, {"error": "sampling is not available from this client"}
        if handler is None:
            return default
        try:
            answer: dict[str, Any] = await handler(self.name, params)
            return answer
        except Exception as exc:
            return {"error": f"the client could not answer: {type(exc).__name__}"}

    async def _ask(self, handler: Any, params: Any, default: dict[str, Any]) -> dict[str, Any]:
        answer = await super()._ask(handler, params, default)
        dumped = params.model_dump(mode="json", by_alias=True, exclude_none=True)
        asked = {"kind": "sample" if "messages" in dumped else "elicit", "params": dumped, "answer": answer}
        if self._in_flight:  # (a request outside a call is answered, not kept: no replay asks it)
            self._in_flight[0]["asked"].append(self.cassette.secrets.clean(asked))
        return answer

    def _tools_changed(self) -> None:
        if not self.replaying:
            if self._in_flight:
                self._in_flight[0]["tools_changed"] = True
            else:  # after the last call: replayed right after it
                self._keep({"op": "tools_changed"})
        super()._tools_changed()


def _app_entry(entry: dict[str, Any]) -> bool:
    """Whether a recorded app request has the parts a replay makes it from."""
    kinds = (entry.get("tool_use_id"), entry.get("method"), entry.get("params"))
    return isinstance(kinds[0], str) and isinstance(kinds[1], str) and isinstance(kinds[2], dict)


def _problem(entry: dict[str, Any]) -> str:
    """What is wrong with a recorded listing or call ("" when its parts have the types replay uses)."""
    if entry.get("op") == "list_tools":
        tools = entry.get("tools", [])
        listed = isinstance(tools, list) and all(isinstance(t, dict) for t in tools)
        return "" if listed else "tools is not a list of tools"
    progress, asked = entry.get("progress", []), entry.get("asked", [])
    if not isinstance(progress, list) or not all(
        isinstance(p, list) and len(p) == 2 and isinstance(p[0], int | float | None) and isinstance(p[1], str)
        for p in progress
    ):
        return "progress is not a list of [fraction, message]"
    if not isinstance(asked, list) or not all(
        isinstance(a, dict) and a.get("kind") in ("elicit", "sample") and isinstance(a.get("params"), dict)
        for a in asked
    ):
        return "asked is not a list of requests with their kind and params"
    if "error" in entry:
        return "" if isinstance(entry["error"], str) else "error is not text"
    return "" if isinstance(entry.get("result"), dict) else "no result object"
