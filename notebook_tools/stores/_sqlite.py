"""Sessions in a SQLite file: one row per session, WAL, compare-and-set saves, migrations.

Several processes on one machine may share a file: a save takes the write lock
(`BEGIN IMMEDIATE`) before it reads the stored revision, so of two writers of one
pause exactly one wins. The file's own schema version is recorded and older files
are migrated in one transaction when opened; a newer file is refused.

Leases (which worker holds a running session) live in a table of their own, kept by
`_sqlite_leases`; the mailbox between workers by `_sqlite_mailbox`. The async twins (`asave`,
`aclaim`, ...) run the sync methods in a worker thread (`_twins`), so a server's event loop never
waits for the write lock.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator

from .._exceptions import UnsupportedSchemaError
from ..session._state import AgentState
from ..tools._approvals import AuditRecord
from ._sqlite_leases import LEASES_TABLE, SQLiteLeases
from ._sqlite_mailbox import MAILBOX_TABLES, SQLiteMailbox
from ._store import check_revision, decode_state, encode_state, upgrade_statements
from ._twins import OffloadedTwins

__all__ = ["STORE_SCHEMA_VERSION", "SQLiteStore"]

STORE_SCHEMA_VERSION = 4  # 2: the audit table; 3: the revision column; 4: leases, the mailbox


_AUDIT_TABLE = (
    "CREATE TABLE audit (id INTEGER PRIMARY KEY AUTOINCREMENT,"
    " agent_uuid TEXT NOT NULL, time REAL NOT NULL, record TEXT NOT NULL)"
)
_CREATE_FILE = (  # a new file, at STORE_SCHEMA_VERSION
    "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    "CREATE TABLE sessions (agent_uuid TEXT PRIMARY KEY, state TEXT NOT NULL,"
    " revision INTEGER NOT NULL DEFAULT 0, updated_at REAL NOT NULL)",
    _AUDIT_TABLE,
    LEASES_TABLE,
    *MAILBOX_TABLES,
)
_FILE_MIGRATIONS: dict[int, tuple[str, ...]] = {
    # version -> the statements that turn a file of that version into one of the next
    1: (_AUDIT_TABLE,),
    2: ("ALTER TABLE sessions ADD COLUMN revision INTEGER NOT NULL DEFAULT 0",),
    3: (LEASES_TABLE, *MAILBOX_TABLES),
}

_UPSERT = (
    "INSERT INTO sessions (agent_uuid, state, revision, updated_at) VALUES (?, ?, ?, ?)"
    " ON CONFLICT(agent_uuid) DO UPDATE"
    " SET state = excluded.state, revision = excluded.revision, updated_at = excluded.updated_at"
)


class SQLiteStore(SQLiteLeases, SQLiteMailbox, OffloadedTwins):
    """Sessions in a SQLite file: one row per session, WAL journal, schema version recorded.

    Safe to share between threads of one process and between processes: WAL lets
    readers and one writer work at once, and a save checks and writes in one
    `BEGIN IMMEDIATE` transaction, waiting up to 30 s for another writer.

    Leases are judged by `clock` (`time.time`; tests give a fake one to let leases lapse without
    waiting).
    """

    def __init__(self, path: str | os.PathLike[str], *, clock: Callable[[], float] = time.time) -> None:
        self.path = os.fspath(path)
        self._clock = clock
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
            for statement in upgrade_statements(self.path, version, STORE_SCHEMA_VERSION, _FILE_MIGRATIONS):
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
        text = encode_state(state)
        with self._lock, self._write() as conn:
            row = conn.execute("SELECT revision FROM sessions WHERE agent_uuid = ?", (state.agent_uuid,))
            stored = row.fetchone()
            check_revision(self, state, None if stored is None else stored[0])
            conn.execute(_UPSERT, (state.agent_uuid, text, state.revision + 1, time.time()))
        state.revision += 1

    def load(self, agent_uuid: str) -> AgentState | None:
        """The saved session with its stored revision, or None."""
        with self._lock:
            row = self._conn.execute(
                "SELECT state, revision FROM sessions WHERE agent_uuid = ?", (agent_uuid,)
            ).fetchone()
        return None if row is None else decode_state(self, agent_uuid, row[0], row[1])

    def delete(self, agent_uuid: str) -> None:
        """Forget the session, its lease and its held calls."""
        with self._lock, self._write() as conn:
            for table in ("sessions", "leases", "calls"):
                conn.execute(f"DELETE FROM {table} WHERE agent_uuid = ?", (agent_uuid,))

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
