"""The async twins (asave, aload, aclaim, ...) on every store: the same meaning, the loop left free."""

import asyncio
import threading
import time

import psycopg
import pytest

import notebook_tools as nt
from notebook_tools.stores._pg_pool import MAX_CONNECTIONS
from tests.support.readiness import CEILING


def _state(text="hi", **kwargs):
    return nt.AgentState(messages=[{"role": "user", "content": text}], **kwargs)


@pytest.fixture(params=["memory", "sqlite", "postgres"])
def store(request, tmp_path):
    kind = request.param
    if kind == "memory":
        yield nt.InMemoryStore()
        return
    if kind == "sqlite":
        s = nt.SQLiteStore(tmp_path / "s.sqlite")
    else:
        s = nt.PostgresStore(request.getfixturevalue("fresh_postgres_url"))
    yield s
    s.close()


def test_async_round_trip_and_leases(store):
    async def main():
        state = _state()
        assert await store.aload(state.agent_uuid) is None
        await store.asave(state)
        assert state.revision == 1
        loaded = await store.aload(state.agent_uuid)
        assert loaded == state and store.load(state.agent_uuid) == state  # the sync side sees it too
        loaded.messages.append({"role": "assistant", "content": "more"})
        await store.asave(loaded)
        assert store.load(state.agent_uuid).revision == 2
        with pytest.raises(nt.StaleSessionError):
            await store.asave(state)  # from revision 1: refused
        assert state.revision == 1

        assert await store.aclaim("s", "a", 60.0) is None
        theirs = await store.aclaim("s", "b", 60.0)
        assert (theirs.holder, theirs.live) == ("a", True) and store.lease("s") == theirs
        assert await store.arenew("s", "a", 60.0) == "held"
        assert await store.arequest_stop("s") is True
        assert await store.arenew("s", "a", 60.0) == "stop"
        assert (await store.alease("s")).stop is True
        await store.arelease("s", "a")
        assert await store.alease("s") is None and await store.arenew("s", "a", 60.0) == "lost"
        assert await store.arequest_stop("s") is False
        await store.aclose()

    asyncio.run(main())


def test_of_two_concurrent_async_saves_from_one_revision_exactly_one_wins(store):
    async def race(base):
        copies = [base.model_copy(deep=True), base.model_copy(deep=True)]
        outcomes = await asyncio.gather(*(store.asave(c) for c in copies), return_exceptions=True)
        assert sorted(o is None for o in outcomes) == [False, True], outcomes
        [stale] = [o for o in outcomes if o is not None]
        assert isinstance(stale, nt.StaleSessionError)
        winner = copies[outcomes.index(None)]
        loser = copies[1 - outcomes.index(None)]
        assert loser.revision == base.revision and winner.revision == base.revision + 1
        assert (await store.aload(base.agent_uuid)).revision == base.revision + 1
        return winner

    async def main():
        for _ in range(10):
            state = _state()
            state = await race(state)  # two first inserts
            await race(state)  # two updates of the saved row
        await store.aclose()

    asyncio.run(main())


def _our_connections(url):
    with psycopg.connect(url) as conn:
        return conn.execute(
            "SELECT count(*) FROM pg_stat_activity"
            " WHERE datname = current_database() AND application_name = 'notebook_tools'"
        ).fetchone()[0]


def _until_none_left(url):
    """Wait until the server has seen every connection of ours close (a backend exits just after)."""
    deadline = time.monotonic() + 15
    while (left := _our_connections(url)) != 0:
        assert time.monotonic() < deadline, f"{left} connections still open"
        time.sleep(0.02)


def test_postgres_async_calls_from_several_event_loops_each_get_a_pool_and_close_closes_them_all(
    fresh_postgres_url,
):
    store = nt.PostgresStore(fresh_postgres_url)
    state = _state()
    store.save(state)
    loops = [asyncio.new_event_loop() for _ in range(2)]
    threads = [threading.Thread(target=loop.run_forever) for loop in loops]
    for t in threads:
        t.start()

    async def use(name):
        assert await store.aclaim(f"lease-{name}", name, 60.0) is None
        return (await store.aload(state.agent_uuid)).revision

    try:
        done = [
            asyncio.run_coroutine_threadsafe(use(name), loop) for name, loop in zip("ab", loops, strict=True)
        ]
        assert [f.result(timeout=60) for f in done] == [1, 1]
        assert len(store._loops) == 2 and _our_connections(fresh_postgres_url) >= 3  # sync pool + two
        store.close()  # from outside the loops, which are running in their threads
        assert store._loops == {}
        _until_none_left(fresh_postgres_url)
        assert store.lease("lease-a").holder == "a" and store.lease("lease-b").holder == "b"  # opens again
    finally:
        for loop, t in zip(loops, threads, strict=True):
            loop.call_soon_threadsafe(loop.stop)
            t.join()
            loop.close()
    store.close()


