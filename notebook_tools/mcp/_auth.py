"""OAuth for MCP servers over streamable HTTP: the SDK's flow, a person's consent, a loopback callback.

When a server answers 401 with `WWW-Authenticate`, the `mcp` SDK's `OAuthClientProvider` (an
`httpx2.Auth`) runs MCP's authorization flow: protected resource metadata, authorization server
metadata, dynamic client registration, PKCE. This module gives it the two things a notebook must
decide for itself:

- the redirect URI, `http://127.0.0.1:<port>/callback`: a listener bound to loopback only, opened
  just before the person is asked, which answers one callback carrying the flow's `state` (a
  callback with another state is refused and the listener keeps waiting), and closes once the code
  arrived, the person said no, or `SignIn.timeout` passed;
- the authorization URL goes to the server's `authorization_handler`, `(server name, {"url": ...,
  "resource": ...}) -> {"action": "accept" | "decline" | "cancel"}`: a consent card in a front end
  (a chat wires `mcp._sign_in.MCPSignIn`). With no handler the connection is refused
  with an `MCPServerError` saying the server needs sign-in: nothing opens a browser by itself,
  nothing accepts by itself.

Tokens are kept per `MCPServer` (`_tokens`): in memory, or in the person's `token_store=` file.
They go only into the `Authorization` header of that server's requests, never into a log line or
an error's text. The browser must run on the kernel's machine (a local Jupyter) for the loopback
callback to reach it; for a remote kernel, pass a token in `headers=` or an `httpx2.Auth` of your own.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import secrets
import socket
from collections.abc import AsyncIterator, Mapping
from typing import Any, Protocol
from urllib.parse import parse_qs, urlsplit

from .._exceptions import MCPServerError, ToolDefinitionError
from ._border import MCPHandler
from ._tokens import FileTokens, MemoryTokens

__all__ = ["HTTPConnect", "SignIn", "sign_in_for"]

log = logging.getLogger("notebook_tools")

_PAGE = "HTTP/1.1 {status}\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: {length}\r\n"
_PAGE += "Cache-Control: no-store\r\nConnection: close\r\n\r\n"


class _OursToSay(logging.Filter):
    """Drops the SDK's "OAuth flow error" traceback when the flow ended on our `MCPServerError`.

    A person's no, or nobody to ask, is a decision the connection's error states once; the SDK
    would print it again as a traceback (a kernel's stderr shows unhandled WARNING records).
    """

    def filter(self, record: logging.LogRecord) -> bool:
        return not (record.exc_info and isinstance(record.exc_info[1], MCPServerError))


_QUIET = _OursToSay()


class Owner(Protocol):
    """What a sign-in needs of its `MCPServer`: its name and who asks the person."""

    @property
    def name(self) -> str:
        """The server's name, as the person knows it."""
        ...

    authorization_handler: MCPHandler | None


class Callback:
    """The loopback redirect URI of one sign-in: answers the callback that carries `state`."""

    def __init__(self, port: int, state: str, timeout: float) -> None:
        self.port = port
        self.state = state
        self.timeout = timeout
        self.deadline = asyncio.get_running_loop().time() + timeout
        """When the sign-in gives up: the person's consent and the sign-in share the time."""
        self.refused = 0
        """Callbacks refused (a wrong state, a wrong path)."""
        self._got: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._server: asyncio.Server | None = None

    async def open(self) -> None:
        """Listen on 127.0.0.1 (only) at `port`."""
        try:
            self._server = await asyncio.start_server(self._serve, "127.0.0.1", self.port, limit=16384)
        except OSError as exc:
            raise MCPServerError(
                f"the sign-in callback port {self.port} cannot be used ({exc.strerror})"
            ) from None

    async def close(self) -> None:
        """Stop listening."""
        server, self._server = self._server, None
        if server is not None:
            server.close()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(server.wait_closed(), 5)

    async def wait(self) -> Any:
        """The callback's `AuthorizationCodeResult`, by the deadline; then the listener closes."""
        try:
            left = max(0.0, self.deadline - asyncio.get_running_loop().time())
            return await asyncio.wait_for(asyncio.shield(self._got), left)
        except TimeoutError:
            raise MCPServerError(f"no sign-in came back within {self.timeout:g} s") from None
        finally:
            await self.close()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 10)
            status, text = self._answer(head.split(b"\r\n", 1)[0].decode("latin-1"))
            body = text.encode()
            writer.write(_PAGE.format(status=status, length=len(body)).encode() + body)
            await writer.drain()
        except (OSError, TimeoutError, asyncio.IncompleteReadError, asyncio.LimitOverrunError):
            pass
        finally:
            writer.close()

    def _answer(self, request_line: str) -> tuple[str, str]:
        """(status, plain text) for one request; settles the sign-in when it is the callback."""
        from mcp.shared.auth import AuthorizationCodeResult

        method, _, rest = request_line.partition(" ")
        target = urlsplit(rest.rpartition(" ")[0])
        if method != "GET" or target.path != "/callback":
            self.refused += 1
            return "404 Not Found", "Not found."
        if self._got.done():
            return "409 Conflict", "This sign-in is already over."
        query = parse_qs(target.query)
        state = (query.get("state") or [""])[0]
        if not secrets.compare_digest(state.encode(), self.state.encode()):
            self.refused += 1
            log.warning("MCP sign-in: refused a callback that carries another sign-in's state")
            return "400 Bad Request", "This sign-in link is not the one the notebook started."
        if "error" in query:
            said = "".join(c for c in query["error"][0] if c.isalnum() or c == "_")[:40]
            self._got.set_exception(MCPServerError(f"the authorization server refused the sign-in ({said})"))
            return "200 OK", "Sign-in refused. You can close this tab."
        code = (query.get("code") or [""])[0]
        iss = query["iss"][0] if "iss" in query else None
        self._got.set_result(AuthorizationCodeResult(code=code, state=state, iss=iss))
        return "200 OK", "Signed in. You can close this tab and return to the notebook."


