"""The SQLite store's mailbox: `messages` and `calls` tables shared by the processes on one file.

Kept apart from `_sqlite` so each module stays short; `SQLiteStore` mixes it in. A send prunes
old messages and inserts in one `BEGIN IMMEDIATE` transaction; since SQLite has one writer at a
time and AUTOINCREMENT never reuses an id, ids grow in the order messages were committed, which
is what lets a reader ask for "everything after the last id I saw". Waiters poll (`_twins`).
"""

from __future__ import annotations

import contextlib
import sqlite3
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING

from ._mailbox import MESSAGE_LIFETIME, Message

__all__ = ["MAILBOX_TABLES", "SQLiteMailbox"]

MAILBOX_TABLES = (
    "CREATE TABLE messages (id INTEGER PRIMARY KEY AUTOINCREMENT, target TEXT NOT NULL, kind TEXT NOT NULL,"
    " body TEXT NOT NULL, reply TEXT, sent_at REAL NOT NULL)",
    "CREATE INDEX messages_by_target ON messages (target, id)",
    "CREATE INDEX messages_by_age ON messages (sent_at)",
    "CREATE TABLE calls (tool_use_id TEXT PRIMARY KEY, agent_uuid TEXT NOT NULL, holder TEXT NOT NULL)",
    "CREATE INDEX calls_by_session ON calls (agent_uuid)",
)


class SQLiteMailbox:
    """Messages between workers and who holds which frontend call, in the store's file."""

    if TYPE_CHECKING:
        _lock: threading.Lock
        _conn: sqlite3.Connection
        _clock: Callable[[], float]

        def _write(self) -> contextlib.AbstractContextManager[sqlite3.Connection]: ...

    def send(self, target: str, kind: str, body: str) -> int:
        """Send a message to the worker named `target`; its id (messages older than 10 minutes go)."""
        with self._lock, self._write() as conn:
            now = self._clock()
            conn.execute("DELETE FROM messages WHERE sent_at < ?", (now - MESSAGE_LIFETIME,))
            cursor = conn.execute(
                "INSERT INTO messages (target, kind, body, sent_at) VALUES (?, ?, ?, ?)",
                (target, kind, body, now),
            )
        assert cursor.lastrowid is not None  # an INSERT into a rowid table
        return cursor.lastrowid

    def receive(self, target: str, after: int = 0) -> list[Message]:
        """The messages to `target` with an id above `after`, oldest first."""
        with self._lock:
            rows = self._conn.execute(
                "SELECT id, kind, body FROM messages WHERE target = ? AND id > ? ORDER BY id", (target, after)
            ).fetchall()
        return [(int(r[0]), str(r[1]), str(r[2])) for r in rows]

    def reply(self, message_id: int, body: str) -> None:
        """Answer a message (nothing happens if it was pruned)."""
        with self._lock:
            self._conn.execute("UPDATE messages SET reply = ? WHERE id = ?", (body, message_id))

    def reply_of(self, message_id: int) -> str | None:
        """The answer to a message, or None."""
        with self._lock:
            row = self._conn.execute("SELECT reply FROM messages WHERE id = ?", (message_id,)).fetchone()
        return None if row is None or row[0] is None else str(row[0])

    def hold_calls(self, ids: list[str], agent_uuid: str, holder: str) -> None:
        """Record that these open frontend calls are held by `holder`."""
        with self._lock, self._write() as conn:
            conn.executemany(
                "INSERT OR REPLACE INTO calls (tool_use_id, agent_uuid, holder) VALUES (?, ?, ?)",
                [(tool_use_id, agent_uuid, holder) for tool_use_id in ids],
            )

    def call_holder(self, tool_use_id: str) -> tuple[str, str] | None:
        """(agent_uuid, holder) of an open frontend call, or None."""
        with self._lock:
            row = self._conn.execute(
                "SELECT agent_uuid, holder FROM calls WHERE tool_use_id = ?", (tool_use_id,)
            ).fetchone()
        return None if row is None else (str(row[0]), str(row[1]))

    def drop_calls(self, ids: list[str]) -> None:
        """Forget these calls."""
        with self._lock, self._write() as conn:
            conn.executemany(
                "DELETE FROM calls WHERE tool_use_id = ?", [(tool_use_id,) for tool_use_id in ids]
            )
