"""The mailbox between workers on every store: messages, replies, held calls, waits; across processes."""

import asyncio
import subprocess
import sys
import time

import psycopg
import pytest

import notebook_tools as nt
from notebook_tools.stores import Mailbox
from tests.support.clocks import FakeClock


@pytest.fixture(params=["memory", "sqlite", "postgres"])
def stores(request, tmp_path):
    """Two handles on one store (one process: the in-memory store is both)."""
    kind = request.param
    if kind == "memory":
        store = nt.InMemoryStore()
        yield store, store
        return
    if kind == "sqlite":
        pair = [nt.SQLiteStore(tmp_path / "s.sqlite") for _ in range(2)]
    else:
        url = request.getfixturevalue("fresh_postgres_url")
        pair = [nt.PostgresStore(url) for _ in range(2)]
    yield pair
    for store in pair:
        store.close()


def test_messages_go_to_their_target_in_order_and_get_replies(stores):
    store, other = stores
    assert isinstance(store, Mailbox)
    assert other.receive("w1") == []
    first = store.send("w1", "stop", '{"agent_uuid": "s"}')
    to_w2 = store.send("w2", "ack", "for w2")
    second = other.send("w1", "ack", "ünïcode \u2603")
    assert first < to_w2 < second
    assert other.receive("w1") == [(first, "stop", '{"agent_uuid": "s"}'), (second, "ack", "ünïcode \u2603")]
    assert other.receive("w1", first) == [(second, "ack", "ünïcode \u2603")]
    assert store.receive("w1", second) == [] and store.receive("w2") == [(to_w2, "ack", "for w2")]
    assert store.reply_of(first) is None and store.reply_of(10**9) is None
    other.reply(first, "")
    assert store.reply_of(first) == ""  # an empty answer is an answer
    other.reply(first, "stopped")
    assert store.reply_of(first) == "stopped" and store.reply_of(second) is None
    store.reply(10**9, "to nobody")  # a pruned (or unknown) message: nothing happens


def test_held_calls_name_their_session_and_holder_until_dropped(stores):
    store, other = stores
    assert store.call_holder("toolu_1") is None
    store.hold_calls(["toolu_1", "toolu_2", "toolu_1"], "session-a", "w1")
    assert other.call_holder("toolu_1") == ("session-a", "w1") == other.call_holder("toolu_2")
    other.hold_calls(["toolu_2"], "session-a", "w2")  # taken over by the worker that recovered the run
    assert store.call_holder("toolu_2") == ("session-a", "w2")
    store.hold_calls([], "session-a", "w1")
    store.drop_calls(["toolu_1", "toolu_unknown"])
    assert other.call_holder("toolu_1") is None and other.call_holder("toolu_2") == ("session-a", "w2")
    state = nt.AgentState(messages=[{"role": "user", "content": "hi"}])
    store.save(state)
    store.hold_calls(["toolu_3"], state.agent_uuid, "w1")
    other.delete(state.agent_uuid)  # deleting a session forgets its held calls
    assert store.call_holder("toolu_3") is None and store.call_holder("toolu_2") == ("session-a", "w2")


@pytest.mark.parametrize("kind", ["memory", "sqlite"])
def test_messages_older_than_ten_minutes_are_pruned_when_another_is_sent(kind, tmp_path):
    clock = FakeClock()
    store = nt.InMemoryStore(clock=clock) if kind == "memory" else nt.SQLiteStore(tmp_path / "s", clock=clock)
    old = store.send("w1", "ack", "old")
    store.reply(old, "answered")
    clock.advance(600.0)  # exactly ten minutes: kept
    kept = store.send("w2", "ack", "x")
    assert store.receive("w1") == [(old, "ack", "old")]
    clock.advance(0.5)
    newer = store.send("w1", "ack", "new")
    assert store.receive("w1") == [(newer, "ack", "new")] and store.reply_of(old) is None
    assert store.receive("w2") == [(kept, "ack", "x")] and newer > kept  # ids never repeat