class SignIn:
    """One `MCPServer`'s OAuth: its token storage, the person's consent, the loopback callback.

    Args:
        url: The server's URL (the resource the tokens are for).
        storage: Where its tokens are kept (`MemoryTokens` or `FileTokens`).
    """

    timeout = 300.0
    """Seconds the person has to consent and sign in (the connection waits this long on top of its own)."""

    def __init__(self, url: str, storage: MemoryTokens) -> None:
        self.url = url
        self.storage = storage
        self.owner: Owner | None = None
        self.port: int | None = None
        self._callback: Callback | None = None

    def __repr__(self) -> str:
        return f"SignIn(url={self.url!r}, storage={self.storage!r})"

    async def auth(self) -> Any:
        """A fresh `OAuthClientProvider` for one connection (the tokens outlive it, in `storage`)."""
        from mcp.client.auth import OAuthClientProvider
        from mcp.shared.auth import OAuthClientMetadata
        from pydantic import AnyUrl

        logging.getLogger("mcp.client.auth.oauth2").addFilter(_QUIET)  # once: addFilter keeps one copy
        await self.storage.get_tokens()  # a file is read now: its registration names the port
        self.port = self.port or self.storage.redirect_port() or _free_port()
        metadata = OAuthClientMetadata(
            client_name="notebook_tools",
            redirect_uris=[AnyUrl(f"http://127.0.0.1:{self.port}/callback")],
            grant_types=["authorization_code", "refresh_token"],
            response_types=["code"],
            token_endpoint_auth_method="none",
        )
        provider = OAuthClientProvider(self.url, metadata, self.storage, self._redirect, self._wait)
        # a stored token's expiry: an expired one is refreshed first, not sent
        provider.context.token_expiry_time = self.storage.expires_at
        return provider

    async def _redirect(self, authorization_url: str) -> None:
        """Open the callback, then ask the person; anything but their yes ends the connection."""
        owner = self.owner
        name = owner.name if owner is not None else self.url
        handler = owner.authorization_handler if owner is not None else None
        if handler is None:
            raise MCPServerError(
                "the server needs sign-in (OAuth) and nobody can be asked: use it from a chat (or "
                "agent.set_mcp_handlers(authorize=...)), or pass a token in headers="
            )
        assert self.port is not None
        state = (parse_qs(urlsplit(authorization_url).query).get("state") or [""])[0]
        self._callback = callback = Callback(self.port, state, self.timeout)
        await callback.open()
        try:
            answer = await asyncio.wait_for(
                handler(name, {"url": authorization_url, "resource": self.url}), self.timeout
            )
            action = answer.get("action") if isinstance(answer, dict) else None
        except TimeoutError:
            action = "cancel"
        except Exception:
            log.warning("MCP sign-in handler for %s failed", name, exc_info=True)
            action = "cancel"
        except BaseException:
            await callback.close()
            raise
        if action != "accept":
            await callback.close()
            said = "declined" if action == "decline" else "cancelled"
            raise MCPServerError(f"sign-in {said}")  # the connection's error names the server

    async def _wait(self) -> Any:
        """The callback's code and state (the SDK checks the state again, and the issuer)."""
        callback, self._callback = self._callback, None
        if callback is None:
            raise MCPServerError("no sign-in was started")
        return await callback.wait()


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def sign_in_for(url: str, auth: Any, token_store: str | os.PathLike[str] | None) -> tuple[Any, SignIn | None]:
    """(the httpx2 auth to use, the `SignIn` when it is ours) for `MCPServer.http(auth=, token_store=)`."""
    if auth is True:
        sign_in = SignIn(url, FileTokens(token_store, url) if token_store is not None else MemoryTokens())
        return None, sign_in
    if token_store is not None:
        raise ToolDefinitionError("token_store= keeps the tokens of auth=True (the default)")
    if auth is False or auth is None:
        return None, None
    import httpx2

    if not isinstance(auth, httpx2.Auth):
        raise ToolDefinitionError("auth= takes True (OAuth where the server asks), False, or an httpx2.Auth")
    return auth, None


class HTTPConnect:
    """The connection of `MCPServer.http`: an httpx2 client (with OAuth where asked) and the transport.

    Its `sign_in` is handed to the `MCPServer` built on it, which asks its person.
    """

    def __init__(
        self, url: str, headers: Mapping[str, str], timeout: float, auth: Any, sign_in: SignIn | None
    ) -> None:
        self.url = url
        self.headers = dict(headers)
        self.timeout = timeout
        self.auth = auth
        self.sign_in = sign_in

    def __repr__(self) -> str:
        return f"HTTPConnect(url={self.url!r})"  # never the headers: they may carry a token

    @contextlib.asynccontextmanager
    async def __call__(self) -> AsyncIterator[Any]:
        """Connect: the transport's streams."""
        import httpx2
        from mcp.client.streamable_http import streamable_http_client

        use = await self.sign_in.auth() if self.sign_in is not None else self.auth
        async with (
            httpx2.AsyncClient(
                headers=self.headers, timeout=httpx2.Timeout(30.0, read=self.timeout), auth=use
            ) as client,
            streamable_http_client(self.url, http_client=client) as streams,
        ):
            yield streams
