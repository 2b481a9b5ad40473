"""Pages an MCP server (or its app) asks the person to open: which URLs may be shown, and the consent card.

A URL is shown only when a browser reads its host as we do (`web_page`), its host is named as a person
should read it (`host_shown`: an IDN as punycode, the Unicode form beside), and the card opens it on the
person's click only (`url_tool`: the `open_url` renderer, whose only accepted ack is that click's).
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from ..tools._renderers import Renderer
from ..tools._tool import Tool

__all__ = ["host_shown", "url_tool", "web_page"]


def _schema_only(**arguments: Any) -> None:
    """Schema-only: a person answers it."""


def web_page(url: object) -> bool:
    """Whether `url` is an http(s) URL with a host that a browser reads as we do.

    A browser takes a backslash for a slash (`https://evil.example<backslash>@good.example/` opens
    evil.example, where `urlsplit` finds good.example), drops tabs and newlines, and decodes a
    `%` in the host: such a URL could show one host on the card and open another, so it is refused.
    """
    if not isinstance(url, str) or "\\" in url or any(c.isspace() or not c.isprintable() for c in url):
        return False
    try:
        parts = urlsplit(url)
        parts.hostname  # noqa: B018 (an unclosed "[" in the host raises here or above)
    except ValueError:
        return False
    return parts.scheme in ("http", "https") and bool(parts.hostname) and "%" not in parts.netloc


def host_shown(url: str) -> str:
    """The URL's host as a person should read it: ASCII (punycode for an IDN) and the Unicode form beside."""
    host = urlsplit(url).hostname or ""
    try:
        ascii_host = host.encode("idna").decode("ascii") if not host.isascii() else host
        unicode_host = ascii_host.encode("ascii").decode("idna")
    except (UnicodeError, ValueError):
        return host.encode("ascii", "backslashreplace").decode("ascii")
    return ascii_host if unicode_host == ascii_host else f"{ascii_host} (shown as {unicode_host})"


def url_tool(name: str, url: str) -> Tool:
    """The consent card for opening `url` (the `open_url` renderer; only the click's ack is taken)."""
    exact = {
        "type": "object",
        "properties": {"url": {"const": url}, "via": {"const": "button"}},
        "required": ["url", "via"],
    }
    return Tool(
        _schema_only,
        name=name,
        description="An MCP server asks you to open a page: Open opens it in a new tab, Skip declines.",
        executor="frontend",
        category="mcp",
        input_schema={"type": "object", "properties": {"url": {"type": "string"}}},
        renderer=Renderer._builtin(
            "nt.open_url",
            lambda args, output: f"Opened {output['url']} on the user's click.",
            "they declined to open the page.",
            lambda args: {"url": args["url"], "via": "button"},
            exact,
        ),
    )
