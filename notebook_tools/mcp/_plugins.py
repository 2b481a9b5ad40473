"""An MCP server's tool listing as `nt.Tool`s in one `nt.Plugin`, and its results as content blocks.

Names are made to fit the API's `^[a-zA-Z0-9_-]{1,64}$` (and unique); a schema that is not a valid
JSON Schema object, or holds a `pattern` RE2 cannot match in linear time (lookaround, backreferences:
see `_patterns`), becomes `{"type": "object"}` (the server checks its own arguments). Annotations
decide approvals unless the server says otherwise: `destructiveHint` true needs approval. Results:
text, images (the API's image types), structured content checked against `outputSchema`, embedded
resources and resource links become text or image blocks; an `isError` result is an error result.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable
from typing import Any

from anthropic.lib.tools import ToolError

from ..results import DisplayHints, Presented, RichResult
from ..tools._patterns import schema_pattern_problem
from ..tools._plugins import Plugin
from ..tools._schemas import check_schema, error_lines, validator
from ..tools._tool import Tool
from ._app_resources import app_uri, visibility
from ._border import image_problem
from ._server import MCPServer, MCPServerError, Progress

__all__ = ["app_shown", "approval_rule", "plugin_for", "result_blocks", "safe_name"]

_DESCRIPTION_CHARS = 4_000
_NAMED_AT_MOST = 3  # tools left out named in the plugin's description


def safe_name(
    name: object, taken: set[str], fallback: str = "tool", tried: dict[str, int] | None = None
) -> str:
    """`name` cut to the API's tool-name rule, made unique among `taken` (and added to it).

    `tried`: the last suffix tried for each name (shared by the calls of one listing, so thousands
    of tools of one name take linear time, not quadratic).
    """
    base = re.sub(r"[^a-zA-Z0-9_-]", "_", str(name))[:64].strip("_") or fallback
    found, n = base, (tried or {}).get(base, 1)
    while found in taken:
        n += 1
        suffix = f"_{n}"
        found = base[: 64 - len(suffix)] + suffix
    if tried is not None:
        tried[base] = n
    taken.add(found)
    return found


def _schema(raw: object) -> dict[str, Any]:
    import jsonschema  # on first use (see _schemas.validator)

    if isinstance(raw, dict) and raw.get("type", "object") == "object":
        try:
            check_schema(raw, jsonschema.validators.validator_for(raw))
            # a `$ref` to anything but this schema could never resolve; one that loops never ends;
            # a pattern RE2 cannot match would be matched by Python's backtracking `re` (see _patterns)
            if not _outside_refs(raw) and not _loops(raw) and schema_pattern_problem(raw, "schema") is None:
                json.dumps(raw)
                return {**raw, "type": "object"}
        except (jsonschema.SchemaError, TypeError, ValueError, RecursionError):  # (nested too deep)
            pass
    return {"type": "object"}


_SAME_INSTANCE = ("allOf", "anyOf", "oneOf", "not", "if", "then", "else")


def _loops(root: object) -> bool:
    """Whether `$ref`s lead a schema back to itself while checking the same value (never ending)."""
    done: set[int] = set()

    def chain(node: object, open_: set[int]) -> bool:
        if not isinstance(node, dict) or id(node) in done:
            return False
        if id(node) in open_:
            return True
        open_.add(id(node))
        ref = node.get("$ref")
        same = [_target(root, ref)] if isinstance(ref, str) else []
        for key in _SAME_INSTANCE:
            value = node.get(key)
            same += value if isinstance(value, list) else [value]
        looped = any(chain(n, open_) for n in same)
        open_.discard(id(node))
        done.add(id(node))
        return looped

    walked, waiting = set(), [root]
    while waiting:  # every schema in it, each once
        node = waiting.pop()
        if id(node) in walked:
            continue
        walked.add(id(node))
        if isinstance(node, dict) and chain(node, set()):
            return True
        values = list(node.values()) if isinstance(node, dict) else node if isinstance(node, list) else []
        waiting += [v for v in values if isinstance(v, dict | list)]
    return False


def _target(root: object, ref: str) -> object:
    found = root
    for part in ref[2:].split("/") if ref.startswith("#/") else []:
        part = part.replace("~1", "/").replace("~0", "~")
        if isinstance(found, dict):
            found = found.get(part)
        elif isinstance(found, list) and part.isdigit() and int(part) < len(found):
            found = found[int(part)]
    return found


def _outside_refs(node: object, root: object = None) -> bool:
    """Whether a `$ref` points outside the schema or nowhere in it (validating would raise)."""
    root = node if root is None else root
    if isinstance(node, dict):
        for ref in (node.get(k) for k in ("$ref", "$dynamicRef", "$recursiveRef")):
            if ref is not None and not (isinstance(ref, str) and _resolves(root, ref)):
                return True
        return any(_outside_refs(v, root) for v in node.values())
    return isinstance(node, list) and any(_outside_refs(v, root) for v in node)


def _resolves(root: object, ref: str) -> bool:
    if not ref.startswith("#") or (ref != "#" and not ref.startswith("#/")):
        return False
    found = root
    for part in ref[2:].split("/") if ref != "#" else []:
        part = part.replace("~1", "/").replace("~0", "~")
        if isinstance(found, dict) and part in found:
            found = found[part]
        elif isinstance(found, list) and part.isdigit() and int(part) < len(found):
            found = found[int(part)]
        else:
            return False
    return isinstance(found, dict | bool)


def approval_rule(server: MCPServer, listed: dict[str, Any]) -> bool | None:
    """What the server's `approval=` says of a listed tool (None: it says nothing of it)."""
    rule = server.approval
    if isinstance(rule, bool):
        return rule
    if callable(rule):
        return bool(rule(listed))
    if rule is not None and listed.get("name") in rule:
        return bool(rule[listed["name"]])
    return None


