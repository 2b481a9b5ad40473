"""Where sessions are saved: the `SessionStore` protocol, the in-memory store, and the rules for rows.

The SQLite store is in `_sqlite`; both follow the rules here.

The agent saves its `AgentState` at every pause and every turn end, so a
restarted kernel (or another process) resumes a session by its `agent_uuid`.
Stores are synchronous: a save is one small row write, cheaper than a thread hop.

One writer per pause: every row carries a revision and `save` is compare-and-set,
so two agents (two kernels, processes or tabs) that loaded the same pause cannot
both answer it. The first save wins; the second raises `StaleSessionError` and
writes nothing.

Rows are read defensively: one that is not a valid `AgentState` raises
`CorruptSessionError`, one written by a newer notebook_tools raises
`UnsupportedSchemaError`, and one from an older version is migrated as it is
loaded (`_STATE_MIGRATIONS`) and written back at this version by the next save.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from typing import Any, Protocol, runtime_checkable

import pydantic

from .._exceptions import CorruptSessionError, StaleSessionError, UnsupportedSchemaError
from ..session._state import SCHEMA_VERSION, AgentState
from ..tools._approvals import AuditRecord
from ._memory import MemoryExtras

__all__ = [
    "InMemoryStore",
    "SessionStore",
    "check_revision",
    "decode_state",
    "encode_state",
    "upgrade_statements",
]

_STATE_MIGRATIONS: dict[int, Callable[[dict[str, Any]], dict[str, Any]]] = {
    # version -> the function that turns a state of that version into one of the next
    1: lambda state: {**state, "revision": 0},  # 2: `revision`; the store then sets the row's own
    2: lambda state: {**state, "toolset": {}},  # 3: `toolset`; every plugin as its definition starts
    3: lambda state: dict(state),  # 4: turn options, continuation, set-aside exchanges: their defaults
    4: lambda state: dict(state),  # 5: `app_results`: none
    5: lambda state: dict(state),  # 6: `front_view`: empty
}


@runtime_checkable
class SessionStore(Protocol):
    """Saves and loads sessions by `agent_uuid`; a save is compare-and-set on `AgentState.revision`."""

    def save(self, state: AgentState) -> None:
        """Save the session if nobody saved it since `state` was loaded; then bump `state.revision`.

        The save succeeds only when the stored revision equals `state.revision` (or, for
        `state.revision == 0`, when the session is not stored yet). It writes the row at
        `state.revision + 1` and sets `state.revision` to that, so the same state can be saved again.

        Raises:
            StaleSessionError: another writer saved the session first (or deleted it); the store is
                unchanged and so is `state`.
        """

    def load(self, agent_uuid: str) -> AgentState | None:
        """The saved session with `revision` set to the stored revision, or None.

        Raises:
            CorruptSessionError: the stored row is not a valid session.
            UnsupportedSchemaError: the row was written by a newer notebook_tools.
        """

    def delete(self, agent_uuid: str) -> None:
        """Forget the session (no error if absent)."""

    def list_sessions(self) -> list[str]:
        """The saved agent_uuids, most recently updated first."""

    def append_audit(self, record: AuditRecord) -> None:
        """Append one approval decision to the audit log."""

    def audit_log(self, agent_uuid: str | None = None) -> list[AuditRecord]:
        """The audit log, oldest first, of one session or all."""


def check_revision(store: object, state: AgentState, stored: int | None) -> None:
    """Refuse a save that does not start from the stored revision."""
    if stored != state.revision and not (stored is None and state.revision == 0):
        raise StaleSessionError(state.agent_uuid, repr(store), state.revision, stored)


def upgrade_statements(where: str, version: int, latest: int, steps: dict[int, tuple[str, ...]]) -> list[str]:
    """The statements that bring a store's tables from schema `version` to `latest`, in order.

    Raises:
        UnsupportedSchemaError: the store was written by a newer notebook_tools.
    """
    if version > latest:
        raise UnsupportedSchemaError(
            f"{where} was written by a newer notebook_tools (store schema {version}; this "
            f"version reads up to {latest}). Upgrade notebook_tools to open it."
        )
    return [statement for old in range(version, latest) for statement in steps[old]]


def encode_state(state: AgentState) -> str:
    """The row to write: the state at its next revision."""
    return state.model_copy(update={"revision": state.revision + 1}).model_dump_json()


def decode_state(store: object, agent_uuid: str, text: str, revision: int) -> AgentState:
    """A stored row as a state at this version's schema, carrying the row's revision."""
    try:
        state = AgentState.model_validate_json(text)  # the usual case: one parse
    except pydantic.ValidationError:
        state = None
    if state is None or state.schema_version != SCHEMA_VERSION:
        state = _migrate(store, agent_uuid, text)
    if state.agent_uuid != agent_uuid:
        raise CorruptSessionError(agent_uuid, repr(store), f"the row holds session {state.agent_uuid!r}")
    state.revision = revision  # the column is what compare-and-set checks
    return state


def _migrate(store: object, agent_uuid: str, text: str) -> AgentState:
    """Parse a row of any known schema version and bring it to this one."""
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise CorruptSessionError(agent_uuid, repr(store), f"the row is not JSON ({exc})") from exc
    version = data.get("schema_version") if isinstance(data, dict) else None
    if type(version) is not int or version < 1:
        reason = "the row is not a JSON object with a schema_version"
        raise CorruptSessionError(agent_uuid, repr(store), reason)
    if version > SCHEMA_VERSION:
        raise UnsupportedSchemaError(
            f"The saved session {agent_uuid!r} in {store!r} was written by a newer notebook_tools "
            f"(state schema {version}; this version reads up to {SCHEMA_VERSION}). Upgrade notebook_tools "
            "to load it."
        )
    for old in range(version, SCHEMA_VERSION):
        data = {**_STATE_MIGRATIONS[old](data), "schema_version": old + 1}
    try:
        return AgentState.model_validate(data)
    except pydantic.ValidationError as exc:
        reason = f"the row is not a valid AgentState: {exc}"
        raise CorruptSessionError(agent_uuid, repr(store), reason) from exc


class InMemoryStore(MemoryExtras):
    """A store that lives as long as the process; states are kept as JSON so nothing is shared.

    It keeps leases and a mailbox too (`LeaseStore`, `Mailbox`, in `_memory`), judged by `clock`
    (`time.time`; tests give a fake one to let leases lapse without waiting), and has async twins
    (`asave`, `aload`, ...).
    """

    def __init__(self, *, clock: Callable[[], float] = time.time) -> None:
        self._lock = threading.Lock()
        self._clock = clock
        self._rows: dict[str, tuple[float, int, str]] = {}  # agent_uuid -> (updated_at, revision, state)
        self._audit: list[str] = []
        self._leases: dict[str, tuple[str, float, bool]] = {}  # agent_uuid -> (holder, expires_at, stop)
        self._messages: dict[int, list[Any]] = {}  # the mailbox (`_memory`)
        self._calls: dict[str, tuple[str, str]] = {}

    def __repr__(self) -> str:
        return f"<InMemoryStore at {id(self):#x}>"

    def save(self, state: AgentState) -> None:
        """Save the session if its stored revision is `state.revision`; then bump `state.revision`.

        Raises:
            StaleSessionError: another writer saved the session first; nothing changed.
        """
        text = encode_state(state)
        with self._lock:
            row = self._rows.get(state.agent_uuid)
            check_revision(self, state, None if row is None else row[1])
            self._rows[state.agent_uuid] = (time.time(), state.revision + 1, text)
        state.revision += 1

    def load(self, agent_uuid: str) -> AgentState | None:
        """The saved session with its stored revision, or None."""
        with self._lock:
            row = self._rows.get(agent_uuid)
        return None if row is None else decode_state(self, agent_uuid, row[2], row[1])

    def delete(self, agent_uuid: str) -> None:
        """Forget the session, its lease and its held calls."""
        with self._lock:
            self._rows.pop(agent_uuid, None)
            self._leases.pop(agent_uuid, None)
            for tool_use_id in [i for i, (session, _) in self._calls.items() if session == agent_uuid]:
                del self._calls[tool_use_id]

    def list_sessions(self) -> list[str]:
        """The saved agent_uuids, most recently updated first."""
        with self._lock:
            rows = sorted(self._rows.items(), key=lambda kv: kv[1][0], reverse=True)
        return [agent_uuid for agent_uuid, _ in rows]

    def append_audit(self, record: AuditRecord) -> None:
        """Append one approval decision to the audit log."""
        with self._lock:
            self._audit.append(record.model_dump_json())

    def audit_log(self, agent_uuid: str | None = None) -> list[AuditRecord]:
        """The audit log, oldest first, of one session or all."""
        with self._lock:
            records = [AuditRecord.model_validate_json(r) for r in self._audit]
        return [r for r in records if agent_uuid is None or r.agent_uuid == agent_uuid]
