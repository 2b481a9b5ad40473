"""Sessions in PostgreSQL (psycopg 3): the same rows and compare-and-set saves as the SQLite store.

For a server that several processes or machines share. A save is one statement
that checks the revision and writes: an `UPDATE ... WHERE revision = %s` (a
concurrent save of the same row waits for the first to commit, then finds the
revision moved on and writes nothing), or for a new session an
`INSERT ... ON CONFLICT DO NOTHING` (of two first inserts, the second finds the
row and writes nothing). The loser gets `StaleSessionError`, exactly as with SQLite.

The tables are created when missing, under an advisory lock so two processes
starting at once do not collide; a database written by a newer notebook_tools is
refused. psycopg and psycopg_pool are optional: `pip install "notebook_tools[server]"`.

Connections come from pools (`_pg_pool`): a sync one, and an async one per event loop for the
twins (`asave`, `aload`, ...) a server awaits. Leases (which worker holds a running session) are
kept by `_pg_leases`, by the server's clock; the mailbox between workers by `_pg_mailbox`, its
waiters woken by LISTEN/NOTIFY (`_pg_listen`). Each operation is written once for sync and async
(`_pg_steps`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .._exceptions import ConfigurationError, StaleSessionError, StoreError, UnsupportedSchemaError
from ..session._state import AgentState
from ..tools._approvals import AuditRecord
from ._pg_leases import LEASES_TABLE, PgLeases
from ._pg_mailbox import MAILBOX_TABLES, PgMailbox
from ._pg_pool import PgConnections
from ._pg_steps import Steps
from ._store import decode_state, encode_state, upgrade_statements

try:
    import psycopg
    import psycopg_pool  # noqa: F401  (the pools in `_pg_pool`: missing, PostgresStore() says so)
    from psycopg.conninfo import conninfo_to_dict
except ImportError as exc:  # the [server] extra is not installed; PostgresStore() says so
    _MISSING: ImportError | None = exc
else:
    _MISSING = None

__all__ = ["STORE_SCHEMA_VERSION", "PostgresStore"]

STORE_SCHEMA_VERSION = 2  # 2: leases, the mailbox

_LOCK_KEY = 0x6E745F73746F7265  # "nt_store": pg_advisory_xact_lock around creating the tables

_VERSION_1 = (
    "CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    "CREATE SEQUENCE IF NOT EXISTS sessions_updates",
    "CREATE TABLE IF NOT EXISTS sessions (agent_uuid TEXT PRIMARY KEY, state TEXT NOT NULL,"
    " revision BIGINT NOT NULL, updated BIGINT NOT NULL DEFAULT nextval('sessions_updates'),"
    " updated_at TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp())",
    "CREATE INDEX IF NOT EXISTS sessions_by_update ON sessions (updated DESC)",
    "CREATE TABLE IF NOT EXISTS audit (id BIGSERIAL PRIMARY KEY, agent_uuid TEXT NOT NULL,"
    " time DOUBLE PRECISION NOT NULL, record TEXT NOT NULL)",
    "CREATE INDEX IF NOT EXISTS audit_by_session ON audit (agent_uuid, id)",
)
_MIGRATIONS: dict[int, tuple[str, ...]] = {  # version -> the statements that bring it to the next
    1: (LEASES_TABLE, *MAILBOX_TABLES),
}
_CREATE = (*_VERSION_1, *(statement for version in sorted(_MIGRATIONS) for statement in _MIGRATIONS[version]))
_VERSION = "SELECT value FROM meta WHERE key = 'schema_version'"

_INSERT = (
    "INSERT INTO sessions (agent_uuid, state, revision) VALUES (%s, %s, 1)"
    " ON CONFLICT (agent_uuid) DO NOTHING"
)
_UPDATE = (
    "UPDATE sessions SET state = %s, revision = revision + 1, updated = nextval('sessions_updates'),"
    " updated_at = clock_timestamp() WHERE agent_uuid = %s AND revision = %s"
)
_READ = "SELECT state, revision FROM sessions WHERE agent_uuid = %s"


class PostgresStore(PgLeases, PgMailbox, PgConnections):
    """Sessions in a PostgreSQL database: one row per session, compare-and-set saves, an audit table.

    Safe to share between threads of a process and between the tasks of event loops (the async
    twins), and any number of processes (on any machines) may use the same database. If the
    server closed a connection (a restart, an administrator), the call that finds it connects
    again once and carries on.

    The tables are `meta`, `sessions`, `audit`, `leases`, `messages` and `calls` in the
    connection's schema; to keep them apart from other tables, give the connection a schema of
    its own, e.g. `?options=-csearch_path%3Dnt`. (The NOTIFY channels, `nt_messages` and
    `nt_replies`, are the database's: two stores in one database wake each other's waiters for
    nothing, harmlessly.)

    Example::

        store = nt.PostgresStore("postgresql://notebooks:secret@db.internal/notebooks")
        agent = nt.Agent(store=store)
    """

    def __init__(
        self, conninfo: str, *, connect_timeout: float | None = None, application_name: str | None = None
    ) -> None:
        """Connect, and create the tables if the database has none yet.

        Args:
            conninfo: A libpq connection string or URL (`postgresql://user:password@host:port/dbname`).
            connect_timeout: Seconds to wait for the server when connecting, and for a pooled
                connection to come free (default: the conninfo's `connect_timeout`, else 10).
            application_name: Shown in `pg_stat_activity` (default: the conninfo's, else
                "notebook_tools").

        Raises:
            ConfigurationError: psycopg is not installed, or `conninfo` does not parse.
            StoreError: the server cannot be reached or refuses the connection.
            UnsupportedSchemaError: the database was written by a newer notebook_tools, or holds
                tables that are not a notebook_tools store.
        """
        if _MISSING is not None:
            raise ConfigurationError(
                'PostgresStore needs psycopg 3 and psycopg_pool: pip install "notebook_tools[server]"'
            ) from _MISSING
        try:
            params = conninfo_to_dict(conninfo)
            timeout = (
                float(params.get("connect_timeout") or 10) if connect_timeout is None else connect_timeout
            )
        except (psycopg.Error, ValueError):  # libpq's message may quote the string, password and all
            raise ConfigurationError(
                "PostgresStore: the connection string is neither a libpq conninfo (host=... dbname=...) "
                "nor a postgresql:// URL"
            ) from None
        self._where = {key: params.get(key) for key in ("host", "port", "dbname")}
        connect_args: dict[str, Any] = {
            "autocommit": True,  # a change of several statements runs in an explicit transaction
            "connect_timeout": max(1, round(timeout)),
            "application_name": application_name or params.get("application_name") or "notebook_tools",
        }
        self._setup(conninfo, connect_args, timeout)
        try:
            self._run_on_new(self._open_database)  # its own connection: a refusal says why
        except BaseException:
            self.close()
            raise

    def __repr__(self) -> str:
        where = ", ".join(f"{key}={value!r}" for key, value in self._where.items() if value)
        return f"PostgresStore({where})"

    def _open_database(self, conn: psycopg.Connection[Any]) -> None:
        """Create the tables, or migrate older ones to STORE_SCHEMA_VERSION, in one transaction."""
        with conn.transaction():
            conn.execute("SELECT pg_advisory_xact_lock(%s)", (_LOCK_KEY,))
            found = conn.execute(
                "SELECT to_regclass('meta') IS NOT NULL, to_regclass('sessions') IS NOT NULL"
            ).fetchone()
            has_meta, has_sessions = found if found else (False, False)
            if not has_meta and not has_sessions:
                for statement in _CREATE:
                    conn.execute(statement)
                version = 0
            else:
                row = None
                if has_meta:
                    row = conn.execute(_VERSION).fetchone()
                if row is None:
                    raise UnsupportedSchemaError(f"{self!r} holds tables that are not a notebook_tools store")
                version = int(row[0])
                for statement in upgrade_statements(repr(self), version, STORE_SCHEMA_VERSION, _MIGRATIONS):
                    conn.execute(statement)
            if version != STORE_SCHEMA_VERSION:
                conn.execute(
                    "INSERT INTO meta (key, value) VALUES ('schema_version', %s)"
                    " ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                    (str(STORE_SCHEMA_VERSION),),
                )

    @property
    def schema_version(self) -> int:
        """The store schema version recorded in the database."""
        row = self._run(lambda conn: conn.execute(_VERSION).fetchone())
        return int(row[0]) if row else 0

    def _refuse_nul(self, agent_uuid: str) -> None:
        if "\x00" in agent_uuid:
            raise StoreError(
                f"{self!r} cannot store agent_uuid {agent_uuid!r}: PostgreSQL text cannot hold NUL"
            )

    # -- the protocol ------------------------------------------------------------------------

    def save(self, state: AgentState) -> None:
        """Save the session if its stored revision is `state.revision`; then bump `state.revision`.

        The check and the write are one statement, so of two processes saving from the same
        revision exactly one succeeds, also when both insert a new session.

        Raises:
            StaleSessionError: another writer saved the session first (or deleted it); nothing
                was written.
            StoreError: the server cannot be reached, or the agent_uuid holds a NUL character.
        """
        self._do(self._saving(state))
        state.revision += 1

    async def asave(self, state: AgentState) -> None:
        """`save`, without blocking the event loop: compare-and-set, then `state.revision` bumped.

        Raises:
            StaleSessionError: another writer saved the session first (or deleted it).
            StoreError: the server cannot be reached, or the agent_uuid holds a NUL character.
        """
        await self._ado(self._saving(state))
        state.revision += 1

    def _saving(self, state: AgentState) -> Callable[[], Steps[None]]:
        """The save of `state`, made once per attempt: a retry knows the first may have committed."""
        self._refuse_nul(state.agent_uuid)
        text = encode_state(state)
        attempts = 0

        def make() -> Steps[None]:
            nonlocal attempts
            attempts += 1
            return _save(repr(self), state, text, retried=attempts > 1)

        return make

    def load(self, agent_uuid: str) -> AgentState | None:
        """The saved session with its stored revision, or None.

        Raises:
            CorruptSessionError: the stored row is not a valid session.
            UnsupportedSchemaError: the row was written by a newer notebook_tools.
            StoreError: the server cannot be reached.
        """
        if "\x00" in agent_uuid:
            return None  # PostgreSQL text cannot hold NUL, so no such session is stored
        row = self._run(lambda conn: conn.execute(_READ, (agent_uuid,)).fetchone())
        return None if row is None else decode_state(self, agent_uuid, row[0], int(row[1]))

    async def aload(self, agent_uuid: str) -> AgentState | None:
        """`load`, without blocking the event loop."""
        if "\x00" in agent_uuid:
            return None
        row = await self._ado(lambda: _read(agent_uuid))
        return None if row is None else decode_state(self, agent_uuid, row[0], int(row[1]))

    def delete(self, agent_uuid: str) -> None:
        """Forget the session, its lease and its held calls (no error if absent)."""
        if "\x00" in agent_uuid:
            return
        self._do(lambda: _delete(agent_uuid), atomic=True)

    def list_sessions(self) -> list[str]:
        """The saved agent_uuids, most recently updated first."""
        rows = self._run(
            lambda conn: conn.execute("SELECT agent_uuid FROM sessions ORDER BY updated DESC").fetchall()
        )
        return [r[0] for r in rows]

    def append_audit(self, record: AuditRecord) -> None:
        """Append one approval decision to the audit log."""
        self._refuse_nul(record.agent_uuid)
        self._run(
            lambda conn: conn.execute(
                "INSERT INTO audit (agent_uuid, time, record) VALUES (%s, %s, %s)",
                (record.agent_uuid, record.time, record.model_dump_json()),
            )
        )

    def audit_log(self, agent_uuid: str | None = None) -> list[AuditRecord]:
        """The audit log, oldest first, of one session or all."""
        if agent_uuid is None:
            rows = self._run(lambda conn: conn.execute("SELECT record FROM audit ORDER BY id").fetchall())
        elif "\x00" in agent_uuid:
            rows = []
        else:
            query = "SELECT record FROM audit WHERE agent_uuid = %s ORDER BY id"
            rows = self._run(lambda conn: conn.execute(query, (agent_uuid,)).fetchall())
        return [AuditRecord.model_validate_json(r[0]) for r in rows]


def _delete(agent_uuid: str) -> Steps[None]:
    yield ("DELETE FROM sessions WHERE agent_uuid = %s", (agent_uuid,))
    yield ("DELETE FROM leases WHERE agent_uuid = %s", (agent_uuid,))
    yield ("DELETE FROM calls WHERE agent_uuid = %s", (agent_uuid,))


def _save(where: str, state: AgentState, text: str, *, retried: bool) -> Steps[None]:
    if state.revision == 0:
        written = yield (_INSERT, (state.agent_uuid, text))
    else:
        written = yield (_UPDATE, (text, state.agent_uuid, state.revision))
    if written.rowcount == 1:
        return
    row = (yield ("SELECT revision, state FROM sessions WHERE agent_uuid = %s", (state.agent_uuid,))).first()
    if retried and row is not None and tuple(row) == (state.revision + 1, text):
        return  # the first attempt's commit landed before the connection dropped
    stored = None if row is None else int(row[0])
    raise StaleSessionError(state.agent_uuid, where, state.revision, stored)


def _read(agent_uuid: str) -> Steps[tuple[Any, ...] | None]:
    return (yield (_READ, (agent_uuid,))).first()
