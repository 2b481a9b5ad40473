"""Where an MCP server's OAuth tokens are kept: in memory (the default), or in a JSON file of the person's.

Both follow the `mcp` SDK's `TokenStorage` protocol (tokens, and the client registration they
belong to). A file holds every server's entry keyed by the server's URL, so one file can serve
several servers and a token is never offered to a server it was not issued for. It is written
0600, through a temporary file renamed over it; a file that cannot be read counts as empty (its
contents are never logged). Neither class shows a token in its `repr`.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import tempfile
import time
from pathlib import Path
from typing import Any

from .._exceptions import ToolDefinitionError

__all__ = ["FileTokens", "MemoryTokens"]

log = logging.getLogger("notebook_tools")


class MemoryTokens:
    """One server's tokens and client registration, kept for as long as the `MCPServer` lives."""

    def __init__(self) -> None:
        self._tokens: Any = None
        self._client: Any = None
        self.expires_at: float | None = None
        """When the access token expires (epoch seconds; None: unknown), so a new connection refreshes it."""

    def __repr__(self) -> str:
        return f"{type(self).__name__}(signed_in={self._tokens is not None})"

    async def get_tokens(self) -> Any:
        """The tokens (an `mcp.shared.auth.OAuthToken`), or None before the first sign-in."""
        return self._tokens

    async def set_tokens(self, tokens: Any) -> None:
        """Keep new tokens."""
        self._keep(tokens)

    def _keep(self, tokens: Any) -> None:
        self._tokens = tokens
        expires_in = getattr(tokens, "expires_in", None)
        self.expires_at = time.time() + expires_in if expires_in is not None else None

    async def get_client_info(self) -> Any:
        """The client registration (`OAuthClientInformationFull`), or None."""
        return self._client

    async def set_client_info(self, client_info: Any) -> None:
        """Keep the client registration."""
        self._client = client_info

    def redirect_port(self) -> int | None:
        """The loopback port the registration names as its redirect URI (None: not registered)."""
        for uri in getattr(self._client, "redirect_uris", None) or []:
            if uri.host == "127.0.0.1" and uri.path == "/callback" and uri.port:
                return int(uri.port)
        return None


class FileTokens(MemoryTokens):
    """One server's entry in a JSON token file (written 0600), so a kernel restart does not ask again.

    Args:
        path: The file (created when the first tokens arrive).
        url: The server's URL, the entry's key.
    """

    def __init__(self, path: str | os.PathLike[str], url: str) -> None:
        super().__init__()
        if not isinstance(path, str | os.PathLike):
            raise ToolDefinitionError("token_store= takes a file path")
        self.path = Path(path).expanduser()
        self.url = url
        self._loaded = False

    def __repr__(self) -> str:
        return f"FileTokens(path={str(self.path)!r}, signed_in={self._tokens is not None})"

    async def get_tokens(self) -> Any:
        """The stored tokens for this server, or None."""
        self._load()
        return self._tokens

    async def get_client_info(self) -> Any:
        """The stored client registration for this server, or None."""
        self._load()
        return self._client

    async def set_tokens(self, tokens: Any) -> None:
        """Keep new tokens, in memory and in the file."""
        self._keep(tokens)
        self._save()

    async def set_client_info(self, client_info: Any) -> None:
        """Keep the client registration, in memory and in the file."""
        self._client = client_info
        self._save()

    def redirect_port(self) -> int | None:
        """The registration's loopback port (from the file when not loaded yet)."""
        self._load()
        return super().redirect_port()

    def _read(self) -> dict[str, Any]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return {}
        except (OSError, ValueError) as exc:
            log.warning(
                "MCP token file %s cannot be read (%s): signing in again", self.path, type(exc).__name__
            )
            return {}
        return data if isinstance(data, dict) and isinstance(data.get("servers"), dict) else {}

    def _load(self) -> None:
        if self._loaded:
            return
        from mcp.shared.auth import OAuthClientInformationFull, OAuthToken
        from pydantic import ValidationError

        self._loaded = True
        entry = self._read().get("servers", {}).get(self.url)
        if not isinstance(entry, dict):
            return
        with contextlib.suppress(ValidationError, TypeError):
            self._client = OAuthClientInformationFull.model_validate(entry.get("client_info"))
        with contextlib.suppress(ValidationError, TypeError):
            self._tokens = OAuthToken.model_validate(entry.get("tokens"))
            expires_at = entry.get("expires_at")
            self.expires_at = float(expires_at) if isinstance(expires_at, int | float) else None

    def _save(self) -> None:
        data = self._read() or {"servers": {}}
        entry: dict[str, Any] = {}
        if self._client is not None:
            entry["client_info"] = self._client.model_dump(mode="json", exclude_none=True)
        if self._tokens is not None:
            entry["tokens"] = self._tokens.model_dump(mode="json", exclude_none=True)
            entry["expires_at"] = self.expires_at
        data["servers"][self.url] = entry
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".nt-tokens-", dir=self.path.parent)  # mkstemp: mode 0600
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as out:
                json.dump(data, out, indent=1)
            os.chmod(tmp, 0o600)
            os.replace(tmp, self.path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise
