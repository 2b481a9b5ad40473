"""What the terminal shows of blocks a server runs for the model: searches, fetched pages, code, MCP.

A server tool's call (`server_tool_use`, `mcp_tool_use`) and its result arrive as blocks of the reply
(`AssistantBlock` events): "⌕ Searched the web: QUERY" and then the results as titled lines with their
site (the title a hyperlink where the terminal has them), a fetched page by its title and site, code
execution as the code and then its output and exit code, a tool search by the tools it found, an MCP call
by server and tool. Any other block is named in a dim line, never dropped and never a crash.

Every string here came from the model or a web page: it is cleaned (`_clean`) and printed as rich `Text`,
so no markup in it is interpreted and no escape sequence reaches the terminal.
"""

from __future__ import annotations

from typing import Any

from rich import box
from rich.console import RenderableType
from rich.panel import Panel
from rich.rule import Rule
from rich.style import Style
from rich.syntax import Syntax
from rich.text import Text

from ._clean import arguments_text, clean, host, one_line, web_link

__all__ = ["SERVER_RESULTS", "block_lines", "linked"]

OUTPUT_LINES = 40
"""Lines of a program's output (or a viewed file) shown; the rest is counted."""

SERVER_RESULTS = {
    "web_search_tool_result",
    "web_fetch_tool_result",
    "code_execution_tool_result",
    "bash_code_execution_tool_result",
    "text_editor_code_execution_tool_result",
    "tool_search_tool_result",
    "mcp_tool_result",
}

_ERRORS = {
    "max_uses_exceeded": "it reached its max_uses",
    "too_many_requests": "too many requests (rate limited)",
    "invalid_input": "the input was invalid",
    "invalid_tool_input": "the input was invalid",
    "query_too_long": "the query is too long",
    "unavailable": "the service is unavailable",
    "url_not_accessible": "the page could not be reached",
    "url_not_allowed": "the address is not allowed",
    "url_too_long": "the address is too long",
    "unsupported_content_type": "the page's content type is not supported",
    "execution_time_exceeded": "it ran out of time",
    "container_expired": "the code container expired",
    "output_file_too_large": "an output file was too large",
    "file_not_found": "no such file",
}


def linked(title: object, url: object, *, style: str = "") -> Text:
    """A source as "TITLE — site", the title a hyperlink to `url` when it is a web address."""
    site = host(url)
    name = one_line(title, 120) if title else ""
    text = Text(name or site or one_line(url, 120) or "(untitled)", style=style)
    if web_link(url):
        text.stylize(Style(link=str(url)))
    if name and site:
        text.append(f" — {site}", style="dim")
    return text


def block_lines(block: dict[str, Any], call: dict[str, Any] | None = None) -> list[RenderableType]:
    """What to print for a server-side block (`call`: the `server_tool_use` a result answers)."""
    kind = block.get("type")
    if kind == "server_tool_use":
        return _use(block)
    if kind == "mcp_tool_use":
        where = f"{one_line(block.get('server_name', ''), 60)}/{one_line(block.get('name', ''), 60)}"
        return [_line(f"⚙ {where}{_arguments(block.get('input'))} (MCP)", "cyan")]
    if kind in SERVER_RESULTS:
        return _result(block, call)
    if kind == "container_upload":
        return [_line(f"· uploaded {one_line(block.get('file_id', ''), 80)} to the code container", "dim")]
    if kind == "compaction":
        return [Rule(Text("earlier conversation summarized", style="dim"), style="dim")]
    return [_line(f"{one_line(kind, 60) or 'an untyped'} block", "dim")]


def _use(block: dict[str, Any]) -> list[RenderableType]:
    name, args = str(block.get("name", "")), block.get("input") or {}
    args = args if isinstance(args, dict) else {"input": args}
    if name == "web_search":
        return [_line(f"⌕ Searched the web: {one_line(args.get('query', ''), 200)}", "cyan")]
    if name == "web_fetch":
        return [_line(f"⌕ Fetched a page: {one_line(args.get('url', ''), 200)}", "cyan")]
    if name.startswith("tool_search"):
        what = args.get("query", args.get("pattern", ""))
        return [_line(f"⌕ Searched the tools: {one_line(what, 200)}", "cyan")]
    if name == "code_execution" and "code" in args:
        return [_line("⌘ Ran code", "cyan"), _code(args["code"], "python")]
    if name in ("bash_code_execution", "code_execution") and "command" in args:
        return [_line("⌘ Ran a command", "cyan"), _code(f"$ {clean(args['command'])}", "bash")]
    if name == "text_editor_code_execution":
        action, path = one_line(args.get("command", "edit"), 30), one_line(args.get("path", ""), 160)
        shown: list[RenderableType] = [_line(f"✎ {action} {path}", "cyan")]
        if action == "create" and isinstance(args.get("file_text"), str):
            shown.append(_code(args["file_text"], "text", path))
        return shown
    return [_line(f"⚙ {one_line(name, 60)}{_arguments(args)} (server tool)", "cyan")]


