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
    params: dict[str, Any] = {
        "model": settings.model,
        "max_tokens": settings.max_tokens,
        "messages": state.messages,
        **extra,
    }
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
    if system:
        params["system"] = [{**block, "cache_control": cache} if cache else block for block in system]
    tools = [*control.tool_definitions(), *(dict(t) for t in settings.server_tools)]
    if tools:
        if cache:
            tools[-1] = {**tools[-1], "cache_control": cache}  # one breakpoint caches every tool definition
        params["tools"] = tools
    if cache and len(state.messages) > 1:
        params["cache_control"] = cache  # the conversation so far, read back by the next request
    return params, betas
