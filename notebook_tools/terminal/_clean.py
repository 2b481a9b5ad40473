"""Untrusted text made safe to print: control characters out, links only to web pages.

Text from the model, web pages, tools and files reaches the terminal. The chat prints it as rich
`Text` (never parsed as markup, so a title holding "[bold]" prints those characters), but rich
passes escape sequences through: an ESC in a page title could move the cursor, rewrite the screen
or forge a hyperlink. `clean` takes out every control character but newlines and tabs (C0, DEL, C1)
and the invisible bidirectional overrides that make text read differently from what it is.
"""

from __future__ import annotations

import json
import re
from typing import Any
from urllib.parse import urlsplit

from ..mcp._elicitation import web_page

__all__ = ["arguments_text", "clean", "host", "one_line", "web_link"]

_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")
_SEPARATORS = re.compile("[\u2028\u2029]")


def clean(text: object) -> str:
    """`text` without control characters (newlines and tabs kept; a carriage return goes)."""
    return _CONTROL.sub("", _SEPARATORS.sub("\n", text if isinstance(text, str) else str(text)))


def one_line(text: object, limit: int = 160) -> str:
    """`text` cleaned onto one line (whitespace runs as one space), at most `limit` characters."""
    flat = " ".join(clean(text).split())
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


def web_link(url: object) -> str | None:
    """`url` when it is a plain http(s) address safe to hand the terminal as a hyperlink, else None.

    (One a browser would read with another host than the one shown, `web_page` refuses.)
    """
    if not isinstance(url, str) or len(url) > 2048 or clean(url) != url:
        return None
    return url if web_page(url) else None


def host(url: object) -> str:
    """The site of `url` as people name it ("docs.python.org"), or "" when it has none."""
    if not isinstance(url, str):
        return ""
    try:
        name = urlsplit(clean(url).strip()).hostname or ""
    except ValueError:
        return ""
    return one_line(name.removeprefix("www."), 80)


def arguments_text(arguments: Any, limit: int = 120) -> str:
    """A call's arguments as a person reads them, on one line of at most `limit` characters.

    `table: sales, n_rows: 12`: strings unquoted, lists and objects as compact JSON ("" without arguments).
    """
    if not arguments:
        return ""
    if not isinstance(arguments, dict):
        return one_line(_json(arguments), limit)
    parts = (
        f"{key}: {value if isinstance(value, str) else _json(value)}" for key, value in arguments.items()
    )
    return one_line(", ".join(parts), limit)


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)