def _approval(server: MCPServer, listed: dict[str, Any]) -> bool:
    said = approval_rule(server, listed)
    if said is not None:
        return said
    hints = listed.get("annotations") or {}
    return hints.get("destructiveHint") is True and hints.get("readOnlyHint") is not True


def plugin_for(
    server: MCPServer,
    listing: Iterable[dict[str, Any]],
    taken: set[str],
    progress: Callable[[], Progress | None],
) -> Plugin | None:
    """The plugin offering `listing` (None when the server has no tools).

    `taken`: names used elsewhere in the agent; `progress`: called in the calling task for the
    function that shows a call's progress on its card.
    """
    name = safe_name(server.name, taken, "mcp")
    tried: dict[str, int] = {}
    offered = (d for d in listing if isinstance(d, dict) and "model" in visibility(d))  # not app-only ones
    tools = [_tool(server, listed, taken, progress, tried) for listed in offered]
    if not tools:
        return None
    about = f"Tools of the MCP server {server.name!r}" + left_out_phrase(server.left_out)
    if server.instructions:
        about += f": {server.instructions[:_DESCRIPTION_CHARS]}"
    return Plugin(name, about, tools)


def left_out_phrase(left_out: dict[str, str]) -> str:
    """The plugin description's note of tools left out (" · 1 tool left out: 'x' (why)"), or ""."""
    if not left_out:
        return ""
    named = [f"{name!r} ({why})" for name, why in list(left_out.items())[:_NAMED_AT_MOST]]
    more = len(left_out) - len(named)
    count = f"{len(left_out)} tool{'s' * (len(left_out) > 1)} left out"
    return f" · {count}: {', '.join(named)}" + (f" and {more} more" if more else "")