def test_postgres_prunes_messages_older_than_ten_minutes_by_its_clock(fresh_postgres_url):
    store = nt.PostgresStore(fresh_postgres_url)
    old, young = store.send("w1", "ack", "old"), store.send("w1", "ack", "young")
    with psycopg.connect(fresh_postgres_url, autocommit=True) as conn:
        conn.execute("UPDATE messages SET sent_at = sent_at - interval '601 seconds' WHERE id = %s", (old,))
    assert [m[0] for m in store.receive("w1")] == [old, young]  # pruned on send, not on read
    newer = store.send("w2", "ack", "x")
    assert [m[0] for m in store.receive("w1")] == [young] and newer > young
    store.close()


# -- the waits: as soon as something arrives, or nothing at the timeout ------------------------------


def test_waits_return_as_soon_as_a_message_or_reply_arrives(stores):
    store, other = stores

    async def main():
        assert await store.wait_messages("w1", 0, 0.2) == []  # nothing: [] at the timeout
        waiting = asyncio.create_task(store.wait_messages("w1", 0, 60))
        await asyncio.sleep(0)
        sent = await asyncio.to_thread(other.send, "w1", "stop", "now")  # another handle, another thread
        assert await waiting == [(sent, "stop", "now")]
        assert await store.wait_messages("w1", sent, 0.1) == []  # `after` skips what was seen
        assert await store.wait_reply(sent, 0.2) is None
        replying = asyncio.create_task(store.wait_reply(sent, 60))
        await asyncio.sleep(0)
        await asyncio.to_thread(other.reply, sent, "stopped")
        assert await replying == "stopped"
        later = await other.asend("w1", "ack", "a")
        assert await store.wait_messages("w1", sent, 60) == [(later, "ack", "a")]  # already there
        assert await store.aclose() is None

    asyncio.run(main())
    if store is not other:
        asyncio.run(other.aclose())


def test_the_async_twins_of_the_mailbox(stores):
    store, other = stores

    async def main():
        sent = await store.asend("w1", "ack", "body")
        assert (
            await other.areceive("w1") == [(sent, "ack", "body")] and await other.areceive("w1", sent) == []
        )
        await other.areply(sent, "ok")
        assert await store.areply_of(sent) == "ok"
        await store.ahold_calls(["toolu_1"], "s", "w1")
        assert await other.acall_holder("toolu_1") == ("s", "w1")
        await other.adrop_calls(["toolu_1"])
        assert await store.acall_holder("toolu_1") is None
        await store.aclose()

    asyncio.run(main())


# -- two processes: a worker answers what another sends it ------------------------------------------

ANSWERER = """
import asyncio, sys
import notebook_tools as nt

kind, where = sys.argv[1:3]
store = nt.SQLiteStore(where) if kind == "sqlite" else nt.PostgresStore(where)

async def main():
    after = 0
    print("ready", flush=True)
    while True:
        for message_id, kind, body in await store.wait_messages("worker-b", after, 120):
            after = message_id
            await store.areply(message_id, "bye" if kind == "quit" else body.upper())
            if kind == "quit":
                await store.aclose()
                return

asyncio.run(main())
"""


@pytest.mark.parametrize("kind", ["sqlite", "postgres"])
def test_a_reply_arrives_from_another_process(kind, tmp_path, request):
    where = (
        request.getfixturevalue("fresh_postgres_url") if kind == "postgres" else str(tmp_path / "s.sqlite")
    )
    store = nt.SQLiteStore(where) if kind == "sqlite" else nt.PostgresStore(where)
    answerer = subprocess.Popen([sys.executable, "-c", ANSWERER, kind, where], stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)  # fmt: skip
    try:
        assert answerer.stdout.readline() == "ready\n", answerer.stderr.read()

        async def main():
            replies = []
            for i in range(5):
                sent = await store.asend("worker-b", "ack", f"answer {i}")
                replies.append(await store.wait_reply(sent, 120))
            quit_ = await store.asend("worker-b", "quit", "")
            replies.append(await store.wait_reply(quit_, 120))
            await store.aclose()
            return replies

        assert asyncio.run(main()) == [f"ANSWER {i}" for i in range(5)] + ["bye"]
        _, err = answerer.communicate(timeout=120)
        assert answerer.returncode == 0, err
    finally:
        if answerer.poll() is None:
            answerer.kill()
            answerer.communicate()
    store.close()


