"""The body of the next request: the session's messages, the system prompt and tools, the turn's options.

Caching: the system prompt's two blocks and the tool definitions carry a breakpoint each, and the
conversation is cached with the API's automatic caching (a top-level `cache_control`: the API puts the
breakpoint on the last cacheable block and moves it as the conversation grows) — four breakpoints at
most, the API's limit. `cache_ttl=None` sends no breakpoint at all.
"""

from __future__ import annotations

from typing import Any

from ..api._options import RequestOptions
from ..session._state import AgentState
from ._settings import Settings
from ._toolset_control import ToolsetControl

__all__ = ["request_body", "turn_options"]


def turn_options(settings: Settings, state: AgentState) -> RequestOptions:
    """The options of the running turn (saved with the session), else the agent's."""
    if state.turn_options is not None:
        return RequestOptions.model_validate(state.turn_options)
    return settings.options


def request_body(
    settings: Settings, control: ToolsetControl, state: AgentState
) -> tuple[dict[str, Any], list[str]]:
    """The body of the next request (without `stream`) and its beta names."""
    options = turn_options(settings, state)
    extra, betas = options.body()
    if _forced(options) and _requested_in_turn(state):
        # A forced tool choice is for the turn's first request: forced on every one, a turn could only
        # end at max_turns. The rest of the turn chooses freely (parallel-use setting kept).
        extra["tool_choice"] = {"type": "auto", **_parallel(extra["tool_choice"])}
    messages, taken = _within_limit(state.messages)
    params: dict[str, Any] = {
        "model": settings.model,
        "max_tokens": settings.max_tokens,
        "messages": messages,
    }
    params.update(extra)
    cache = None
    if options.cache_ttl is not None:
        cache = {"type": "ephemeral"} if options.cache_ttl == "5m" else {"type": "ephemeral", "ttl": "1h"}
    # Two system blocks: what never changes, then what the tool set adds; a change of the second
    # keeps the first (and the tools before it) cached.
    system = []
    if settings.system:
        system.append({"type": "text", "text": settings.system})
    if extra_system := control.toolset.instructions(state.toolset):
        system.append({"type": "text", "text": extra_system})
    tools = [*control.tool_definitions(), *(dict(t) for t in settings.server_tools)]
    # Our breakpoints in order of worth, as many as the limit leaves beside the history's own.
    wanted = ["tools", "system0", "conversation", "system1"] if cache else []
    wanted = [w for w in wanted if _present(w, tools, system, messages)][: MAX_BREAKPOINTS - taken]
    if system:
        params["system"] = [
            {**block, "cache_control": cache} if f"system{i}" in wanted else block
            for i, block in enumerate(system)
        ]
    if tools:
        if "tools" in wanted:
            tools[-1] = {**tools[-1], "cache_control": cache}  # one breakpoint caches every tool definition
        params["tools"] = tools
    if "conversation" in wanted:
        params["cache_control"] = cache  # the conversation so far, read back by the next request
    return params, betas


MAX_BREAKPOINTS = 4
"""The API's limit: "A maximum of 4 blocks with cache_control may be provided"."""


def _present(kind: str, tools: list[Any], system: list[Any], messages: list[Any]) -> bool:
    if kind == "tools":
        return bool(tools)
    if kind == "conversation":
        return len(messages) > 1
    return int(kind[-1]) < len(system)


def _forced(options: RequestOptions) -> bool:
    return isinstance(options.tool_choice, dict) and options.tool_choice.get("type") in ("any", "tool")


def _parallel(choice: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in choice.items() if k == "disable_parallel_tool_use"}


def _requested_in_turn(state: AgentState) -> bool:
    """Whether the running turn has had a reply (an assistant message after the person's)."""
    start = state.turn_start if state.turn_start is not None else len(state.messages)
    return any(m["role"] == "assistant" for m in state.messages[start:])


def _blocks_with_breakpoints(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every block of the history carrying `cache_control` (in tool results too), oldest first."""
    found = []
    for message in messages:
        content = message["content"]
        for block in content if isinstance(content, list) else []:
            if isinstance(block, dict) and block.get("cache_control") is not None:
                found.append(block)
            inner = block.get("content") if isinstance(block, dict) else None
            for item in inner if isinstance(inner, list) else []:
                if isinstance(item, dict) and item.get("cache_control") is not None:
                    found.append(item)
    return found


def _within_limit(messages: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], int]:
    """The history as sent, with at most 4 breakpoints of its own (the newest kept), and how many it has.

    A person's block or a tool's result may carry `cache_control`; more than the API's limit in one
    request is refused, so the oldest are left out of the request (the saved history keeps them).
    """
    marked = _blocks_with_breakpoints(messages)
    if len(marked) <= MAX_BREAKPOINTS:
        return messages, len(marked)
    drop = {id(b) for b in marked[: len(marked) - MAX_BREAKPOINTS]}

    sent = []
    for message in messages:
        content = message["content"]
        if isinstance(content, list):
            content = [_strip_marked(b, drop) for b in content]
        sent.append({**message, "content": content})
    return sent, MAX_BREAKPOINTS


def _strip_marked(block: Any, drop: set[int]) -> Any:
    """`block` without the breakpoints whose blocks (by identity) are in `drop`, its inner ones too."""
    if not isinstance(block, dict):
        return block
    copy = {k: v for k, v in block.items() if not (k == "cache_control" and id(block) in drop)}
    if isinstance(block.get("content"), list):
        copy["content"] = [_strip_marked(b, drop) for b in block["content"]]
    return copy
