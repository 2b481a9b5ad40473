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

URL elicitations (MCP 2025-11-25): an accepted one with an `elicitationId` waits for the server's
`notifications/elicitation/complete`, which is passed to `completion_handler` (so its card says
the page is done); an unknown or repeated id is ignored. A tool call refused with -32042 (URL
elicitation required) asks for each of the error's URL elicitations and, once every one is
accepted and completed (or `url_completion_wait` seconds passed), is retried once; a refusal is
the call's error result, never a hang.

A server asks (elicitation, sampling) only while one of its tool calls is in progress: a request
that arrives when none is (after its call ended, or with no call at all) is refused with an MCP error
saying so, and no prompt opens. A person is asked on behalf of a call they can see, never out of the
blue by a server that is merely connected.
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
from ._border import Guard, MCPCompletion, MCPHandler, errlog, is_disconnect, unusable, why
from ._rounds import call_in_rounds

__all__ = [
    "URL_ELICITATION_REQUIRED",
    "MCPCompletion",
    "MCPHandler",
    "MCPServer",
    "MCPServerError",
    "Progress",
    "url_elicitations",
]

log = logging.getLogger("notebook_tools")

Progress = Callable[[float | None, str], None]
Approval = bool | Mapping[str, bool] | Callable[[dict[str, Any]], bool] | None


URL_ELICITATION_REQUIRED = -32042
_REMEMBERED = 100  # accepted URL elicitations whose completion is still awaited, per server
_ASKED_AT_MOST = 5  # URL elicitations asked for one -32042 error
_NOT_RUN = ", so the call did not run."
INVALID_REQUEST = -32600
_NO_CALL = (
    "{} outside a tool call is refused: this client asks its person only while one of the server's tools runs"
)


def url_elicitations(exc: BaseException) -> list[dict[str, Any]] | None:
    """The URL elicitations a -32042 error asks for (None for any other failure, or an empty list)."""
    cause = exc.__cause__ if isinstance(exc, MCPServerError) else exc
    if getattr(cause, "code", None) != URL_ELICITATION_REQUIRED:
        return None
    data = getattr(cause, "data", None)
    found = data.get("elicitations") if isinstance(data, dict) else None
    asked = [e for e in found if isinstance(e, dict)] if isinstance(found, list) else []
    return asked or None


