"""What an external agent keeps in the toolkit's store, and the approval modes it shares with the chat.

An agent that runs elsewhere (`ClaudeCode`, `ACPAgent`) keeps its own conversation; the store keeps
what a new kernel needs to take it up: the agent's session id and folder (in the state's
`plugin_data`, under the agent's key), the calls remembered for the session, the usage, and the
conversation as a chat shows it (Messages API messages, from which a chat rebuilds its transcript).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .._exceptions import ConfigurationError
from ..session._state import AgentState
from ..stores._store import SessionStore
from ..tools._approvals import ApprovalMode, RememberedApproval

__all__ = ["APPROVAL_MODES", "checked_approval_mode", "keep", "kept"]

APPROVAL_MODES: tuple[ApprovalMode, ...] = ("interactive", "approve_all", "auto_deny")


def checked_approval_mode(mode: object) -> ApprovalMode:
    """`mode` if it is one of the chat's approval modes.

    Raises:
        ConfigurationError: it is not (the caller keeps the mode it had).
    """
    if mode not in APPROVAL_MODES:
        raise ConfigurationError(
            f"approval_mode must be one of {', '.join(map(repr, APPROVAL_MODES))}, not {mode!r}"
        )
    return mode


def kept(
    store: SessionStore, session: str, key: str, cwd: Path, who: str
) -> tuple[AgentState | None, dict[str, Any]]:
    """The saved state of `session` and what the agent kept in it under `key` (empty: nothing saved).

    Raises:
        ConfigurationError: the saved session ran in another folder than `cwd` (an agent finds its
            sessions by their folder).
    """
    state = store.load(session)
    if state is None:
        return None, {}
    saved = state.plugin_data.get(key, {})
    saved = saved if isinstance(saved, dict) else {}
    if saved.get("cwd") not in (None, str(cwd)):
        raise ConfigurationError(
            f"session {session!r} of {who} ran in {saved['cwd']}, not {cwd}: it keeps a session by its folder"
        )
    return state, saved


def keep(
    store: SessionStore,
    state: AgentState | None,
    session: str,
    key: str,
    data: dict[str, Any],
    *,
    remembered: list[RememberedApproval],
    shown: Any,
) -> AgentState:
    """Save the agent's `data` under `key`, with its remembered calls and `shown`'s usage and history.

    Compare-and-set: another kernel's newer save of the session is not overwritten (the store raises).
    Returns the state saved (the next save builds on it).
    """
    state = state if state is not None else AgentState(agent_uuid=session)
    state.plugin_data = {**state.plugin_data, key: data}
    state.approvals = list(remembered)
    state.usage = shown.usage
    state.messages = list(shown.history)
    store.save(state)
    return state
