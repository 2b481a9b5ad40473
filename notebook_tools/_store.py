"""Where sessions are saved: the `SessionStore` protocol, SQLite and in-memory stores.

The agent saves its `AgentState` at every pause and every turn end, so a
restarted kernel (or another process) resumes a session by its `agent_uuid`.
Stores are synchronous: a save is one small row write, cheaper than a thread hop.
"""

from __future__ import annotations

import os
import sqlite3
import threading
import time
from typing import Protocol, runtime_checkable

from ._approvals import AuditRecord
from ._state import AgentState

__all__ = ["InMemoryStore", "SQLiteStore", "SessionStore"]

STORE_SCHEMA_VERSION = 2  # 2: the audit table


@runtime_checkable
class SessionStore(Protocol):
    """Saves and loads sessions by `agent_uuid`."""

    def save(self, state: AgentState) -> None:
        """Insert or replace the session."""

    def load(self, agent_uuid: str) -> AgentState | None:
        """The saved session, or None."""

    def delete(self, agent_uuid: str) -> None:
        """Forget the session (no error if absent)."""

    def list_sessions(self) -> list[str]:
        """The saved agent_uuids, most recently updated first."""

    def append_audit(self, record: AuditRecord) -> None:
        """Append one approval decision to the audit log."""

    def audit_log(self, agent_uuid: str | None = None) -> list[AuditRecord]:
        """The audit log, oldest first, of one session or all."""


class InMemoryStore:
    """A store that lives as long as the process; states are kept as JSON so nothing is shared."""

    def __init__(self) -> None:
        self._rows: dict[str, tuple[float, str]] = {}
        self._audit: list[str] = []

    def save(self, state: AgentState) -> None:
        """Insert or replace the session."""
        self._rows[state.agent_uuid] = (time.time(), state.model_dump_json())

    def load(self, agent_uuid: str) -> AgentState | None:
        """The saved session, or None."""
        row = self._rows.get(agent_uuid)
        return None if row is None else AgentState.model_validate_json(row[1])

    def delete(self, agent_uuid: str) -> None:
        """Forget the session."""
        self._rows.pop(agent_uuid, None)

    def list_sessions(self) -> list[str]:
        """The saved agent_uuids, most recently updated first."""
        return [k for k, _ in sorted(self._rows.items(), key=lambda kv: kv[1][0], reverse=True)]

    def append_audit(self, record: AuditRecord) -> None:
        """Append one approval decision to the audit log."""
        self._audit.append(record.model_dump_json())

    def audit_log(self, agent_uuid: str | None = None) -> list[AuditRecord]:
        """The audit log, oldest first, of one session or all."""
        records = [AuditRecord.model_validate_json(r) for r in self._audit]
        return [r for r in records if agent_uuid is None or r.agent_uuid == agent_uuid]


class SQLiteStore:
    """Sessions in a SQLite file: one row per session, WAL journal, schema version recorded.

    Safe to share between threads of one process and between processes (WAL lets
    readers and one writer work at once).
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = os.fspath(path)
        self._lock = threading.Lock()
        self._conn = sqlite3.connect(self.path, check_same_thread=False, timeout=30, isolation_level=None)
        with self._lock:
            self._conn.execute("PRAGMA journal_mode=WAL")
            self._conn.execute("PRAGMA synchronous=NORMAL")
            self._conn.execute("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
            self._conn.execute(
                "CREATE TABLE IF NOT EXISTS sessions ("
                " agent_uuid TEXT PRIMARY KEY, state TEXT NOT NULL, updated_at REAL NOT NULL)"
            )
            self._conn.execute(
                "CREATE TABLE IF NOT EXISTS audit (id INTEGER PRIMARY KEY AUTOINCREMENT,"
                " agent_uuid TEXT NOT NULL, time REAL NOT NULL, record TEXT NOT NULL)"
            )
            row = self._conn.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
            if row is None or int(row[0]) < STORE_SCHEMA_VERSION:  # new, or upgraded by the line above
                self._conn.execute(
                    "INSERT OR REPLACE INTO meta (key, value) VALUES ('schema_version', ?)",
                    (str(STORE_SCHEMA_VERSION),),
                )
            elif int(row[0]) > STORE_SCHEMA_VERSION:
                raise RuntimeError(
                    f"{self.path} was written by a newer notebook_tools (store schema {row[0]}, "
                    f"this version reads {STORE_SCHEMA_VERSION})"
                )

    def __repr__(self) -> str:
        return f"SQLiteStore({self.path!r})"

    @property
    def schema_version(self) -> int:
        """The store schema version recorded in the file."""
        with self._lock:
            row = self._conn.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
        return int(row[0])

    def save(self, state: AgentState) -> None:
        """Insert or replace the session."""
        with self._lock:
            self._conn.execute(
                "INSERT INTO sessions (agent_uuid, state, updated_at) VALUES (?, ?, ?) "
                "ON CONFLICT(agent_uuid) DO UPDATE"
                " SET state = excluded.state, updated_at = excluded.updated_at",
                (state.agent_uuid, state.model_dump_json(), time.time()),
            )

    def load(self, agent_uuid: str) -> AgentState | None:
        """The saved session, or None."""
        with self._lock:
            row = self._conn.execute(
                "SELECT state FROM sessions WHERE agent_uuid = ?", (agent_uuid,)
            ).fetchone()
        return None if row is None else AgentState.model_validate_json(row[0])

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