class MCPServer:
    """An MCP server whose tools an `nt.Agent(mcp_servers=[...])` offers as one plugin.

    Build one with `MCPServer.stdio(...)` or `MCPServer.http(...)`. It serves one agent at a time:
    the newest agent given it hears its list changes and answers its requests (handlers).

    Attributes:
        elicitation_handler: Answers the server's elicitation requests (None: declined).
        sampling_handler: Answers its sampling requests (None: refused).
        authorization_handler: Asks the person to sign in when the server wants OAuth (None: refused).
    """

    authorization_handler: MCPHandler | None = None

    elicitation_handler: MCPHandler | None = None
    sampling_handler: MCPHandler | None = None
    completion_handler: MCPCompletion | None = None
    url_completion_wait: float = 60.0
    """Seconds a call refused with -32042 waits for its URL elicitations' completion before its retry."""
    _calls = 0  # its tool calls in progress (`MCPServer.call_tool` counts them)

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

    async def call_tool_or_ask(
        self, name: str, arguments: dict[str, Any], progress: Any = None
    ) -> dict[str, Any]:
        """`call_tool`; refused with -32042, the pages are asked for first, then it is retried once."""
        try:
            return await self.call_tool(name, arguments, progress)
        except MCPServerError as exc:
            needed = url_elicitations(exc)
            if needed is None:
                raise
        why = await self._prerequisites(needed)
        if why:
            return {"content": [{"type": "text", "text": why}], "isError": True}
        return await self.call_tool(name, arguments, progress)

    async def _prerequisites(self, elicitations: list[dict[str, Any]]) -> str:
        """Ask for each page; "" once all were accepted (and completed, or the wait ended), else why not."""
        from mcp import types
        from pydantic import ValidationError

        done: list[asyncio.Event] = []
        for raw in elicitations[:_ASKED_AT_MOST]:
            try:
                params = types.ElicitRequestURLParams.model_validate(raw)
            except ValidationError:
                return f"The MCP server asked for a page in a malformed URL elicitation{_NOT_RUN}"
            answer = await self._ask(self.elicitation_handler, params, {"action": "cancel"})  # nobody asked
            if "error" in answer:
                return f"The MCP server's page request was refused ({str(answer['error'])[:300]}){_NOT_RUN}"
            if answer.get("action") == "decline":
                return f"The person declined to open the page the MCP server asked for{_NOT_RUN}"
            if answer.get("action") != "accept":
                return f"Nobody opened the page the MCP server asked for (no answer, or Stop){_NOT_RUN}"
            if params.elicitation_id in self._awaited():
                done.append(self._awaited()[params.elicitation_id])
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.gather(*(e.wait() for e in done)), self.url_completion_wait)
        return ""

    def _awaited(self) -> dict[str, asyncio.Event]:
        """Accepted URL elicitations by elicitationId, set when the server says each is complete."""
        awaited: dict[str, asyncio.Event] = self.__dict__.setdefault("_url_elicitations", {})
        return awaited

    def _completed(self, elicitation_id: object) -> None:
        event = self._awaited().pop(elicitation_id, None) if isinstance(elicitation_id, str) else None
        if event is None or not isinstance(elicitation_id, str):  # unknown, declined or completed before
            log.info("MCP server %s: completion of an unknown elicitation ignored", self.name)
            return
        event.set()
        if self.completion_handler is not None:
            try:
                self.completion_handler(self.name, elicitation_id)
            except Exception:
                log.warning("MCP completion handler for %s failed", self.name, exc_info=True)

    # What its apps ask goes through a chat's `MCPAppHost` (`app_host`); a cassette's server keeps it.
    app_host: Any = None

    def app_request_started(self, tool_use_id: str, method: str, params: dict[str, Any]) -> Any:
        """An app's request is being answered (a token for `app_request_done`)."""

    def app_request_done(self, kept: Any, reply: dict[str, Any]) -> None:
        """It was answered with `reply`."""

    async def _on_message(self, message: Any) -> None:
        message = getattr(message, "root", message)
        method = getattr(message, "method", None)
        if method == "notifications/tools/list_changed":
            self._tools_changed()
        elif method == "notifications/elicitation/complete":
            self._completed(getattr(getattr(message, "params", None), "elicitation_id", None))

    async def _on_elicit(self, context: Any, params: Any) -> Any:
        from mcp import types

        if not self._calls:
            log.warning("MCP server %s asked for input with no call in progress: refused", self.name)
            return types.ErrorData(code=INVALID_REQUEST, message=_NO_CALL.format("Elicitation"))
        answer = await self._ask(self.elicitation_handler, params, {"action": "decline"})
        if "error" in answer:
            return types.ErrorData(code=_code(answer, -32603), message=str(answer["error"])[:500])
        return types.ElicitResult.model_validate(answer)

    async def _on_sample(self, context: Any, params: Any) -> Any:
        from mcp import types

        if not self._calls:
            log.warning("MCP server %s asked to sample with no call in progress: refused", self.name)
            return types.ErrorData(code=INVALID_REQUEST, message=_NO_CALL.format("Sampling"))
        refused = {"error": "sampling is not available from this client"}
        answer = await self._ask(self.sampling_handler, params, refused)
        if "error" in answer:
            return types.ErrorData(code=_code(answer, -32600), message=str(answer["error"])[:500])
        return types.CreateMessageResult.model_validate(answer)

    async def _ask(self, handler: MCPHandler | None, params: Any, default: dict[str, Any]) -> dict[str, Any]:
        if handler is None:
            return default
        try:
            asked = params.model_dump(mode="json", by_alias=True, exclude_none=True)
            answer = await handler(self.name, asked)
        except Exception as exc:
            log.warning("MCP handler for %s failed", self.name, exc_info=True)
            return {"error": f"the client could not answer: {type(exc).__name__}"}
        eid = getattr(params, "elicitation_id", None) if getattr(params, "mode", None) == "url" else None
        if isinstance(eid, str) and answer.get("action") == "accept":  # its completion may come later
            awaited = self._awaited()
            awaited[eid] = asyncio.Event()
            while len(awaited) > _REMEMBERED:
                awaited.pop(next(iter(awaited)))
        return answer


def _code(answer: dict[str, Any], default: int) -> int:
    """The JSON-RPC error code a handler chose (-1: the person said no), else `default`."""
    code = answer.get("code")
    return code if isinstance(code, int) and not isinstance(code, bool) else default
