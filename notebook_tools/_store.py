"""Where sessions are saved: the `SessionStore` protocol, SQLite and in-memory stores.

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

import contextlib
import json
import os
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any, Protocol, runtime_checkable

import pydantic

from ._approvals import AuditRecord
from ._exceptions import CorruptSessionError, StaleSessionError, UnsupportedSchemaError
from ._state import SCHEMA_VERSION, AgentState

__all__ = ["InMemoryStore", "SQLiteStore", "SessionStore"]

STORE_SCHEMA_VERSION = 3  # 2: the audit table; 3: the revision column

_STATE_MIGRATIONS: dict[int, Callable[[dict[str, Any]], dict[str, Any]]] = {
    # version -> the function that turns a state of that version into one of the next
    1: lambda state: {**state, "revision": 0},  # 2: `revision`; the store then sets the row's own
}

_AUDIT_TABLE = (
    "CREATE TABLE audit (id INTEGER PRIMARY KEY AUTOINCREMENT,"
    " agent_uuid TEXT NOT NULL, time REAL NOT NULL, record TEXT NOT NULL)"
)
_CREATE_FILE = (  # a new file, at STORE_SCHEMA_VERSION
    "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    "CREATE TABLE sessions (agent_uuid TEXT PRIMARY KEY, state TEXT NOT NULL,"
    " revision INTEGER NOT NULL DEFAULT 0, updated_at REAL NOT NULL)",
    _AUDIT_TABLE,
)
_FILE_MIGRATIONS: dict[int, tuple[str, ...]] = {
    # version -> the statements that turn a file of that version into one of the next
    1: (_AUDIT_TABLE,),
    2: ("ALTER TABLE sessions ADD COLUMN revision INTEGER NOT NULL DEFAULT 0",),
}

_UPSERT = (
    "INSERT INTO sessions (agent_uuid, state, revision, updated_at) VALUES (?, ?, ?, ?)"
    " ON CONFLICT(agent_uuid) DO UPDATE"
    " SET state = excluded.state, revision = excluded.revision, updated_at = excluded.updated_at"
)


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


def _check_revision(store: object, state: AgentState, stored: int | None) -> None:
    """Refuse a save that does not start from the stored revision."""
    if stored != state.revision and not (stored is None and state.revision == 0):
        raise StaleSessionError(state.agent_uuid, repr(store), state.revision, stored)


def _encode(state: AgentState) -> str:
    """The row to write: the state at its next revision."""
    return state.model_copy(update={"revision": state.revision + 1}).model_dump_json()


def _decode(store: object, agent_uuid: str, text: str, revision: int) -> AgentState:
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


class InMemoryStore:
    """A store that lives as long as the process; states are kept as JSON so nothing is shared."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._rows: dict[str, tuple[float, int, str]] = {}  # agent_uuid -> (updated_at, revision, state)
        self._audit: list[str] = []

    def __repr__(self) -> str:
        return f"<InMemoryStore at {id(self):#x}>"

    def save(self, state: AgentState) -> None:
        """Save the session if its stored revision is `state.revision`; then bump `state.revision`.

        Raises:
            StaleSessionError: another writer saved the session first; nothing changed.
        """
        text = _encode(state)
        with self._lock:
            row = self._rows.get(state.agent_uuid)
            _check_revision(self, state, None if row is None else row[1])
            self._rows[state.agent_uuid] = (time.time(), state.revision + 1, text)
        state.revision += 1

    def load(self, agent_uuid: str) -> AgentState | None:
        """The saved session with its stored revision, or None."""
        with self._lock:
            row = self._rows.get(agent_uuid)
        return None if row is None else _decode(self, agent_uuid, row[2], row[1])

    def delete(self, agent_uuid: str) -> None:
        """Forget the session."""
        with self._lock:
            self._rows.pop(agent_uuid, None)

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