def _tool(
    server: MCPServer,
    listed: dict[str, Any],
    taken: set[str],
    progress: Callable[[], Progress | None],
    tried: dict[str, int],
) -> Tool:
    remote = str(listed.get("name", ""))
    output_schema = listed.get("outputSchema")
    uri = app_uri(listed)

    async def call(**arguments: Any) -> Any:
        try:
            result = await server.call_tool_or_ask(remote, arguments, progress())  # -32042: pages first
        except MCPServerError as exc:
            raise ToolError(str(exc)) from exc
        blocks = result_blocks(result, output_schema if isinstance(output_schema, dict) else None)
        if result.get("isError"):
            raise ToolError(blocks)  # type: ignore[arg-type]
        if uri is None:
            return blocks
        return Presented(blocks, app_shown(result, blocks))  # its app gets the whole result

    title = listed.get("title") or (listed.get("annotations") or {}).get("title")
    description = str(listed.get("description") or title or remote)[:_DESCRIPTION_CHARS]
    return Tool(
        call,
        name=safe_name(remote, taken, tried=tried),
        description=description,
        input_schema=_schema(listed.get("inputSchema")),
        needs_approval=_approval(server, listed),
        timeout=None,
        category="mcp",
        display={
            "title": str(title)[:200] if title else None,
            "mcp_server": server.name,
            "mcp_tool": remote[:200],
            "annotations": listed.get("annotations") or {},
            **({"mcp_app": uri} if uri else {}),
        },
    )


def app_shown(result: dict[str, Any], blocks: list[dict[str, Any]]) -> RichResult:
    """What an app tool's card holds for its app: the `CallToolResult` (the model reads `blocks`)."""
    first = next((b["text"] for b in blocks if b["type"] == "text" and b["text"].strip()), "")
    line = " ".join(first.split())[:200] or "Result shown in the app"  # one line, however it was laid out
    return RichResult(
        kind="mcp.app", data={"result": result}, summary=line, display=DisplayHints(view="hidden")
    )


def result_blocks(result: dict[str, Any], output_schema: dict[str, Any] | None) -> list[dict[str, Any]]:
    """A `CallToolResult` (JSON) as Messages API content blocks."""
    content = result.get("content")
    items = content if isinstance(content, list) else []  # (a cassette edited by hand may say anything)
    blocks = [block for item in items if (block := _block(item)) is not None]
    structured = result.get("structuredContent")
    if output_schema is not None and not result.get("isError"):
        try:
            errors = error_lines(validator(_schema(output_schema)), structured)  # never fetches a $ref
        except Exception as exc:  # a local $ref to nowhere: the result cannot be trusted either
            errors = [f"{type(exc).__name__}: {exc}"[:300]]
        if errors:
            raise ToolError(f"The server's structured result does not fit its outputSchema: {errors[0]}")
    if structured is not None and not any(b["type"] == "text" for b in blocks):
        blocks.append({"type": "text", "text": json.dumps(structured)})
    return blocks or [{"type": "text", "text": "(the tool returned no content)"}]


def _block(item: Any) -> dict[str, Any] | None:
    if not isinstance(item, dict):
        return None
    kind = item.get("type")
    if kind == "text":
        return {"type": "text", "text": str(item.get("text", ""))}
    if kind in ("image", "audio"):
        return _binary(item.get("mimeType"), item.get("data"), f"{kind} content")
    if kind == "resource_link":
        about = " ".join(str(item[k]) for k in ("mimeType", "description") if item.get(k))
        text = f"Resource link: {item.get('name', '')} <{item.get('uri', '')}> {about}".strip()
        return {"type": "text", "text": text}
    if kind == "resource":
        found = item.get("resource")
        res: dict[str, Any] = found if isinstance(found, dict) else {}
        uri = res.get("uri", "")
        if "text" in res:
            return {"type": "text", "text": f"Resource <{uri}>:\n{res['text']}"}
        return _binary(res.get("mimeType"), res.get("blob"), f"binary resource <{uri}>")
    return {"type": "text", "text": f"[content of type {str(kind)[:50]!r}]"}


def _binary(mime: object, data: object, notice: str) -> dict[str, Any]:
    """An image block the API takes, else a line saying what was left out and why."""
    size = len(data) * 3 // 4 if isinstance(data, str) else 0
    about = f"[{notice} {str(mime or 'of unknown type')[:100]}, about {size} bytes"
    if not (isinstance(mime, str) and mime.startswith("image/")):
        return {"type": "text", "text": f"{about}: left out, the model reads only text and images]"}
    problem = image_problem(mime, data)
    if problem is None:
        return {"type": "image", "source": {"type": "base64", "media_type": mime, "data": data}}
    return {"type": "text", "text": f"{about}: left out, {problem}]"}
