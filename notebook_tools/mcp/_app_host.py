"""The host side of MCP Apps in the kernel: a card's app read from its server, the app's requests gated.

A tool card whose MCP tool ships an interface asks for it (`open`): the `ui://` resource is read
from the tool's server (once per server object) and checked (`mcp/_app_resources.py`), and the view
runs it sandboxed. What the app then asks of the host comes here (`request`), and nothing it asks
happens without the person:

- `tools/call`: only a tool of the same server whose visibility includes "app"; the person allows
  each call on a card (unless the server's `approval=` says the tool needs none, or the tool is
  `readOnlyHint` with no `approval=` rule), then it runs on the server and the app gets the result;
- `ui/message`: shown on a card; allowed, it is sent as the person's message (after the turn that
  is running, if one is), declined, the app hears `isError`;
- `ui/open-link`: the consent card of a URL elicitation (the host named, opened on the click only);
- `resources/read`: a resource of the same server;
- `ui/update-model-context`: kept, the latest per card (`model_context`), and the app hears it was.

What an app sends is untrusted: texts go to cards as plain lines beside a question of our own.
Results are JSON-RPC results (`{"result": ...}`) or errors (`{"error": {"code", "message"}}`).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from .._exceptions import MCPServerError, Refused
from ..prompts._broker import PromptBroker
from ._app_resources import AppResource, app_resource, frame_allow, frame_csp, is_local, visibility
from ._elicitation import MCPElicitation, web_page
from ._plugins import approval_rule
from ._server import MCPServer

if TYPE_CHECKING:
    from ..events._bus import EventBus
    from ..session._state import AgentState
    from ..tools._toolset import Toolset
    from ._listing import MCPTools


class _Listings(Protocol):
    @property
    def mcp(self) -> MCPTools | None: ...


class HostAgent(Protocol):
    """What an app host needs of an agent: its servers, events, history and tools."""

    @property
    def mcp_servers(self) -> list[MCPServer]: ...

    @property
    def events(self) -> EventBus: ...

    @property
    def state(self) -> AgentState: ...

    @property
    def toolset(self) -> Toolset: ...

    @property
    def loop(self) -> _Listings: ...


__all__ = ["APP_CALL_QUESTION", "APP_LINK_QUESTION", "APP_MESSAGE_QUESTION", "MCPAppHost"]

APP_CALL_QUESTION = "An MCP app asks to call a tool of its server"
APP_MESSAGE_QUESTION = "An MCP app asks to send a message to Claude as you"
APP_LINK_QUESTION = "An MCP app asks you to open a page"
INVALID_PARAMS, INTERNAL, DENIED, TOO_MANY = -32602, -32603, -1, -32000
_SHOWN_CHARS = 4_000
MAX_OPEN_CARDS = 3
"""Requests one app may have waiting at once (a consent card each, at most): more are refused."""
MAX_CONTEXT_CHARS = 20_000
"""An app's model context, as JSON."""


def _error(code: int, message: str) -> dict[str, Any]:
    return {"error": {"code": code, "message": message[:500]}}


