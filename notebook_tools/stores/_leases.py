"""Leases: which worker holds a running session, for how long, and whether a Stop was asked of it.

A server worker that streams a run holds the session's lease and renews it; if the worker dies
(SIGKILL, a crash, a machine gone) the lease lapses and any worker may take the session over and
recover it. A Stop that reaches another worker is a flag on the lease, which the holder sees at
its next renewal.

A lease is a row of its own (`leases(agent_uuid, holder, expires_at, stop)`), never part of the
session's row: renewing it does not bump the session's revision nor collide with compare-and-set
saves. Expiry is judged by the store's clock (PostgreSQL's for `PostgresStore`, so workers on
machines with skewed clocks agree).

The rules, the same in every store (the in-memory and SQLite stores share `claim_row` and
`renew_row`; PostgreSQL states them in SQL):

- `claim` takes the lease when it is free, lapsed, or already ours; else it changes nothing and
  returns the other holder's live lease. Taking a lapsed or another's lease clears the stop flag;
  claiming our own live lease again keeps it (a Stop asked of the run is not lost).
- `renew` extends our lease, live or lapsed, as long as nobody took it over: "held", or "stop"
  when a Stop was asked; "lost" when another holder took it or it was released.
- `release` deletes our own lease (and so its stop flag); `lease` reads the row, live or lapsed.
- `request_stop` flags a live lease; False when none is live.
"""

from __future__ import annotations

from typing import Literal, NamedTuple, Protocol, runtime_checkable

__all__ = ["Lease", "LeaseRow", "LeaseStore", "Renewal", "claim_row", "renew_row"]

Renewal = Literal["held", "stop", "lost"]
"""What `renew` says: still ours, ours with a Stop asked, or gone to another holder (or released)."""

LeaseRow = tuple[str, float, bool]
"""A stored lease: (holder, expires_at, stop)."""


class Lease(NamedTuple):
    """A session's lease, as the store holds it."""

    holder: str
    """Who holds it: a name the worker chose (host, process, a random part)."""
    expires_at: float
    """When it lapses unless renewed, in seconds since the epoch by the store's clock."""
    live: bool
    """Whether `expires_at` is still in the future by the store's clock (when it was read)."""
    stop: bool
    """Whether a Stop was requested for the run holding it."""


def lease_of(row: LeaseRow, now: float) -> Lease:
    """The stored row as a `Lease`, live or lapsed at `now`."""
    holder, expires_at, stop = row
    return Lease(holder, expires_at, expires_at > now, bool(stop))


def claim_row(row: LeaseRow | None, holder: str, ttl: float, now: float) -> tuple[Lease | None, LeaseRow]:
    """Decide a claim: (the other holder's live lease, the row unchanged) or (None, the row to write)."""
    if row is not None and row[0] != holder and row[1] > now:
        return lease_of(row, now), row
    keep_stop = row is not None and row[0] == holder and row[1] > now and bool(row[2])
    return None, (holder, now + ttl, keep_stop)


def renew_row(row: LeaseRow | None, holder: str, ttl: float, now: float) -> tuple[Renewal, LeaseRow | None]:
    """Decide a renewal: what `renew` says and the row to write (None: write nothing)."""
    if row is None or row[0] != holder:
        return "lost", None
    stop = bool(row[2])
    return ("stop" if stop else "held"), (holder, now + ttl, stop)


@runtime_checkable
class LeaseStore(Protocol):
    """A store that keeps leases (all three of notebook_tools' stores do); optional for others.

    A server checks for it with `isinstance(store, LeaseStore)` (or `hasattr`); a store without
    leases still serves one run per session, the compare-and-set on revisions refusing a second
    writer. Every method has an async twin (`aclaim`, `arenew`, ...) with the same meaning.
    """

    def claim(self, agent_uuid: str, holder: str, ttl: float) -> Lease | None:
        """Take the session's lease for `ttl` seconds if nobody holds a live one (or `holder` does).

        Returns:
            None when taken; else the live lease of the other holder (nothing changed).
        """

    def renew(self, agent_uuid: str, holder: str, ttl: float) -> Renewal:
        """Extend our lease by `ttl` seconds from now.

        Returns:
            "held"; "stop" when a Stop was requested (the lease is still extended); "lost" when
            another holder took it over (after it lapsed) or it was released (nothing changed).
        """

    def release(self, agent_uuid: str, holder: str) -> None:
        """Give our lease back (another holder's is left alone); its stop flag goes with it."""

    def lease(self, agent_uuid: str) -> Lease | None:
        """The session's lease, live or lapsed, or None when nobody claimed it (or it was released)."""

    def request_stop(self, agent_uuid: str) -> bool:
        """Flag the live lease so its holder stops the run; False when no lease is live."""

    async def aclaim(self, agent_uuid: str, holder: str, ttl: float) -> Lease | None:
        """`claim`, without blocking the event loop."""

    async def arenew(self, agent_uuid: str, holder: str, ttl: float) -> Renewal:
        """`renew`, without blocking the event loop."""

    async def arelease(self, agent_uuid: str, holder: str) -> None:
        """`release`, without blocking the event loop."""

    async def alease(self, agent_uuid: str) -> Lease | None:
        """`lease`, without blocking the event loop."""

    async def arequest_stop(self, agent_uuid: str) -> bool:
        """`request_stop`, without blocking the event loop."""
