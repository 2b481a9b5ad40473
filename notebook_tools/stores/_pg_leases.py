"""The PostgreSQL store's leases: the `leases` table, each change one statement, the server's clock.

Kept apart from `_postgres` so each module stays short; `PostgresStore` mixes it in. Expiry is
judged by the database server's clock (`clock_timestamp()`), never a worker's, so workers on
machines whose clocks disagree still agree on whether a lease lapsed.

A claim is one `INSERT ... ON CONFLICT DO UPDATE ... WHERE` the old lease lapsed or is ours: of
two workers claiming a lapsed lease at once, the second waits for the first's row lock, finds
the lease live and someone else's, and changes nothing. It then reads the winner's lease in a
statement of its own (which sees the first's commit). The rules are `_leases`'.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from .._exceptions import StoreError
from ._leases import Lease, Renewal
from ._pg_steps import Steps

__all__ = ["LEASES_TABLE", "PgLeases"]

_T = TypeVar("_T")

LEASES_TABLE = (
    "CREATE TABLE IF NOT EXISTS leases (agent_uuid TEXT PRIMARY KEY, holder TEXT NOT NULL,"
    " expires_at DOUBLE PRECISION NOT NULL, stop BOOLEAN NOT NULL DEFAULT false)"
)
_NOW = "WITH now AS MATERIALIZED (SELECT extract(epoch FROM clock_timestamp())::float8 AS t) "
_CLAIM = (
    _NOW + "INSERT INTO leases AS l (agent_uuid, holder, expires_at, stop)"
    " SELECT %(agent_uuid)s, %(holder)s, now.t + %(ttl)s, false FROM now"
    " ON CONFLICT (agent_uuid) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at,"
    " stop = l.stop AND l.holder = excluded.holder AND l.expires_at > (SELECT t FROM now)"
    " WHERE l.holder = excluded.holder OR l.expires_at <= (SELECT t FROM now)"
    " RETURNING l.holder"
)
_READ = (
    "SELECT holder, expires_at, stop, expires_at > extract(epoch FROM clock_timestamp())"
    " FROM leases WHERE agent_uuid = %s"
)
_RENEW = (
    _NOW + "UPDATE leases SET expires_at = (SELECT t FROM now) + %s"
    " WHERE agent_uuid = %s AND holder = %s RETURNING stop"
)
_STOP = (
    "UPDATE leases SET stop = true"
    " WHERE agent_uuid = %s AND expires_at > extract(epoch FROM clock_timestamp())"
)
_CLAIM_TRIES = 20  # a claim that lost, then found the lease gone, tries again (it never loops in practice)


def _claim(agent_uuid: str, holder: str, ttl: float) -> Steps[Lease | None]:
    params = {"agent_uuid": agent_uuid, "holder": holder, "ttl": float(ttl)}
    for _ in range(_CLAIM_TRIES):
        if (yield (_CLAIM, params)).rows:
            return None
        found = (yield (_READ, (agent_uuid,))).first()
        if found is not None and found[3]:
            return Lease(found[0], float(found[1]), True, bool(found[2]))
        # the winner's lease lapsed or was released between the two statements: claim again
    raise StoreError(f"the lease of session {agent_uuid!r} changed hands {_CLAIM_TRIES} times during a claim")


def _renew(agent_uuid: str, holder: str, ttl: float) -> Steps[Renewal]:
    row = (yield (_RENEW, (float(ttl), agent_uuid, holder))).first()
    return "lost" if row is None else "stop" if row[0] else "held"


def _release(agent_uuid: str, holder: str) -> Steps[None]:
    yield ("DELETE FROM leases WHERE agent_uuid = %s AND holder = %s", (agent_uuid, holder))


def _lease(agent_uuid: str) -> Steps[Lease | None]:
    found = (yield (_READ, (agent_uuid,))).first()
    return None if found is None else Lease(found[0], float(found[1]), bool(found[3]), bool(found[2]))


def _request_stop(agent_uuid: str) -> Steps[bool]:
    return (yield (_STOP, (agent_uuid,))).rowcount == 1


def _nothing(value: _T) -> Steps[_T]:
    """No statement: PostgreSQL text cannot hold NUL, so no such lease is stored."""
    return value
    yield  # a generator (unreachable)


class PgLeases:
    """Leases in the `leases` table: `claim`, `renew`, `release`, `lease`, `request_stop`, and twins."""

    if TYPE_CHECKING:

        def _do(self, make: Callable[[], Steps[_T]], *, atomic: bool = False) -> _T: ...

        async def _ado(self, make: Callable[[], Steps[_T]], *, atomic: bool = False) -> _T: ...

    def claim(self, agent_uuid: str, holder: str, ttl: float) -> Lease | None:
        """Take the session's lease for `ttl` seconds if nobody holds a live one (or `holder` does).

        Returns:
            None when taken; else the live lease of the other holder (nothing changed).

        Raises:
            StoreError: the server cannot be reached, or a name holds a NUL character.
        """
        return self._do(lambda: _claim(agent_uuid, holder, ttl))

    def renew(self, agent_uuid: str, holder: str, ttl: float) -> Renewal:
        """Extend our lease: "held", "stop" (a Stop was requested; still extended) or "lost"."""
        return self._do(lambda: _renew(agent_uuid, holder, ttl))

    def release(self, agent_uuid: str, holder: str) -> None:
        """Give our lease back (another holder's is left alone)."""
        self._do(lambda: _nothing(None) if _nul(agent_uuid, holder) else _release(agent_uuid, holder))

    def lease(self, agent_uuid: str) -> Lease | None:
        """The session's lease, live or lapsed (by the database server's clock), or None."""
        return self._do(lambda: _nothing(None) if _nul(agent_uuid) else _lease(agent_uuid))

    def request_stop(self, agent_uuid: str) -> bool:
        """Flag the live lease so its holder stops the run; False when none is live."""
        return self._do(lambda: _nothing(False) if _nul(agent_uuid) else _request_stop(agent_uuid))

    async def aclaim(self, agent_uuid: str, holder: str, ttl: float) -> Lease | None:
        """`claim`, without blocking the event loop."""
        return await self._ado(lambda: _claim(agent_uuid, holder, ttl))

    async def arenew(self, agent_uuid: str, holder: str, ttl: float) -> Renewal:
        """`renew`, without blocking the event loop."""
        return await self._ado(lambda: _renew(agent_uuid, holder, ttl))

    async def arelease(self, agent_uuid: str, holder: str) -> None:
        """`release`, without blocking the event loop."""
        await self._ado(lambda: _nothing(None) if _nul(agent_uuid, holder) else _release(agent_uuid, holder))

    async def alease(self, agent_uuid: str) -> Lease | None:
        """`lease`, without blocking the event loop."""
        return await self._ado(lambda: _nothing(None) if _nul(agent_uuid) else _lease(agent_uuid))

    async def arequest_stop(self, agent_uuid: str) -> bool:
        """`request_stop`, without blocking the event loop."""
        return await self._ado(lambda: _nothing(False) if _nul(agent_uuid) else _request_stop(agent_uuid))


def _nul(*names: Any) -> bool:
    return any("\x00" in name for name in names)