def _result(block: dict[str, Any], call: dict[str, Any] | None) -> list[RenderableType]:
    kind, content = block.get("type"), block.get("content")
    error = _error(content)
    if error:
        what = one_line((call or {}).get("name", str(kind).removesuffix("_tool_result")), 60)
        return [_line(f"  ✗ {what.replace('_', ' ')} failed: {error}", "red")]
    if kind == "web_search_tool_result":
        found = [r for r in content if isinstance(r, dict)] if isinstance(content, list) else []
        lines: list[RenderableType] = [
            Text.assemble("  · ", linked(r.get("title"), r.get("url"))) for r in found
        ]
        return lines or [_line("  no results", "dim")]
    if kind == "web_fetch_tool_result":
        page = content if isinstance(content, dict) else {}
        document = page["content"] if isinstance(page.get("content"), dict) else {}
        return [Text.assemble(("  ✓ ", "green"), linked(document.get("title"), page.get("url")))]
    if kind == "tool_search_tool_result":
        refs = content.get("tool_references", []) if isinstance(content, dict) else []
        names = [one_line(r.get("tool_name", ""), 60) for r in refs if isinstance(r, dict)]
        return [_line(f"  found: {', '.join(names)}" if names else "  no tools found", "dim")]
    if kind == "mcp_tool_result":
        where = "/".join(one_line((call or {}).get(k, ""), 60) for k in ("server_name", "name")).strip("/")
        mark, style = ("✗", "red") if block.get("is_error") else ("✓", "green")
        return [_line(f"  {mark} {where or 'MCP tool'} → {one_line(_text_of(content), 160)}", style)]
    if kind == "text_editor_code_execution_tool_result":
        return _edited(content if isinstance(content, dict) else {})
    return _ran(content if isinstance(content, dict) else {})


def _ran(result: dict[str, Any]) -> list[RenderableType]:
    """A program's output: stdout, stderr (red), the exit code, and files it wrote."""
    shown: list[RenderableType] = []
    shown += _output(result.get("stdout"), "")
    shown += _output(result.get("stderr"), "red")
    code = result.get("return_code")
    if isinstance(code, int):
        shown.append(_line(f"  exit code {code}", "green" if code == 0 else "bold red"))
    for item in result.get("content") or []:
        if isinstance(item, dict) and item.get("file_id"):
            shown.append(_line(f"  wrote file {one_line(item['file_id'], 80)}", "dim"))
    return shown or [_line("  (no output)", "dim")]


def _edited(result: dict[str, Any]) -> list[RenderableType]:
    kind = str(result.get("type", ""))
    if kind.endswith("view_result"):
        return _output(result.get("content"), "dim") or [_line("  (empty file)", "dim")]
    if kind.endswith("create_result"):
        return [_line("  ✓ file updated" if result.get("is_file_update") else "  ✓ file created", "green")]
    lines = result.get("lines")
    if isinstance(lines, list):
        return _output("\n".join(clean(x) for x in lines), "") or [_line("  ✓ edited", "green")]
    return [_line("  ✓ done", "green")]


def _output(text: object, style: str) -> list[RenderableType]:
    if not isinstance(text, str) or not text.strip():
        return []
    lines = clean(text).rstrip("\n").split("\n")
    shown: list[RenderableType] = [_line(f"  {line}", style) for line in lines[:OUTPUT_LINES]]
    if len(lines) > OUTPUT_LINES:
        shown.append(_line(f"  … {len(lines) - OUTPUT_LINES} more lines", "dim"))
    return shown


def _error(content: object) -> str:
    """The failure a result reports ("" when it succeeded), in words."""
    if not isinstance(content, dict) or not str(content.get("type", "")).endswith(("_error", "_tool_error")):
        return ""
    code = one_line(content.get("error_code", "error"), 60)
    message = one_line(content.get("error_message", ""), 200)
    said = _ERRORS.get(code, code.replace("_", " "))
    return f"{said} ({message})" if message else said


def _code(code: object, language: str, title: str = "") -> RenderableType:
    lines = clean(code).rstrip("\n").split("\n")
    more = f"\n… {len(lines) - OUTPUT_LINES} more lines" if len(lines) > OUTPUT_LINES else ""
    body = Syntax(
        "\n".join(lines[:OUTPUT_LINES]) + more, language, word_wrap=True, background_color="default"
    )
    label = Text(one_line(title, 80) or language, style="dim")
    return Panel(body, title=label, title_align="left", box=box.ROUNDED, expand=False)


def _arguments(args: object) -> str:
    said = arguments_text(args)
    return f" · {said}" if said else ""


def _text_of(content: object) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return " ".join(str(b.get("text", f"[{b.get('type')}]")) for b in content if isinstance(b, dict))
    return ""


def _line(text: str, style: str = "") -> Text:
    return Text(text, style=style)
