"""The static transcript's forms of thinking, server tools, compactions, turn notices and citations.

Part of `_export` (read its docstring): every string here is untrusted and escaped; only http(s)
URLs become links, opened in a new tab with `rel="noopener noreferrer"`. A footnote mark is put in
the model's markdown as a private-use placeholder before it is rendered and sanitized, then replaced
by the mark's own HTML, so a mark never changes how the markdown parses and no model text can forge one.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Mapping
from typing import Any
from urllib.parse import urlsplit

__all__ = ["block_markdown", "cited", "cited_markdown", "link", "link_markdown", "server_tool", "thinking"]

_OPEN, _CLOSE = "\ue000", "\ue001"
_PLACEHOLDER = re.compile(f"{_OPEN}(\\d+){_CLOSE}")


def _esc(value: object) -> str:
    return html.escape(str(value), quote=True)


def _host(url: str) -> str | None:
    """The host of an http(s) URL, or None for any other URL (javascript:, data:, relative, junk)."""
    try:
        parts = urlsplit(url)
        host = parts.hostname or ""
    except ValueError:
        return None
    return host if parts.scheme in ("http", "https") and host else None


def link(title: str, url: str) -> str:
    """A title linking to `url`, its host after it; only the title's text when the URL is not http(s)."""
    host = _host(url)
    label = _esc(title or url)
    if host is None:
        return label
    attributes = f'href="{_esc(url)}" title="{_esc(url)}" target="_blank" rel="noopener noreferrer"'
    return f"<a {attributes}>{label}</a> <i>({_esc(host)})</i>"


def link_markdown(title: str, url: str) -> str:
    label = html.escape(title or url, quote=False).replace("[", "\\[").replace("]", "\\]")
    host = _host(url)
    return f"[{label}](<{url.replace('>', '%3E')}>) ({host})" if host else label


def _with_placeholders(text: str, marks: Any) -> str:
    text = text.replace(_OPEN, "").replace(_CLOSE, "")  # model text cannot forge a mark
    at: dict[int, list[int]] = {}
    for mark in marks if isinstance(marks, list) else []:
        if isinstance(mark, Mapping) and isinstance(mark.get("at"), int) and isinstance(mark.get("n"), int):
            at.setdefault(min(max(mark["at"], 0), len(text)), []).append(mark["n"])
    for offset in sorted(at, reverse=True):
        text = text[:offset] + "".join(f"{_OPEN}{n}{_CLOSE}" for n in at[offset]) + text[offset:]
    return text


def cited(text: str, item: Mapping[str, Any], markdown: Callable[[str], str]) -> str:
    """An assistant message's HTML with its footnote marks, and its sources listed under it."""
    quotes = {m.get("n"): m.get("quote", "") for m in item.get("marks") or [] if isinstance(m, Mapping)}

    def mark(match: re.Match[str]) -> str:
        n = int(match.group(1))
        return f'<sup title="{_esc(quotes.get(n, ""))}">[{n}]</sup>'

    body = _PLACEHOLDER.sub(mark, markdown(_with_placeholders(text, item.get("marks"))))
    sources = [s for s in item.get("sources") or [] if isinstance(s, Mapping)]
    if not sources:
        return body
    rows = "".join(f"<li>{link(str(s.get('title', '')), str(s.get('url', '')))}</li>" for s in sources)
    return f"{body}<p><b>Sources</b></p><ol>{rows}</ol>"


def cited_markdown(text: str, item: Mapping[str, Any], md: Callable[[str], str]) -> str:
    """The markdown form: marks as `[n]` after the cited text, then the numbered sources."""
    body = _PLACEHOLDER.sub(lambda m: f"[{m.group(1)}]", md(_with_placeholders(text, item.get("marks"))))
    sources = [s for s in item.get("sources") or [] if isinstance(s, Mapping)]
    rows = [f"{s.get('n')}. {link_markdown(str(s.get('title', '')), str(s.get('url', '')))}" for s in sources]
    return body + ("\n\n**Sources**\n\n" + "\n".join(rows) if rows else "")


def thinking(item: Mapping[str, Any]) -> str:
    """A thinking section, folded."""
    if item.get("redacted"):
        return "<details><summary>Thinking (redacted)</summary><p><i>Encrypted by the API.</i></p></details>"
    return f"<details><summary>Thinking</summary><pre>{_esc(item.get('text', ''))}</pre></details>"


def server_tool(item: Mapping[str, Any], pre: Callable[[str], str]) -> str:
    """A server tool's card: what it did, then its links, code and output, tools found or error."""
    icon = "⚠️" if item.get("is_error") else "🌐"
    parts = [f"<p><b>{icon} {_esc(item.get('text') or item.get('name') or 'server tool')}</b></p>"]
    links = [row for row in item.get("links") or [] if isinstance(row, Mapping)]
    if links:
        rows = "".join(
            f"<li>{link(str(row.get('title', '')), str(row.get('url', '')))}"
            + (f" <i>{_esc(row['detail'])}</i>" if row.get("detail") else "")
            + "</li>"
            for row in links
        )
        parts.append(f"<ul>{rows}</ul>")
    run = item.get("execution")
    if isinstance(run, Mapping):
        parts.append(pre(str(run.get("code", ""))) if run.get("code") else "")
        for stream in ("stdout", "stderr"):
            if run.get(stream):
                parts.append(f"<p><i>{stream}</i></p>{pre(str(run[stream]))}")
        if run.get("return_code") is not None:
            parts.append(f"<p><i>return code {_esc(run['return_code'])}</i></p>")
    if item.get("found"):
        parts.append(f"<p>Found: {_esc(', '.join(str(name) for name in item['found']))}</p>")
    if item.get("result"):
        parts.append(
            f"<p><i>{_esc(item['result'])}</i></p>" if item.get("is_error") else pre(str(item["result"]))
        )
    return "<blockquote>" + "".join(parts) + "</blockquote>"


def block_markdown(item: Mapping[str, Any], md: Callable[[str], str]) -> str:
    """A thinking section (its start) or a server tool's card (its line, links and error) as markdown."""
    text = str(item.get("text", ""))
    if item.get("kind") == "thinking":
        more = "…" if len(text) > 200 else ""
        return "> _Thinking (redacted)_" if item.get("redacted") else f"> _Thinking:_ {md(text[:200])}{more}"
    rows = [row for row in item.get("links") or [] if isinstance(row, Mapping)]
    links = "".join(f"\n> - {link_markdown(str(r.get('title', '')), str(r.get('url', '')))}" for r in rows)
    error = f"\n>\n> _{md(item.get('result', ''))}_" if item.get("is_error") else ""
    return f"> 🌐 **{md(text)}**{links}{error}"