def test_a_loop_ended_without_aclose_does_not_hang(fresh_postgres_url):
    """asyncio.run cancels every task on the way out; a pool worker cancelled mid-job swallows that.

    Without the store's guard task, which closes the loop's pool then (stopping its workers),
    asyncio.run waits for that worker forever. (The connections the pool was making or handing
    around as the loop ended close when collected.)
    """
    store = nt.PostgresStore(fresh_postgres_url)
    state = _state()
    store.save(state)

    async def busy():  # the pool grows while the loop ends: its workers are mid-job
        return await asyncio.gather(*(store.aload(state.agent_uuid) for _ in range(6)))

    def runs():
        for _ in range(8):
            assert [s.revision for s in asyncio.run(busy())] == [1] * 6

    runner = threading.Thread(target=runs, daemon=True)
    runner.start()
    runner.join(timeout=120)
    assert not runner.is_alive(), "asyncio.run never returned"
    assert store._loops == {}  # forgotten with their loops
    assert asyncio.run(store.aload(state.agent_uuid)) == state  # and a new loop gets a new pool
    store.close()


def test_postgres_close_inside_its_loop_closes_that_loops_pool_as_a_task(fresh_postgres_url):
    store = nt.PostgresStore(fresh_postgres_url)

    async def main():
        await store.aclaim("s", "a", 60.0)
        store.close()  # sync, inside the running loop: the loop's pool closes in a task
        await asyncio.gather(*store._closing)

    asyncio.run(main())
    _until_none_left(fresh_postgres_url)


# -- PostgreSQL: the loop is free while the database makes the saves wait --------------------------


def _waiting_on_locks(url):
    with psycopg.connect(url) as conn:
        return conn.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'"
        ).fetchone()[0]


def test_postgres_async_saves_leave_the_event_loop_free(fresh_postgres_url):
    store = nt.PostgresStore(fresh_postgres_url)
    base = _state()
    store.save(base)
    blocker = psycopg.connect(fresh_postgres_url)  # a transaction holding the session's row lock
    blocker.execute("SELECT 1 FROM sessions WHERE agent_uuid = %s FOR UPDATE", (base.agent_uuid,))
    lock = threading.Lock()
    safety = threading.Timer(60, lambda: _release(blocker, lock))  # if the loop were blocked, it ends
    safety.start()

    async def main():
        ticks = 0

        async def ticker():
            nonlocal ticks
            while True:
                ticks += 1
                await asyncio.sleep(0.005)

        ticking = asyncio.create_task(ticker())
        copies = [base.model_copy(deep=True) for _ in range(20)]
        saves = [asyncio.create_task(store.asave(c)) for c in copies]
        deadline = time.monotonic() + 30
        while await asyncio.to_thread(_waiting_on_locks, fresh_postgres_url) < MAX_CONNECTIONS:
            assert time.monotonic() < deadline, "the async pool's connections never all waited on the lock"
            await asyncio.sleep(0.02)
        before = ticks
        while ticks < before + 20:  # the pool's connections and 16 more saves wait: the loop ticks on
            assert not any(s.done() for s in saves)
            await asyncio.sleep(0.01)
        await asyncio.to_thread(_release, blocker, lock)
        outcomes = await asyncio.gather(*saves, return_exceptions=True)
        ticking.cancel()
        await store.aclose()
        return outcomes

    outcomes = asyncio.run(main())
    safety.cancel()
    assert sum(o is None for o in outcomes) == 1  # exactly one of the twenty wins
    assert all(isinstance(o, nt.StaleSessionError) for o in outcomes if o is not None)
    assert store.load(base.agent_uuid).revision == 2
    blocker.close()
    store.close()


def _release(conn, lock):
    with lock:
        if not conn.closed and conn.info.transaction_status != psycopg.pq.TransactionStatus.IDLE:
            conn.rollback()


def test_postgres_async_calls_reconnect_once_after_the_server_drops_its_connections(postgres_server):
    url = postgres_server.create_database()
    store = nt.PostgresStore(url)

    async def main():
        state = _state()
        await store.asave(state)
        dbname = url.rsplit("/", 1)[1]
        for operation in ("save", "load", "claim"):
            # the async pool reconnects in a task of this loop (a loaded machine delays it): awaited, not slept
            started = time.monotonic()
            while postgres_server.connections(dbname) < 1:
                assert time.monotonic() - started < CEILING, "the store's async pool never connected again"
                await asyncio.sleep(0.05)
            assert postgres_server.drop_connections(dbname) >= 1
            if operation == "save":
                await store.asave(state)
                assert state.revision == 2
            elif operation == "load":
                assert await store.aload(state.agent_uuid) == state
            else:
                assert await store.aclaim(state.agent_uuid, "a", 60.0) is None
        await store.aclose()

    asyncio.run(main())
    store.close()
