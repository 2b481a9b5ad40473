"""The PostgreSQL store's connections: a pool for sync calls, one async pool per event loop.

A server runs several requests at once: one connection under a lock would queue them all, and
a save on the event loop would stall it. So sync calls take a connection from a `psycopg_pool`
`ConnectionPool` (threads share it), and async calls from an `AsyncConnectionPool` bound to
the running event loop (made on first use in that loop; another loop gets its own). Both open
lazily, hold at least one connection and at most `MAX_CONNECTIONS`.

If the server closed a connection (a restart, an administrator, a failover), the call that
finds it broken runs once more on a new connection of its own, and the pool drops its other
dead connections (`check`); when no pooled connection comes free in time, the call likewise
runs on a new connection, or fails saying why the server cannot be reached.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from .._exceptions import StoreError
from ._pg_listen import Listener
from ._pg_steps import Steps, adrive, drive

with contextlib.suppress(ImportError):  # optional: PostgresStore() says so before anything here runs
    import psycopg
    from psycopg_pool import AsyncConnectionPool, ConnectionPool

__all__ = ["MAX_CONNECTIONS", "LoopResources", "PgConnections"]

_T = TypeVar("_T")
MAX_CONNECTIONS = 4
"""Connections a pool holds at most (each process has a sync pool and one async pool per loop)."""


class LoopResources:
    """What a store holds in one event loop: its async pool, and its LISTEN connection once waited on.

    A guard task closes them when the loop cancels its tasks (as `asyncio.run` does on the way
    out) and nobody called `aclose`: an open pool's worker, cancelled in the middle of a job,
    would swallow the cancellation and keep `asyncio.run` waiting for it forever.
    """

    def __init__(
        self, pool: AsyncConnectionPool[psycopg.AsyncConnection[Any]], forget: Callable[[LoopResources], None]
    ) -> None:
        self.pool = pool
        self.opened = False
        self.listener: Listener | None = None  # made by the first wait (`_pg_listen`)
        self._closed = False
        self._forget = forget
        self._guard = asyncio.get_running_loop().create_task(self._close_with_the_loop())

    async def _close_with_the_loop(self) -> None:
        try:
            await asyncio.get_running_loop().create_future()  # never done: only cancelled
        finally:
            self._forget(self)
            await self._close()

    async def _close(self) -> None:
        if self._closed:
            return
        self._closed = True
        if self.listener is not None:
            await self.listener.aclose()
        await self.pool.close()

    async def aclose(self) -> None:
        """Stop the listener and close the pool (in the loop they belong to)."""
        await self._close()
        self._guard.cancel()
        await asyncio.gather(self._guard, return_exceptions=True)


class PgConnections:
    """Connections for `PostgresStore`: `_run`/`_arun` an operation with one retry, `close`, `aclose`."""

    def _setup(self, conninfo: str, connect_args: dict[str, Any], timeout: float) -> None:
        self._conninfo = conninfo
        self._connect_args = connect_args
        self._timeout = timeout
        self._lock = threading.Lock()
        self._pool: ConnectionPool[psycopg.Connection[Any]] | None = None
        self._loops: dict[asyncio.AbstractEventLoop, LoopResources] = {}
        self._closing: set[asyncio.Task[None]] = set()

    def _pool_args(self) -> dict[str, Any]:
        return {
            "kwargs": self._connect_args,
            "min_size": 1,
            "max_size": MAX_CONNECTIONS,
            "open": False,
            "timeout": self._timeout,
            "name": "notebook_tools",
            "num_workers": 2,
        }

    def _failed(self, exc: psycopg.Error) -> StoreError:
        return StoreError(f"{self!r}: {exc}".rstrip())

    # -- sync ----------------------------------------------------------------------------------

    def _connect(self) -> psycopg.Connection[Any]:
        try:
            return psycopg.connect(self._conninfo, **self._connect_args)
        except psycopg.Error as exc:
            raise StoreError(f"{self!r} cannot connect to the server: {exc}".rstrip()) from None

    def _sync_pool(self) -> ConnectionPool[psycopg.Connection[Any]]:
        with self._lock:
            if self._pool is None:
                self._pool = ConnectionPool(self._conninfo, **self._pool_args())
                self._pool.open()
            return self._pool

    def _run(self, operation: Callable[[psycopg.Connection[Any]], _T]) -> _T:
        """Run `operation` on a pooled connection; once more on a new one if the server closed it."""
        pool = self._sync_pool()
        try:
            conn: psycopg.Connection[Any] | None = pool.getconn()
        except psycopg.OperationalError:  # none came free in time (or the pool was closed meanwhile)
            conn = None
        if conn is not None:
            try:
                return operation(conn)
            except psycopg.OperationalError as exc:
                if not (conn.broken or conn.closed):
                    raise self._failed(exc) from exc
            except psycopg.Error as exc:
                raise self._failed(exc) from exc
            finally:
                pool.putconn(conn)
            with contextlib.suppress(psycopg.Error):
                pool.check()  # the server went away: drop the pool's other dead connections too
        return self._run_on_new(operation)

    def _run_on_new(self, operation: Callable[[psycopg.Connection[Any]], _T]) -> _T:
        """Run `operation` on a connection of its own, closed after."""
        conn = self._connect()
        try:
            return operation(conn)
        except psycopg.Error as exc:
            raise self._failed(exc) from exc
        finally:
            conn.close()

    def _do(self, make: Callable[[], Steps[_T]], *, atomic: bool = False) -> _T:
        """Run the operation `make()` returns (made again for a second attempt)."""
        return self._run(lambda conn: drive(conn, make(), atomic=atomic))

    # -- async ---------------------------------------------------------------------------------

    async def _aconnect(self) -> psycopg.AsyncConnection[Any]:
        try:
            return await psycopg.AsyncConnection.connect(self._conninfo, **self._connect_args)
        except psycopg.Error as exc:
            raise StoreError(f"{self!r} cannot connect to the server: {exc}".rstrip()) from None

    def _loop_resources(self) -> LoopResources:
        """This event loop's pool and listener (made on first use; those of closed loops forgotten)."""
        loop = asyncio.get_running_loop()
        with self._lock:
            found = self._loops.get(loop)
            if found is None:
                for gone in [other for other in self._loops if other.is_closed()]:
                    del self._loops[gone]  # its tasks ended with it; its connections close when collected
                pool = AsyncConnectionPool(self._conninfo, **self._pool_args())
                found = self._loops[loop] = LoopResources(pool, self._forget)
            return found

    def _forget(self, resources: LoopResources) -> None:
        """Drop a loop's resources that closed with their loop."""
        with self._lock:
            for loop, held in list(self._loops.items()):
                if held is resources:
                    del self._loops[loop]

    async def _arun(self, operation: Callable[[psycopg.AsyncConnection[Any]], Awaitable[_T]]) -> _T:
        """`_run` for async connections, from this event loop's pool."""
        resources = self._loop_resources()
        pool = resources.pool
        if not resources.opened:
            await pool.open()  # (a second opener in the same loop finds it open)
            resources.opened = True
        try:
            conn: psycopg.AsyncConnection[Any] | None = await pool.getconn()
        except psycopg.OperationalError:
            conn = None
        if conn is not None:
            try:
                return await operation(conn)
            except psycopg.OperationalError as exc:
                if not (conn.broken or conn.closed):
                    raise self._failed(exc) from exc
            except psycopg.Error as exc:
                raise self._failed(exc) from exc
            finally:
                await pool.putconn(conn)
            with contextlib.suppress(psycopg.Error):
                await pool.check()
        conn = await self._aconnect()
        try:
            return await operation(conn)
        except psycopg.Error as exc:
            raise self._failed(exc) from exc
        finally:
            await conn.close()

    async def _ado(self, make: Callable[[], Steps[_T]], *, atomic: bool = False) -> _T:
        """`_do` on this event loop's pool."""
        return await self._arun(lambda conn: adrive(conn, make(), atomic=atomic))

    # -- closing -------------------------------------------------------------------------------

    def close(self) -> None:
        """Close the pools and listeners (a later call opens new ones).

        An event loop's pool is closed in that loop: at once if it is not running, by waiting for
        the loop (up to 10 s) if it runs in another thread, and as a task if it is this thread's
        running loop (`aclose` there waits for it).
        """
        with self._lock:
            pool, self._pool = self._pool, None
            loops, self._loops = self._loops, {}
        if pool is not None:
            pool.close()
        try:
            running: asyncio.AbstractEventLoop | None = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        for loop, resources in loops.items():
            if loop.is_closed():
                continue  # its tasks ended with it; its connections close when collected
            if loop is running:
                task = loop.create_task(resources.aclose())
                self._closing.add(task)
                task.add_done_callback(self._closing.discard)
            elif loop.is_running():
                with contextlib.suppress(Exception):
                    asyncio.run_coroutine_threadsafe(resources.aclose(), loop).result(timeout=10)
            else:
                with contextlib.suppress(Exception):
                    loop.run_until_complete(resources.aclose())

    async def aclose(self) -> None:
        """Close this loop's pool and listener, waiting for them, then everything else (`close`)."""
        loop = asyncio.get_running_loop()
        with self._lock:
            resources = self._loops.pop(loop, None)
        if resources is not None:
            await resources.aclose()
        await asyncio.to_thread(self.close)