class MCPAppHost:
    """Answers a chat's MCP apps: their resources, and their requests through the person's consent.

    Args:
        agent: The agent whose MCP servers' apps the chat shows.
        broker: The broker whose front ends show the consent cards.
        send: Sends a text as the person's message (after a running turn ends).
    """

    def __init__(self, agent: HostAgent, broker: PromptBroker, send: Callable[[str], Any]) -> None:
        self.agent = agent
        self.send = send
        self._asker = MCPElicitation(broker)
        self.model_context: dict[str, dict[str, Any]] = {}
        """The latest `ui/update-model-context` of each card's app, by tool call id."""
        self.busy: set[asyncio.Future[Any]] = set()
        """Requests being answered, replays, and turns an app's message started (see `settled`)."""
        self.streaming: dict[str, str] = {}
        """Calls of app tools whose arguments are streaming (their card shows before the reply is whole)."""
        self.open_cards: dict[str, int] = {}
        """Consent cards open per app (a card's tool call id): at most `MAX_OPEN_CARDS`."""
        for server in agent.mcp_servers:  # the newest chat of an agent answers its servers' apps
            server.app_host = self
        agent.events.subscribe(self._on_event)

    def _on_event(self, event: Any) -> None:
        if getattr(event, "type", "") == "tool_input_delta":
            self.streaming[event.tool_use_id] = event.name
        elif getattr(event, "type", "") == "message":
            self.streaming.clear()  # the reply is whole: its calls are in the history

    def _track(self, work: asyncio.Future[Any]) -> None:
        self.busy.add(work)
        work.add_done_callback(self.busy.discard)

    def act(self, tool_use_id: str, steps: Sequence[tuple[str, dict[str, Any]]]) -> None:
        """Make an app's requests as it would, one after the other (a scripted person using the app)."""
        self.replay(None, [{"tool_use_id": tool_use_id, "method": m, "params": p} for m, p in steps])

    def replay(self, server: Any, entries: list[dict[str, Any]]) -> None:
        """Make recorded app requests again, in order; `server` hears each reply (a cassette's checks it)."""

        async def run() -> None:
            for entry in entries:
                reply = await self.request(
                    entry["tool_use_id"], entry["method"], entry["params"], replayed=True
                )
                if server is not None:
                    server.app_reply_differs(entry, reply)

        self._track(asyncio.get_running_loop().create_task(run()))

    # -- which app a card shows ---------------------------------------------------------------------

    async def _app_of(self, tool_use_id: str) -> tuple[MCPServer, dict[str, Any], str]:
        """The server, its listed tool and the app's URI of a tool call in the history."""
        name = next(
            (
                b.get("name")
                for m in self.agent.state.messages
                if m.get("role") == "assistant" and isinstance(m.get("content"), list)
                for b in m["content"]
                if isinstance(b, dict) and b.get("type") == "tool_use" and b.get("id") == tool_use_id
            ),
            None,
        )
        name = name if isinstance(name, str) else self.streaming.get(tool_use_id)  # (still streaming)
        if not isinstance(name, str):
            raise Refused("no tool call of this chat has that id")
        mcp = self.agent.loop.mcp
        if mcp is not None and name not in self.agent.toolset.tools:  # after a restart: listed on demand
            await mcp.ready()
        tool = self.agent.toolset.tools.get(name)
        display = tool.display if tool is not None else {}
        uri, server_name = display.get("mcp_app"), display.get("mcp_server")
        server = next((s for s in self.agent.mcp_servers if s.name == server_name), None)
        if not isinstance(uri, str) or server is None:
            raise Refused(f"{name!r} is not a tool with an MCP app in this chat")
        listed = next((t for t in server.listed if t.get("name") == display.get("mcp_tool")), {})
        return server, listed, uri

    async def resource(self, server: MCPServer, uri: str) -> AppResource:
        """The app's resource, read once per server object (`MCPServerError` when it is none)."""
        if uri not in server.apps:  # loopback origins only for a server on this machine
            server.apps[uri] = app_resource(uri, await server.read_resource(uri), local=is_local(server))
        found: AppResource = server.apps[uri]
        return found

    async def open(self, tool_use_id: str) -> dict[str, Any]:
        """What a card needs to show its app: HTML, CSP, permissions, the tool; or `error`."""
        empty: dict[str, Any] = {"html": "", "csp": "", "allow": "", "prefers_border": None, "tool": {}}
        try:
            server, listed, uri = await self._app_of(tool_use_id)
            app = await self.resource(server, uri)
        except (Refused, MCPServerError) as exc:
            return {**empty, "error": str(exc)[:500]}
        tool = {k: listed[k] for k in ("name", "title", "description", "inputSchema") if k in listed}
        return {
            "html": app.html,
            "csp": frame_csp(app),
            "allow": frame_allow(app),
            "prefers_border": app.prefers_border,
            "tool": tool,
        }

    # -- what an app asks ---------------------------------------------------------------------------

    async def request(
        self, tool_use_id: Any, method: Any, params: Any, *, replayed: bool = False
    ) -> dict[str, Any]:
        """The JSON-RPC result (`{"result": ...}`) or error (`{"error": ...}`) for one app request.

        `replayed`: made again from a cassette (a live app's own requests are refused during a replay,
        which makes the recorded ones).
        """
        task = asyncio.current_task()
        if task is not None:
            self._track(task)
        if not (isinstance(tool_use_id, str) and isinstance(method, str) and isinstance(params, dict)):
            return _error(INVALID_PARAMS, "an app request needs a card's id, a method and params")
        try:
            server, _listed, _uri = await self._app_of(tool_use_id)
        except (Refused, MCPServerError) as exc:
            return _error(INTERNAL, str(exc))
        if getattr(server, "replaying", False) and not replayed:
            return _error(INTERNAL, "a cassette is replaying: it makes the app's recorded requests itself")
        if self.open_cards.get(tool_use_id, 0) >= MAX_OPEN_CARDS:
            return _error(TOO_MANY, f"this app already waits on {MAX_OPEN_CARDS} answers of the person")
        kept = server.app_request_started(tool_use_id, method, params)  # a cassette keeps it
        reply = _error(INTERNAL, "the request failed")
        self.open_cards[tool_use_id] = self.open_cards.get(tool_use_id, 0) + 1
        try:
            reply = await self._answer(server, tool_use_id, method, params)
        except Exception as exc:  # never raised into the kernel: the app hears why
            reply = _error(INTERNAL, f"{type(exc).__name__}: {exc}")
        finally:
            self.open_cards[tool_use_id] -= 1
            server.app_request_done(kept, reply)
        return reply

    async def _answer(
        self, server: MCPServer, tool_use_id: str, method: str, params: dict[str, Any]
    ) -> dict[str, Any]:
        try:
            if method == "tools/call":
                return await self._call(server, params)
            if method == "resources/read":
                uri = params.get("uri")
                if not isinstance(uri, str):
                    return _error(INVALID_PARAMS, "resources/read needs a uri")
                return {"result": await server.read_resource(uri)}
            if method == "ui/message":
                return await self._message(server, params)
            if method == "ui/open-link":
                return await self._link(server, params)
            if method == "ui/update-model-context":
                said: dict[str, Any] = {k: params[k] for k in ("content", "structuredContent") if k in params}
                if len(json.dumps(said, default=str)) > MAX_CONTEXT_CHARS:
                    return _error(
                        INVALID_PARAMS, f"model context is limited to {MAX_CONTEXT_CHARS} characters"
                    )
                self.model_context[tool_use_id] = said
                return {"result": {}}
        except MCPServerError as exc:
            return _error(INTERNAL, str(exc))
        return _error(-32601, f"method {method[:100]!r} is not answered here")

    async def _call(self, server: MCPServer, params: dict[str, Any]) -> dict[str, Any]:
        name, arguments = params.get("name"), params.get("arguments", {})
        if not isinstance(name, str) or not isinstance(arguments, dict):
            return _error(INVALID_PARAMS, "tools/call needs a tool name and an arguments object")
        listed = next((t for t in server.listed if t.get("name") == name), None)
        if listed is None or "app" not in visibility(listed):
            return _error(INVALID_PARAMS, f"the app's server offers it no tool {name[:100]!r}")
        if self._needs_consent(server, listed):
            if len(json.dumps(arguments, ensure_ascii=False, default=str)) > _SHOWN_CHARS:  # all, or nothing
                return _error(
                    INVALID_PARAMS, f"arguments over {_SHOWN_CHARS} characters cannot be shown to ask"
                )
            shown = {
                "message": APP_CALL_QUESTION,
                "confirm_label": "Allow",
                "deny_label": "Deny",
                "server": server.name,
                "tool": name[:200],
                "arguments": json.dumps(arguments, ensure_ascii=False, default=str),
            }
            if not await self.confirm(server.name, "app_call", shown):
                return _error(DENIED, "The user did not allow this tool call.")
        return {"result": await server.call_tool(name, arguments)}

    @staticmethod
    def _needs_consent(server: MCPServer, listed: dict[str, Any]) -> bool:
        """The server's `approval=` rule, else: every tool that does not say it only reads."""
        said = approval_rule(server, listed)
        return said if said is not None else (listed.get("annotations") or {}).get("readOnlyHint") is not True

    async def _message(self, server: MCPServer, params: dict[str, Any]) -> dict[str, Any]:
        content = params.get("content")
        blocks = content if isinstance(content, list) else []
        text = "\n".join(
            str(b.get("text", "")) for b in blocks if isinstance(b, dict) and b.get("type") == "text"
        )
        if params.get("role") != "user" or not text.strip():
            return _error(INVALID_PARAMS, "ui/message needs role user and text content")
        if len(text) > _SHOWN_CHARS:  # the person is shown all of what would be sent, or nothing is sent
            return _error(INVALID_PARAMS, f"a message over {_SHOWN_CHARS} characters cannot be shown to ask")
        shown = {
            "message": APP_MESSAGE_QUESTION,
            "confirm_label": "Send it",
            "deny_label": "Don't send",
            "server": server.name,
            "text": text,
        }
        if not await self.confirm(server.name, "app_message", shown):
            return {"result": {"isError": True}}
        sent = self.send(text)  # (after the running turn, if one is)
        if isinstance(sent, asyncio.Future):
            self._track(sent)
        return {"result": {}}

    async def _link(self, server: MCPServer, params: dict[str, Any]) -> dict[str, Any]:
        url = params.get("url")
        if not web_page(url):
            return _error(INVALID_PARAMS, "ui/open-link needs an http(s) URL with a host")
        assert isinstance(url, str)
        result = await self._asker.consent(server.name, "app_link", APP_LINK_QUESTION, url)
        return {"result": {"isError": True}} if result.is_error else {"result": {}}

    async def confirm(self, server: str, kind: str, arguments: dict[str, Any]) -> bool:
        """A yes/no card: the app's texts as plain lines beside our question."""
        return await self._asker.confirm(
            server, kind, "An MCP app asks for something: allow it, or deny.", arguments
        )
