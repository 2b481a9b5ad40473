"""An OAuth-protected MCP server for the tests, built on the official SDK's own server auth.

`oauth_mcp()` serves one `mcp.server.mcpserver.MCPServer` over streamable HTTP on a free loopback
port, with the SDK's authorization server routes (metadata, dynamic client registration, PKCE
authorize and token endpoints) backed by `Provider`, an in-memory `OAuthAuthorizationServerProvider`.
Its authorize endpoint signs the person in at once and redirects to the client's redirect URI (the
login page of a real server is out of scope); every token it hands out is remembered, so a test can
look for it where it must never appear.
"""

from __future__ import annotations

import contextlib
import secrets
import socket
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import uvicorn
from mcp.server.auth.provider import (
    AccessToken,
    AuthorizationCode,
    AuthorizationParams,
    RefreshToken,
    construct_redirect_uri,
)
from mcp.server.auth.settings import AuthSettings, ClientRegistrationOptions
from mcp.server.mcpserver import MCPServer
from mcp.shared.auth import OAuthClientInformationFull, OAuthToken
from pydantic import AnyHttpUrl

from tests.support.readiness import wait_until


@dataclass
class Provider:
    """The in-memory authorization server: clients, codes and tokens in dicts."""

    clients: dict[str, OAuthClientInformationFull] = field(default_factory=dict)
    codes: dict[str, AuthorizationCode] = field(default_factory=dict)
    tokens: dict[str, AccessToken] = field(default_factory=dict)
    refresh: dict[str, RefreshToken] = field(default_factory=dict)
    issued: list[str] = field(default_factory=list)
    """Every access and refresh token handed out (what must never leak)."""
    authorizations: int = 0

    async def get_client(self, client_id: str) -> OAuthClientInformationFull | None:
        return self.clients.get(client_id)

    async def register_client(self, client_info: OAuthClientInformationFull) -> None:
        assert client_info.client_id
        self.clients[client_info.client_id] = client_info

    async def authorize(self, client: OAuthClientInformationFull, params: AuthorizationParams) -> str:
        self.authorizations += 1
        code = AuthorizationCode(
            code=secrets.token_urlsafe(24),
            client_id=str(client.client_id),
            code_challenge=params.code_challenge,
            redirect_uri=params.redirect_uri,
            redirect_uri_provided_explicitly=params.redirect_uri_provided_explicitly,
            expires_at=time.time() + 300,
            scopes=params.scopes or ["tools"],
            resource=params.resource,
            subject="person",
        )
        self.codes[code.code] = code
        return construct_redirect_uri(str(params.redirect_uri), code=code.code, state=params.state)

    async def load_authorization_code(
        self, client: OAuthClientInformationFull, authorization_code: str
    ) -> AuthorizationCode | None:
        return self.codes.get(authorization_code)

    def _issue(self, client_id: str, scopes: list[str], resource: str | None) -> OAuthToken:
        access, refresh = "at_" + secrets.token_urlsafe(32), "rt_" + secrets.token_urlsafe(32)
        self.issued += [access, refresh]
        expires = int(time.time()) + 3600
        self.tokens[access] = AccessToken(
            token=access, client_id=client_id, scopes=scopes, expires_at=expires, resource=resource
        )
        self.refresh[refresh] = RefreshToken(
            token=refresh, client_id=client_id, scopes=scopes, resource=resource
        )
        return OAuthToken(access_token=access, expires_in=3600, scope=" ".join(scopes), refresh_token=refresh)

    async def exchange_authorization_code(
        self, client: OAuthClientInformationFull, authorization_code: AuthorizationCode
    ) -> OAuthToken:
        del self.codes[authorization_code.code]
        return self._issue(str(client.client_id), authorization_code.scopes, authorization_code.resource)

    async def load_refresh_token(
        self, client: OAuthClientInformationFull, refresh_token: str
    ) -> RefreshToken | None:
        return self.refresh.get(refresh_token)

    async def exchange_refresh_token(
        self, client: OAuthClientInformationFull, refresh_token: RefreshToken, scopes: list[str]
    ) -> OAuthToken:
        del self.refresh[refresh_token.token]
        return self._issue(str(client.client_id), scopes or refresh_token.scopes, refresh_token.resource)

    async def load_access_token(self, token: str) -> AccessToken | None:
        return self.tokens.get(token)

    async def revoke_token(self, token: AccessToken | RefreshToken) -> None:
        self.tokens.pop(token.token, None)
        self.refresh.pop(token.token, None)


def _app(base: str, provider: Provider) -> Any:
    auth = AuthSettings(
        issuer_url=AnyHttpUrl(base),
        resource_server_url=AnyHttpUrl(base + "/mcp"),
        client_registration_options=ClientRegistrationOptions(enabled=True, valid_scopes=["tools"]),
        required_scopes=["tools"],
        validate_token_resource=False,
    )
    server = MCPServer("oauth-test", auth_server_provider=provider, auth=auth)

    @server.tool()
    def whoami() -> str:
        """Say who the server thinks is calling."""
        return "signed in"

    return server.streamable_http_app()


@contextlib.contextmanager
def oauth_mcp() -> Iterator[tuple[str, Provider]]:
    """The protected server on a free loopback port: yields (its /mcp URL, its provider)."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    base = f"http://127.0.0.1:{sock.getsockname()[1]}"
    provider = Provider()
    server = uvicorn.Server(
        uvicorn.Config(_app(base, provider), host="127.0.0.1", log_level="warning", lifespan="on")
    )
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    wait_until(lambda: server.started, "the OAuth MCP server to start", poll=0.02, alive=thread.is_alive)
    try:
        yield base + "/mcp", provider
    finally:
        server.should_exit = True
        thread.join(10)
        sock.close()
