"""Lost races: a request answering calls another request answered first.

Two requests that answer one pause race on the store's compare-and-set; the loser may find out
before it starts (the calls it answers are closed already) or when its save is refused. Either
way it is refused with 409 and changes nothing, and the refusal names the winner's outcome: what
each call it answered was given, and where the session stands now.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ..session._state import AgentState
from ._agui_messages import block_text
from ._http import HTTPRefusal

__all__ = ["answered", "lost_race"]

_SHOWN = 200
"""Characters of each winning answer a refusal shows."""


def answered(state: AgentState, ids: Iterable[str]) -> dict[str, dict[str, Any]]:
    """The results the history holds for `ids` (those answered), by call id."""
    wanted = set(ids)
    found: dict[str, dict[str, Any]] = {}
    for message in state.messages:
        if message["role"] != "user" or isinstance(message["content"], str):
            continue
        for block in message["content"]:
            if block.get("type") == "tool_result" and block["tool_use_id"] in wanted:
                found[block["tool_use_id"]] = block
    return found


def lost_race(state: AgentState, ids: Iterable[str]) -> HTTPRefusal:
    """The 409 for a request whose calls `ids` another request answered first."""
    results = answered(state, ids)
    winner = {
        i: {"content": block_text(b.get("content", ""))[:_SHOWN], "is_error": bool(b.get("is_error"))}
        for i, b in results.items()
    }
    return HTTPRefusal(
        409,
        "these tool calls were answered already, by another request (or this one sent before); "
        "nothing was changed",
        answered=winner,
        thread_status=state.status,
    )
