"""MCP servers as tool sets: one connection per server, on the official `mcp` SDK.

`MCPServer.stdio(...)` / `MCPServer.http(...)` describe a server; it starts lazily on the running
event loop the first time its tools are listed or called. One task owns the transport and the
`ClientSession` (anyio scopes must be left by the task that entered them); calls from any task use
the session. A call is bounded by the server's `timeout`; a server that dies is reported by the call
and started again on the next one. `aclose()` stops it (a stdio child is terminated); a process that
exits without closing leaves the child its stdin at EOF, which ends it. Tool-list changes arrive as
`notifications/tools/list_changed` (2025 revisions) or through `subscriptions/listen` (2026-07-28).
Elicitation and sampling go to `elicitation_handler` / `sampling_handler` (both capabilities are
always advertised; with no handler an elicitation is declined and sampling refused). The protocol
revision is negotiated as the SDK's `mcp.Client` does (`server/discover`, else `initialize`); on
2026-07-28 a tool call's questions come as `input_required` rounds (`_rounds`), each request
bounded by `timeout` (a person's answer is not).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any

from .._exceptions import MCPServerError, NotebookToolsError, ToolDefinitionError
from ._auth import HTTPConnect, SignIn, sign_in_for
from ._border import Guard, errlog, is_disconnect, unusable, why
from ._inbound import Inbound, MCPHandler
from ._rounds import call_in_rounds

__all__ = ["MCPHandler", "MCPServer", "MCPServerError", "Progress"]

log = logging.getLogger("notebook_tools")

Progress = Callable[[float | None, str], None]
Approval = bool | Mapping[str, bool] | Callable[[dict[str, Any]], bool] | None


class MCPServer(Inbound):
    """An MCP server whose tools an `nt.Agent(mcp_servers=[...])` offers as one plugin.

    Build one with `MCPServer.stdio(...)` or `MCPServer.http(...)`. It serves one agent at a time:
    the newest agent given it hears its list changes and answers its requests (handlers).

    Attributes:
        elicitation_handler: Answers the server's elicitation requests (None: declined).
        sampling_handler: Answers its sampling requests (None: refused).
        authorization_handler: Asks the person to sign in when the server wants OAuth (None: refused).
    """

    authorization_handler: MCPHandler | None = None

    def __init__(
        self,
        connect: Callable[[], contextlib.AbstractAsyncContextManager[Any]],
        *,
        name: str | None,
        label: str,
        approval: Approval = None,
        timeout: float = 120.0,
    ) -> None:
        if not (isinstance(timeout, int | float) and timeout > 0):
            raise ToolDefinitionError(f"timeout must be a positive number of seconds, not {timeout!r}")
        if name is not None and not isinstance(name, str):
            raise ToolDefinitionError("name= takes a string")
        self._connect = connect
        self.sign_in: SignIn | None = getattr(connect, "sign_in", None)
        if self.sign_in is not None:  # the server using the connection asks (a cassette's wrapper too)
            self.sign_in.owner = self
        self._given_name = name
        self.label = label
        self.approval = approval
        self.timeout = float(timeout)
        self.server_info: dict[str, Any] = {}
        self.instructions: str | None = None
        self.on_tools_changed: list[Callable[[MCPServer], None]] = []
        self._session: Any = None
        self._task: asyncio.Task[None] | None = None
        self._stop: asyncio.Event | None = None
        self._lock: asyncio.Lock | None = None
        self.starts = 0
        """How often the server was started (a restart after it died counts)."""
        self.listed: list[dict[str, Any]] = []  # its tools as last listed (JSON), app-only ones too
        self.left_out: dict[str, str] = {}
        """Tools its last listing held that MCP does not allow (by name: why), offered without them."""
        self._guard = Guard()
        self.apps: dict[str, Any] = {}  # its apps' resources (`ui://` URI -> `AppResource`), read once

    @classmethod
    def stdio(
        cls,
        command: str,
        args: Sequence[str] = (),
        env: Mapping[str, str] | None = None,
        name: str | None = None,
        *,
        cwd: str | None = None,
        approval: Approval = None,
        timeout: float = 120.0,
    ) -> MCPServer:
        """A server run as a child process speaking MCP on its stdin and stdout."""
        from mcp.client.stdio import StdioServerParameters, stdio_client

        params = StdioServerParameters(
            command=command,
            args=list(args),
            env=dict(env or {}) or None,
            cwd=cwd,
            encoding_error_handler="replace",  # strict, one line that is not UTF-8 ended the reader for good
        )
        label = " ".join([command, *args])[:200]
        return cls(
            lambda: stdio_client(params, errlog=errlog()),
            name=name,
            label=label,
            approval=approval,
            timeout=timeout,
        )

    @classmethod
    def http(
        cls,
        url: str,
        headers: Mapping[str, str] | None = None,
        name: str | None = None,
        *,
        auth: Any = True,
        token_store: str | os.PathLike[str] | None = None,
        approval: Approval = None,
        timeout: float = 120.0,
    ) -> MCPServer:
        """A server reached over MCP's streamable HTTP transport at `url`.

        `auth=True` (the default) signs in with OAuth where the server asks (a 401), through the
        `authorization_handler` (a consent card in a chat; see `mcp/_auth.py`); `False` never
        does; an `httpx2.Auth` of your own is used as given. `token_store=` a JSON file (written
        0600) keeps the tokens so a kernel restart does not ask again; by default they stay in memory.
        """
        use, sign_in = sign_in_for(url, auth, token_store)
        connect = HTTPConnect(url, dict(headers or {}), timeout, use, sign_in)
        return cls(connect, name=name, label=url, approval=approval, timeout=timeout)

    @property
    def name(self) -> str:
        """The plugin's name: `name=`, else the name the server gave for itself once started."""
        return self._given_name or str(self.server_info.get("name") or self.label.split(" ")[0])

    @property
    def running(self) -> bool:
        """Whether the connection is up."""
        return self._session is not None and self._task is not None and not self._task.done()

    def __repr__(self) -> str:
        return f"MCPServer(name={self.name!r}, label={self.label!r}, running={self.running})"

    # -- the connection ------------------------------------------------------------------------

    async def start(self) -> Any:
        """Connect (if not connected): the `mcp.ClientSession`, initialized."""
        if self._lock is None:
            self._lock = asyncio.Lock()
        async with self._lock:
            if self.running:
                return self._session
            await self._teardown()
            ready: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
            self._stop = asyncio.Event()
            self._task = asyncio.get_running_loop().create_task(self._own(ready, self._stop))
            try:
                bound = self.timeout + (self.sign_in.timeout if self.sign_in else 0)  # a person signs in
                self._session = await asyncio.wait_for(asyncio.shield(ready), bound)
            except BaseException as exc:
                await self._teardown()
                if ready.done() and not ready.cancelled():
                    ready.exception()  # retrieved: the error below says it
                if isinstance(exc, asyncio.CancelledError):
                    raise
                raise MCPServerError(f"MCP server {self.name!r} could not start: {why(exc)}") from exc
            self.starts += 1
            return self._session

    async def _own(self, ready: asyncio.Future[Any], stop: asyncio.Event) -> None:
        from mcp import ClientSession

        negotiate: Callable[[Any], Awaitable[Any]] = ClientSession.initialize
        with contextlib.suppress(ImportError):  # (else: the handshake every revision still answers)
            # the SDK's own connect-time negotiation, as `mcp.Client` runs it (a private module)
            from mcp.client._probe import negotiate_auto as negotiate

        guard = self._guard = Guard()
        try:
            async with (
                self._connect() as streams,
                ClientSession(
                    *guard.wrap(streams),
                    elicitation_callback=self._on_elicit,
                    sampling_callback=self._on_sample,
                    message_handler=self._on_message,
                ) as session,
            ):
                await negotiate(session)
                guard.version = session.protocol_version
                info = session.server_info
                self.server_info = info.model_dump(mode="json") if info else {}
                self.instructions = session.instructions
                ready.set_result(session)
                await self._follow(session, stop)
        except BaseException as exc:
            if not ready.done():
                ready.set_exception(exc if isinstance(exc, Exception) else MCPServerError("stopped"))
            if not isinstance(exc, Exception):
                raise
            log.info("MCP server %s ended: %s", self.name, why(exc))
        finally:
            self._session = None

    async def _follow(self, session: Any, stop: asyncio.Event) -> None:
        """Wait for `stop`; on 2026-07-28 follow tool-list changes through `subscriptions/listen`."""
        import anyio
        from mcp.client.subscriptions import listen
        from mcp_types.version import MODERN_PROTOCOL_VERSIONS

        async def changes() -> None:
            try:
                async with listen(session, tools_list_changed=True) as subscription:
                    async for _ in subscription:
                        self._tools_changed()
            except Exception as exc:
                log.info("MCP server %s: no tool-list subscription (%s)", self.name, why(exc))

        async with anyio.create_task_group() as group:
            if session.protocol_version in MODERN_PROTOCOL_VERSIONS:
                group.start_soon(changes)
            await stop.wait()
            group.cancel_scope.cancel()

    def _tools_changed(self) -> None:
        for callback in list(self.on_tools_changed):
            callback(self)

    async def _teardown(self) -> None:
        connected = self._session is not None
        task, self._task, self._session = self._task, None, None
        if self._stop is not None:
            self._stop.set()
        if task is not None and not task.done():
            try:  # a connected session closes in order; one still starting is cancelled
                await asyncio.wait_for(task, 10 if connected else 0)
            except BaseException:
                task.cancel()
                with contextlib.suppress(BaseException):
                    await task

    async def aclose(self) -> None:
        """Stop the server (a stdio child process ends); the next use starts it again."""
        await self._teardown()

    # -- requests ------------------------------------------------------------------------------

    async def list_tools(self) -> list[dict[str, Any]]:
        """The server's tools as JSON (every page), starting it if needed."""
        from mcp import types

        session = await self.start()
        tools: list[dict[str, Any]] = []
        cursor: str | None = None
        self._guard.left_out = left_out = list[
            tuple[str, str]
        ]()  # a tool MCP does not allow is left out, not the listing
        for _ in range(100):
            asked = session.list_tools(params=types.PaginatedRequestParams(cursor=cursor) if cursor else None)
            try:
                page = await asyncio.wait_for(asked, self.timeout)
            except TimeoutError as exc:
                raise MCPServerError(
                    f"MCP server {self.name!r} did not list its tools within {self.timeout:g} s"
                ) from exc
            except Exception as exc:
                raise MCPServerError(
                    f"MCP server {self.name!r} could not list its tools: {why(exc)}"
                ) from exc
            tools += [t.model_dump(mode="json", by_alias=True, exclude_none=True) for t in page.tools]
            cursor = page.next_cursor
            if not cursor:
                break
        self.listed = tools
        self.left_out = dict(left_out)
        for tool, problem in left_out:
            log.warning("MCP server %s: tool %r left out: %s", self.name, tool, problem)
        return tools

    async def read_resource(self, uri: str) -> dict[str, Any]:
        """A resource's `resources/read` result as JSON, starting the server if needed."""
        session = await self.start()
        try:
            result = await asyncio.wait_for(session.read_resource(uri), self.timeout)
        except Exception as exc:  # (a timeout too: `why` names it)
            raise MCPServerError(f"MCP server {self.name!r} could not read {uri!r}: {why(exc)}") from exc
        return dict(result.model_dump(mode="json", by_alias=True, exclude_none=True))

    async def call_tool(
        self, name: str, arguments: dict[str, Any], progress: Progress | None = None
    ) -> dict[str, Any]:
        """Call a tool: the `CallToolResult` as JSON; `MCPServerError` when the server fails or is silent."""
        session = await self.start()

        async def on_progress(done: float, total: float | None, message: str | None) -> None:
            if progress is not None:
                said = message or (f"{done:g} of {total:g}" if total else f"{done:g}")
                progress(done / total if total else None, said)

        async def send(responses: Any, state: str | None) -> Any:
            asked = session.call_tool(
                name,
                arguments,
                progress_callback=on_progress,
                input_responses=responses,
                request_state=state,
                allow_input_required=True,
            )
            return await asyncio.wait_for(asked, self.timeout)

        self._calls += 1
        try:
            result = await call_in_rounds(self, name, arguments, send)
        except NotebookToolsError:  # ours: a round refused, the session not saved
            raise
        except TimeoutError as exc:
            raise MCPServerError(
                f"MCP server {self.name!r} did not answer {name!r} within {self.timeout:g} s"
            ) from exc
        except Exception as exc:
            if not self.running or is_disconnect(exc):
                await self._teardown()
                raise MCPServerError(
                    f"MCP server {self.name!r} stopped during {name!r} ({why(exc)}); "
                    "it is started again on the next call"
                ) from exc
            clause = unusable(exc)
            if clause is not None:  # it did answer: the answer cannot be used
                raise MCPServerError(f"MCP server {self.name!r} answered {name!r}, but {clause}") from exc
            raise MCPServerError(f"MCP server {self.name!r} refused {name!r}: {why(exc)}") from exc
        finally:
            self._calls -= 1
        dumped: dict[str, Any] = result.model_dump(mode="json", by_alias=True, exclude_none=True)
        return dumped
