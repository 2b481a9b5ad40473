"""The SQLite store's leases: a `leases` table, each change one `BEGIN IMMEDIATE` transaction.

Kept apart from `_sqlite` so each module stays short; `SQLiteStore` mixes it in. A claim reads
the lease and writes it under SQLite's write lock, so of two processes claiming the same lapsed
lease exactly one takes it. Expiry is judged by the store's clock (`time.time`, or the `clock`
a test gave the store). The rules are `_leases`'.
"""

from __future__ import annotations

import contextlib
import sqlite3
import threading
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

from ._leases import Lease, LeaseRow, Renewal, claim_row, lease_of, renew_row

__all__ = ["LEASES_TABLE", "SQLiteLeases"]

LEASES_TABLE = (
    "CREATE TABLE leases (agent_uuid TEXT PRIMARY KEY, holder TEXT NOT NULL,"
    " expires_at REAL NOT NULL, stop INTEGER NOT NULL DEFAULT 0)"
)
_READ = "SELECT holder, expires_at, stop FROM leases WHERE agent_uuid = ?"
_WRITE = "INSERT OR REPLACE INTO leases (agent_uuid, holder, expires_at, stop) VALUES (?, ?, ?, ?)"


class SQLiteLeases:
    """Leases in the `leases` table: `claim`, `renew`, `release`, `lease`, `request_stop`."""

    if TYPE_CHECKING:
        _lock: threading.Lock
        _conn: sqlite3.Connection
        _clock: Callable[[], float]

        def _write(self) -> contextlib.AbstractContextManager[sqlite3.Connection]: ...

    @staticmethod
    def _row(conn: sqlite3.Connection, agent_uuid: str) -> LeaseRow | None:
        found = conn.execute(_READ, (agent_uuid,)).fetchone()
        return None if found is None else (str(found[0]), float(found[1]), bool(found[2]))

    @contextlib.contextmanager
    def _leasing(self) -> Iterator[sqlite3.Connection]:
        with self._lock, self._write() as conn:
            yield conn

    def claim(self, agent_uuid: str, holder: str, ttl: float) -> Lease | None:
        """Take the session's lease for `ttl` seconds if nobody holds a live one (or `holder` does).

        Returns:
            None when taken; else the live lease of the other holder (nothing changed).
        """
        with self._leasing() as conn:
            other, row = claim_row(self._row(conn, agent_uuid), holder, ttl, self._clock())
            if other is None:
                conn.execute(_WRITE, (agent_uuid, *row))
        return other

    def renew(self, agent_uuid: str, holder: str, ttl: float) -> Renewal:
        """Extend our lease: "held", "stop" (a Stop was requested; still extended) or "lost"."""
        with self._leasing() as conn:
            said, row = renew_row(self._row(conn, agent_uuid), holder, ttl, self._clock())
            if row is not None:
                conn.execute(_WRITE, (agent_uuid, *row))
        return said

    def release(self, agent_uuid: str, holder: str) -> None:
        """Give our lease back (another holder's is left alone)."""
        with self._lock:
            self._conn.execute("DELETE FROM leases WHERE agent_uuid = ? AND holder = ?", (agent_uuid, holder))

    def lease(self, agent_uuid: str) -> Lease | None:
        """The session's lease, live or lapsed, or None."""
        with self._lock:
            row = self._row(self._conn, agent_uuid)
        return None if row is None else lease_of(row, self._clock())

    def request_stop(self, agent_uuid: str) -> bool:
        """Flag the live lease so its holder stops the run; False when none is live."""
        with self._lock:
            cursor = self._conn.execute(
                "UPDATE leases SET stop = 1 WHERE agent_uuid = ? AND expires_at > ?",
                (agent_uuid, self._clock()),
            )
        return cursor.rowcount == 1