# -- PostgreSQL: woken by NOTIFY, and again after the listening connection dropped -------------------


def _counting_looks(store):
    """Count how often a waiter reads the messages table (each look of a wait is one `areceive`)."""
    looks = []
    real = store.areceive

    async def counted(target, after=0):
        looks.append(target)
        return await real(target, after)

    store.areceive = counted
    return looks


async def _until(condition, what):
    deadline = time.monotonic() + 30
    while not condition():
        assert time.monotonic() < deadline, f"{what} did not happen within 30 s"
        await asyncio.sleep(0.01)


def test_postgres_wakes_a_waiter_by_notify_not_by_polling(fresh_postgres_url, record_property):
    store, sender = nt.PostgresStore(fresh_postgres_url), nt.PostgresStore(fresh_postgres_url)
    sender.send("somebody else", "ack", "")  # the sender's pool is open: the timing is the send's own
    looks = _counting_looks(store)

    async def main():
        waiting = asyncio.create_task(store.wait_messages("w1", 0, 60))
        await _until(lambda: looks, "the waiter's first look")
        await asyncio.sleep(0.3)  # six polling periods: a poller would look again meanwhile
        started = time.perf_counter()
        sent = await asyncio.to_thread(sender.send, "w1", "stop", "now")
        found = await waiting
        woke = time.perf_counter() - started
        await store.aclose()
        return sent, found, woke

    sent, found, woke = asyncio.run(main())
    assert found == [(sent, "stop", "now")]
    assert len(looks) == 2  # one look before waiting, one when NOTIFY woke it: no polling
    record_property("notify_wake_ms", round(woke * 1000, 2))
    print(f"woken {woke * 1000:.1f} ms after the send began (the polling period is 50 ms)")
    store.close()
    sender.close()


def test_postgres_listens_again_after_its_connection_is_terminated(fresh_postgres_url, postgres_server):
    store, sender = nt.PostgresStore(fresh_postgres_url), nt.PostgresStore(fresh_postgres_url)

    async def main():
        listener = store._listener()
        first = asyncio.create_task(store.wait_messages("w1", 0, 60))  # waiting across the drop
        await _until(lambda: listener.listening, "listening")
        dropped = listener.backend_pid
        with postgres_server.admin() as admin:
            assert admin.execute("SELECT pg_terminate_backend(%s)", (dropped,)).fetchone()[0] is True
        await _until(lambda: listener.connections == 2 and listener.listening, "listening again")
        assert listener.backend_pid != dropped
        sent = await asyncio.to_thread(sender.send, "w1", "ack", "after the drop")
        assert await first == [(sent, "ack", "after the drop")]

        looks = _counting_looks(store)  # and a wait begun now is woken by NOTIFY, not by polling
        second = asyncio.create_task(store.wait_messages("w1", sent, 60))
        await _until(lambda: looks, "the second waiter's first look")
        await asyncio.sleep(0.3)
        later = await asyncio.to_thread(sender.send, "w1", "ack", "later")
        assert await second == [(later, "ack", "later")] and len(looks) == 2
        await store.aclose()

    asyncio.run(main())
    store.close()
    sender.close()


def test_a_wait_on_a_store_whose_server_is_gone_fails_cleanly():
    """No server: the listener cannot connect, and the waiter's look raises the store's error."""
    from tests.support.pg_server import PgServer

    server = PgServer()
    store = nt.PostgresStore(server.create_database(), connect_timeout=2)
    server.stop()

    async def main():
        with pytest.raises(nt.StoreError, match="cannot connect"):
            await store.wait_messages("w1", 0, 1)
        await store.aclose()

    asyncio.run(main())
    store.close()
