"""Tools the API defines: server tools it runs itself (web search, web fetch, code execution, ...).

    agent = nt.Agent(tools=[clean, nt.server_tool("web_search", max_uses=3)])

`server_tool(name, **config)` gives the SDK's tool param (beta ones included), newest version the SDK declares
(`version="20250305"` pins one); a tool param written out (`{"type": "web_search_20250305", "name":
"web_search"}`) is taken as it is. The list comes from the SDK's own `ToolUnionParam`, so a server tool a
newer SDK adds works without a change here. Tools the API defines but the CLIENT runs (memory, bash, the
text editor, computer use) need code on this side: given as a bare dict they are refused with the way out.
"""

from __future__ import annotations

import re
import typing
from typing import Any

from anthropic.types.beta.beta_tool_union_param import BetaToolUnionParam
from anthropic.types.tool_union_param import ToolUnionParam

from .._exceptions import ToolDefinitionError

__all__ = ["CLIENT_RUN", "is_api_tool", "server_tool", "server_tool_versions", "split_api_tools"]

CLIENT_RUN = frozenset({"memory", "bash", "str_replace_editor", "str_replace_based_edit_tool", "computer"})
"""Names of API-defined tools whose calls the client answers (the API only defines their schema)."""

_DATED = re.compile(r"Literal\[['\"]([a-z0-9_]+?)_(\d{8})['\"]")
_NAME = re.compile(r"Literal\['([a-z0-9_]+)'\]")


def _catalog() -> dict[str, list[tuple[str, str, frozenset[str]]]]:
    """Name -> [(date, type, allowed keys)] for every dated tool param of the SDK's `ToolUnionParam`."""
    found: dict[str, list[tuple[str, str, frozenset[str]]]] = {}
    for param in (*typing.get_args(ToolUnionParam), *typing.get_args(BetaToolUnionParam)):
        notes = getattr(param, "__annotations__", {})
        kind, name = (str(getattr(notes.get(k), "__forward_arg__", notes.get(k))) for k in ("type", "name"))
        dated, named = _DATED.search(kind), _NAME.search(name)
        if dated and named:
            keys = frozenset(param.__required_keys__ | param.__optional_keys__)
            entry = (dated.group(2), f"{dated.group(1)}_{dated.group(2)}", keys)
            versions = found.setdefault(named.group(1), [])
            if all(entry[1] != v[1] for v in versions):  # a beta param repeats the same type
                versions.append(entry)
    return {name: sorted(versions) for name, versions in found.items()}


_CATALOG = _catalog()


def server_tool_versions() -> dict[str, list[str]]:
    """Every API-defined tool the SDK declares, by name, with its versions (oldest first)."""
    return {name: [kind for _, kind, _ in versions] for name, versions in sorted(_CATALOG.items())}


def server_tool(name: str, *, version: str | None = None, **config: Any) -> dict[str, Any]:
    """The tool param of an API-defined tool, newest version unless `version` (a date or a type) is given.

    Args:
        name: "web_search", "web_fetch", "code_execution", "tool_search_tool_regex", ... (see
            `server_tool_versions()`).
        version: "20250305" or "web_search_20250305"; default the newest the SDK knows.
        **config: The tool's own settings (`max_uses`, `allowed_domains`, `user_location`, ...).

    Raises:
        ToolDefinitionError: an unknown name or version, a setting that tool does not take, or a tool
            the client must run (memory, bash, ...) without its implementation.
    """
    versions = _CATALOG.get(name)
    if not versions:
        known = ", ".join(sorted(n for n in _CATALOG if n not in CLIENT_RUN))
        raise ToolDefinitionError(f"no API-defined tool is named {name!r}; the SDK declares: {known}")
    if name in CLIENT_RUN:
        raise ToolDefinitionError(_client_run(name))
    chosen = versions[-1]
    if version is not None:
        match = [v for v in versions if version in (v[0], v[1])]
        if not match:
            raise ToolDefinitionError(
                f"{name!r} has no version {version!r}; it has {[v[1] for v in versions]}"
            )
        chosen = match[0]
    _, kind, keys = chosen
    if unknown := sorted(config.keys() - (keys - {"type", "name"})):
        raise ToolDefinitionError(
            f"{kind} takes no {', '.join(unknown)}; it takes {', '.join(sorted(keys - {'type', 'name'}))}"
        )
    return {"type": kind, "name": name, **config}


def is_api_tool(item: Any) -> bool:
    """Whether `item` is a tool param written out: a dict whose `type` is not "custom"."""
    return isinstance(item, dict) and isinstance(item.get("type"), str) and item["type"] != "custom"


def split_api_tools(items: typing.Sequence[Any]) -> tuple[list[Any], list[dict[str, Any]]]:
    """`tools=` split into what this package runs and the server tools the API runs (checked)."""
    ours: list[Any] = []
    api: list[dict[str, Any]] = []
    for item in items:
        if not is_api_tool(item):
            ours.append(item)
            continue
        name = item.get("name")
        if not isinstance(name, str) or not name:
            raise ToolDefinitionError(f"the server tool {item['type']!r} needs a `name`")
        if name in CLIENT_RUN:
            raise ToolDefinitionError(_client_run(name))
        api.append(dict(item))
    names = [t["name"] for t in api]
    if len(names) != len(set(names)):
        raise ToolDefinitionError(f"two server tools share a name: {sorted(names)}")
    return ours, api


def _client_run(name: str) -> str:
    if name == "memory":
        return "the memory tool runs on your side: give `nt.memory_tool(directory)` instead of the bare param"
    return f"the API defines {name!r} but your code must run it; wrap it in an @nt.tool that does"
