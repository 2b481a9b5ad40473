"""PostgreSQL operations written once, run on psycopg's sync or async connections.

Every store method has a sync form (for agents in notebooks and scripts) and an async twin (for
the server's event loop), and they must mean the same. So an operation is a generator: it yields
the statements to run, `(sql, params)`, is sent each one's `Result` (rowcount and rows), and
returns its value. `drive` runs it on a `psycopg.Connection`, `adrive` on a
`psycopg.AsyncConnection`, in one transaction when `atomic` (else each statement commits alone,
which spares a single statement two round trips).
"""

from __future__ import annotations

import contextlib
from collections.abc import Generator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, LiteralString, NamedTuple, TypeVar

if TYPE_CHECKING:  # psycopg is optional: `_postgres` says so when it is missing
    import psycopg

__all__ = ["Query", "Result", "Steps", "adrive", "drive"]

_T = TypeVar("_T")

Query = tuple[LiteralString, Sequence[Any] | Mapping[str, Any]]
"""One statement and its parameters."""


class Result(NamedTuple):
    """What a statement did: how many rows it touched, and the rows it returned."""

    rowcount: int
    rows: list[tuple[Any, ...]]

    def first(self) -> tuple[Any, ...] | None:
        """The first row returned, or None."""
        return self.rows[0] if self.rows else None


Steps = Generator[Query, Result, _T]
"""An operation: yields statements, is sent their results, returns its value."""


def drive(conn: psycopg.Connection[Any], steps: Steps[_T], *, atomic: bool) -> _T:
    """Run `steps` on a sync connection; its return value."""
    with conn.transaction() if atomic else contextlib.nullcontext():
        try:
            query = next(steps)
            while True:
                cursor = conn.execute(*query)
                rows = cursor.fetchall() if cursor.description is not None else []
                query = steps.send(Result(cursor.rowcount, rows))
        except StopIteration as done:
            value: _T = done.value
    return value


async def adrive(conn: psycopg.AsyncConnection[Any], steps: Steps[_T], *, atomic: bool) -> _T:
    """Run `steps` on an async connection; its return value."""
    async with conn.transaction() if atomic else contextlib.nullcontext():
        try:
            query = next(steps)
            while True:
                cursor = await conn.execute(*query)
                rows = await cursor.fetchall() if cursor.description is not None else []
                query = steps.send(Result(cursor.rowcount, rows))
        except StopIteration as done:
            value: _T = done.value
    return value