class SQLiteStore:
    """Sessions in a SQLite file: one row per session, WAL journal, schema version recorded.

    Safe to share between threads of one process and between processes: WAL lets
    readers and one writer work at once, and a save checks and writes in one
    `BEGIN IMMEDIATE` transaction, waiting up to 30 s for another writer.
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = os.fspath(path)
        self._lock = threading.Lock()
        self._conn = sqlite3.connect(self.path, check_same_thread=False, timeout=30, isolation_level=None)
        try:
            with self._lock:
                self._conn.execute("PRAGMA journal_mode=WAL")  # not allowed inside a transaction
                self._conn.execute("PRAGMA synchronous=NORMAL")
                with self._write():
                    self._open_file()
        except BaseException:
            self._conn.close()
            raise

    def __repr__(self) -> str:
        return f"SQLiteStore({self.path!r})"

    @contextlib.contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        """One write transaction; rolled back, leaving the file as it was, if anything raises.

        IMMEDIATE takes the write lock before the first read, so what a check reads is still
        true when the write lands. (A deferred transaction would read, then fail at once with
        SQLITE_BUSY when another process wrote in between, instead of waiting its turn.)
        """
        self._conn.execute("BEGIN IMMEDIATE")
        try:
            yield self._conn
            self._conn.execute("COMMIT")
        except BaseException:
            if self._conn.in_transaction:
                self._conn.execute("ROLLBACK")
            raise

    def _open_file(self) -> None:
        """Create a new file, or migrate an older one to STORE_SCHEMA_VERSION (inside `_write`)."""
        conn = self._conn
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        if not tables:
            for statement in _CREATE_FILE:
                conn.execute(statement)
            version = 0  # a new file: created at STORE_SCHEMA_VERSION, recorded below
        else:
            row = None
            if "meta" in tables:
                row = conn.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
            if row is None:
                raise UnsupportedSchemaError(f"{self.path} is not a notebook_tools session store")
            version = int(row[0])
            if version > STORE_SCHEMA_VERSION:
                raise UnsupportedSchemaError(
                    f"{self.path} was written by a newer notebook_tools (store schema {version}; this "
                    f"version reads up to {STORE_SCHEMA_VERSION}). Upgrade notebook_tools to open it."
                )
            for old in range(version, STORE_SCHEMA_VERSION):
                for statement in _FILE_MIGRATIONS[old]:
                    conn.execute(statement)
        if version != STORE_SCHEMA_VERSION:
            conn.execute(
                "INSERT OR REPLACE INTO meta (key, value) VALUES ('schema_version', ?)",
                (str(STORE_SCHEMA_VERSION),),
            )

    @property
    def schema_version(self) -> int:
        """The store schema version recorded in the file."""
        with self._lock:
            row = self._conn.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
        return int(row[0])

    def save(self, state: AgentState) -> None:
        """Save the session if its stored revision is `state.revision`; then bump `state.revision`.

        The check and the write are one `BEGIN IMMEDIATE` transaction, so of two processes
        saving from the same revision exactly one succeeds.

        Raises:
            StaleSessionError: another writer saved the session first; the file is unchanged.
        """
        text = _encode(state)
        with self._lock, self._write() as conn:
            row = conn.execute("SELECT revision FROM sessions WHERE agent_uuid = ?", (state.agent_uuid,))
            stored = row.fetchone()
            _check_revision(self, state, None if stored is None else stored[0])
            conn.execute(_UPSERT, (state.agent_uuid, text, state.revision + 1, time.time()))
        state.revision += 1

    def load(self, agent_uuid: str) -> AgentState | None:
        """The saved session with its stored revision, or None."""
        with self._lock:
            row = self._conn.execute(
                "SELECT state, revision FROM sessions WHERE agent_uuid = ?", (agent_uuid,)
            ).fetchone()
        return None if row is None else _decode(self, agent_uuid, row[0], row[1])

    def delete(self, agent_uuid: str) -> None:
        """Forget the session."""
        with self._lock:
            self._conn.execute("DELETE FROM sessions WHERE agent_uuid = ?", (agent_uuid,))

    def list_sessions(self) -> list[str]:
        """The saved agent_uuids, most recently updated first."""
        with self._lock:
            rows = self._conn.execute("SELECT agent_uuid FROM sessions ORDER BY updated_at DESC").fetchall()
        return [r[0] for r in rows]

    def append_audit(self, record: AuditRecord) -> None:
        """Append one approval decision to the audit log."""
        with self._lock:
            self._conn.execute(
                "INSERT INTO audit (agent_uuid, time, record) VALUES (?, ?, ?)",
                (record.agent_uuid, record.time, record.model_dump_json()),
            )

    def audit_log(self, agent_uuid: str | None = None) -> list[AuditRecord]:
        """The audit log, oldest first, of one session or all."""
        with self._lock:
            if agent_uuid is None:
                rows = self._conn.execute("SELECT record FROM audit ORDER BY id").fetchall()
            else:
                query = "SELECT record FROM audit WHERE agent_uuid = ? ORDER BY id"
                rows = self._conn.execute(query, (agent_uuid,)).fetchall()
        return [AuditRecord.model_validate_json(r[0]) for r in rows]

    def close(self) -> None:
        """Close the database connection."""
        with self._lock:
            self._conn.close()
