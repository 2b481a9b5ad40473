"""Leases on every store (memory, SQLite, a real PostgreSQL): claim, renew, release, lapse, take-over, stop."""

import json
import sqlite3
import subprocess
import sys
import time
import uuid

import psycopg
import pytest
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule, run_state_machine_as_test

import notebook_tools as nt
from notebook_tools.stores import Lease, LeaseStore
from tests.support.clocks import FakeClock


def wait_until(condition, timeout=15.0, what="the condition"):
    """Poll `condition` until it holds (PostgreSQL's clock cannot be faked, so its leases lapse for real)."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"{what} did not hold within {timeout} s")
        time.sleep(0.02)


class Leases:
    """Opens handles on one store and makes leases lapse: by the fake clock, or by waiting."""

    def __init__(self, kind, where):
        self.kind, self.where, self.opened = kind, where, []
        self.clock = None if kind == "postgres" else FakeClock()
        self.short = 0.5 if kind == "postgres" else 5.0  # a ttl that is let lapse
        self.long = 120.0  # a ttl that never lapses during a test
        self._memory = nt.InMemoryStore(clock=self.clock) if kind == "memory" else None

    def open(self):
        if self._memory is not None:
            return self._memory
        if self.kind == "sqlite":
            store = nt.SQLiteStore(self.where, clock=self.clock)
        else:
            store = nt.PostgresStore(self.where)
        self.opened.append(store)
        return store

    def lapse(self, store, agent_uuid):
        """Let the session's lease (claimed with `self.short`) lapse."""
        if self.clock is not None:
            self.clock.advance(self.short)
        else:
            wait_until(lambda: not store.lease(agent_uuid).live, what="the lease lapsing")
        assert store.lease(agent_uuid).live is False

    def close(self):
        for store in self.opened:
            store.close()


@pytest.fixture(params=["memory", "sqlite", "postgres"])
def leases(request, tmp_path):
    kind = request.param
    where = (
        request.getfixturevalue("fresh_postgres_url") if kind == "postgres" else str(tmp_path / "s.sqlite")
    )
    b = Leases(kind, where)
    yield b
    b.close()


# -- the semantics -----------------------------------------------------------------------------------


def test_claim_renew_and_release(leases):
    store, other = leases.open(), leases.open()
    assert isinstance(store, LeaseStore)
    assert store.lease("s") is None
    assert store.claim("s", "a", leases.long) is None
    mine = other.lease("s")
    assert (mine.holder, mine.live, mine.stop) == ("a", True, False)
    assert other.claim("s", "b", leases.long) == mine  # refused: nothing changed
    assert store.lease("s") == mine
    assert store.claim("s", "a", leases.long) is None  # ours already: taken again, extended
    assert store.lease("s").expires_at >= mine.expires_at
    assert store.renew("s", "a", leases.long) == "held"
    assert other.renew("s", "b", leases.long) == "lost"  # not b's: nothing changed
    other.release("s", "b")  # not b's: left alone
    assert store.lease("s").holder == "a"
    store.release("s", "a")
    assert other.lease("s") is None
    assert store.renew("s", "a", leases.long) == "lost"  # released: not renewed back into life
    assert store.lease("s") is None and store.request_stop("s") is False
    assert other.claim("s", "b", leases.long) is None and store.lease("s").holder == "b"


def test_a_stop_is_seen_at_every_renewal_until_the_lease_is_released(leases):
    store, other = leases.open(), leases.open()
    assert other.request_stop("s") is False  # no lease: nobody to stop
    store.claim("s", "a", leases.long)
    assert other.request_stop("s") is True
    before = store.lease("s")
    assert before.stop is True
    assert store.renew("s", "a", leases.long) == "stop"
    after = store.lease("s")
    assert after.stop is True and after.live and after.expires_at >= before.expires_at  # still extended
    assert store.renew("s", "a", leases.long) == "stop"
    assert store.claim("s", "a", leases.long) is None and store.lease("s").stop is True  # kept by a re-claim
    assert other.claim("s", "b", leases.long).stop is True
    store.release("s", "a")
    assert store.claim("s", "a", leases.long) is None
    assert store.lease("s").stop is False and store.renew("s", "a", leases.long) == "held"


def test_a_lapsed_lease_is_taken_over_and_its_old_holder_has_lost_it(leases):
    store, other = leases.open(), leases.open()
    store.claim("s", "a", leases.short)
    store.request_stop("s")
    leases.lapse(store, "s")
    assert other.request_stop("s") is False  # lapsed: no run to stop
    assert store.renew("s", "a", leases.long) == "stop"  # nobody took it: ours again, stop and all
    assert store.lease("s").live
    store.renew("s", "a", leases.short)
    leases.lapse(store, "s")
    assert other.claim("s", "b", leases.long) is None  # taken over
    theirs = store.lease("s")
    assert (theirs.holder, theirs.live, theirs.stop) == ("b", True, False)  # a new run: no stop
    assert store.renew("s", "a", leases.long) == "lost"
    assert store.claim("s", "a", leases.long) == theirs
    store.release("s", "a")
    assert store.lease("s") == theirs  # a release of a lease that is no longer ours changes nothing


def test_a_lease_lapses_exactly_at_its_expiry_by_the_stores_clock(tmp_path):
    clock = FakeClock()
    for store in (nt.InMemoryStore(clock=clock), nt.SQLiteStore(tmp_path / "s.sqlite", clock=clock)):
        store.claim("s", "a", 10.0)
        assert store.lease("s") == Lease("a", clock.now + 10.0, True, False)
        clock.advance(9.5)
        assert store.lease("s").live and store.claim("s", "b", 1.0) is not None
        clock.advance(0.5)  # now == expires_at: lapsed
        assert store.lease("s").live is False
        assert store.claim("s", "b", 1.0) is None
        assert store.lease("s") == Lease("b", clock.now + 1.0, True, False)


def test_postgres_judges_leases_by_the_servers_clock_not_the_workers(fresh_postgres_url, monkeypatch):
    store = nt.PostgresStore(fresh_postgres_url)
    monkeypatch.setattr(time, "time", lambda: 4_000_000_000.0)  # this machine's clock is far ahead
    assert store.claim("s", "a", 30.0) is None
    with psycopg.connect(fresh_postgres_url) as conn:
        server_now = conn.execute("SELECT extract(epoch FROM clock_timestamp())::float8").fetchone()[0]
    lease = store.lease("s")
    assert lease.live and server_now < lease.expires_at <= server_now + 30.0
    assert store.claim("s", "b", 30.0) == lease  # live by the server's clock, whatever this one says
    store.close()


def test_deleting_a_session_deletes_its_lease(leases):
    store = leases.open()
    state = nt.AgentState(messages=[{"role": "user", "content": "hi"}])
    store.save(state)
    store.claim(state.agent_uuid, "a", leases.long)
    store.claim("another", "a", leases.long)
    leases.open().delete(state.agent_uuid)
    assert store.lease(state.agent_uuid) is None and store.lease("another").holder == "a"


def test_renewals_never_bump_the_revision_nor_refuse_a_save(leases):
    store, other = leases.open(), leases.open()
    state = nt.AgentState(messages=[{"role": "user", "content": "hi"}])
    store.save(state)
    held = other.load(state.agent_uuid)
    store.claim(state.agent_uuid, "a", leases.long)
    for _ in range(3):
        assert store.renew(state.agent_uuid, "a", leases.long) == "held"
    store.request_stop(state.agent_uuid)
    store.release(state.agent_uuid, "a")
    assert store.load(state.agent_uuid).revision == 1
    other.save(held)  # compare-and-set from the revision loaded before the lease changes: still ours
    assert held.revision == 2


# -- schema upgrades: a file or database from before leases ----------------------------------------

_SQLITE_3 = (
    "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    "CREATE TABLE sessions (agent_uuid TEXT PRIMARY KEY, state TEXT NOT NULL,"
    " revision INTEGER NOT NULL DEFAULT 0, updated_at REAL NOT NULL)",
    "CREATE TABLE audit (id INTEGER PRIMARY KEY AUTOINCREMENT,"
    " agent_uuid TEXT NOT NULL, time REAL NOT NULL, record TEXT NOT NULL)",
    "INSERT INTO meta (key, value) VALUES ('schema_version', '3')",
)
_POSTGRES_1 = (
    "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    "CREATE SEQUENCE sessions_updates",
    "CREATE TABLE sessions (agent_uuid TEXT PRIMARY KEY, state TEXT NOT NULL,"
    " revision BIGINT NOT NULL, updated BIGINT NOT NULL DEFAULT nextval('sessions_updates'),"
    " updated_at TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp())",
    "CREATE INDEX sessions_by_update ON sessions (updated DESC)",
    "CREATE TABLE audit (id BIGSERIAL PRIMARY KEY, agent_uuid TEXT NOT NULL,"
    " time DOUBLE PRECISION NOT NULL, record TEXT NOT NULL)",
    "CREATE INDEX audit_by_session ON audit (agent_uuid, id)",
    "INSERT INTO meta (key, value) VALUES ('schema_version', '1')",
)


@pytest.mark.parametrize("kind", ["sqlite", "postgres"])
def test_a_store_from_before_leases_is_upgraded_when_opened(kind, tmp_path, request):
    state = nt.AgentState(messages=[{"role": "user", "content": "from before leases"}])
    row = (state.agent_uuid, state.model_copy(update={"revision": 3}).model_dump_json(), 3)
    if kind == "sqlite":
        where = str(tmp_path / "old.sqlite")
        with sqlite3.connect(where) as conn:
            for statement in _SQLITE_3:
                conn.execute(statement)
            conn.execute(
                "INSERT INTO sessions (agent_uuid, state, revision, updated_at) VALUES (?, ?, ?, 1)", row
            )
        conn.close()
        open_store, latest = (lambda: nt.SQLiteStore(where)), 4
    else:
        where = request.getfixturevalue("fresh_postgres_url")
        with psycopg.connect(where, autocommit=True) as conn:
            for statement in _POSTGRES_1:
                conn.execute(statement)
            conn.execute("INSERT INTO sessions (agent_uuid, state, revision) VALUES (%s, %s, %s)", row)
        open_store, latest = (lambda: nt.PostgresStore(where)), 2
    store = open_store()
    assert store.schema_version == latest
    loaded = store.load(state.agent_uuid)
    assert loaded.messages == state.messages and loaded.revision == 3
    assert store.claim(state.agent_uuid, "a", 60.0) is None
    again = open_store()  # opening an upgraded store changes nothing more
    assert again.schema_version == latest and again.lease(state.agent_uuid).holder == "a"
    store.save(loaded)
    assert again.load(state.agent_uuid).revision == 4
    store.close()
    again.close()


# -- two processes race to claim the same lapsed leases: exactly one takes each --------------------

RACER = """
import json, sys
import notebook_tools as nt

kind, where, holder, count = sys.argv[1:5]
store = nt.SQLiteStore(where) if kind == "sqlite" else nt.PostgresStore(where)
print("ready", flush=True)
sys.stdin.readline()
taken = [store.claim(f"race-{i}", holder, 60.0) for i in range(int(count))]
print(json.dumps([None if lease is None else list(lease) for lease in taken]), flush=True)
"""


@pytest.mark.parametrize("kind", ["sqlite", "postgres"])
def test_two_processes_claiming_the_same_lapsed_leases_exactly_one_takes_each(kind, tmp_path, request):
    where = (
        request.getfixturevalue("fresh_postgres_url") if kind == "postgres" else str(tmp_path / "s.sqlite")
    )
    store = nt.SQLiteStore(where) if kind == "sqlite" else nt.PostgresStore(where)
    count = 150
    for i in range(count):  # held by a worker that died: lapsed at once
        assert store.claim(f"race-{i}", "dead", 0.0) is None
    assert not store.lease("race-0").live
    racers = {
        name: subprocess.Popen(
            [sys.executable, "-c", RACER, kind, where, name, str(count)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for name in ("a", "b")
    }
    for racer in racers.values():
        assert racer.stdout.readline() == "ready\n", racer.stderr.read()
    for racer in racers.values():  # both are ready before either claims
        racer.stdin.write("go\n")
        racer.stdin.flush()
    outcomes = {}
    for name, racer in racers.items():
        out, err = racer.communicate(timeout=120)
        assert racer.returncode == 0, err
        outcomes[name] = json.loads(out)
    for i in range(count):
        a, b = outcomes["a"][i], outcomes["b"][i]
        assert (a is None) != (b is None), (i, a, b)  # exactly one took it
        winner, refused = ("a", b) if a is None else ("b", a)
        assert refused[0] == winner and refused[2] is True and refused[3] is False  # the winner's live lease
        assert store.lease(f"race-{i}").holder == winner
    store.close()


# -- interleaved lease operations behave like a simple model ----------------------------------------

SESSIONS, HOLDERS = ["s1", "s2"], ["a", "b", "c"]


def _machine(handles, clock, ttls, prefix):
    """A state machine over `handles` (one store or several on the same data) and a model of the rules.

    With `clock` None (PostgreSQL) time does not pass and expiry times are not compared.
    """

    class LeaseMachine(RuleBasedStateMachine):
        def __init__(self):
            super().__init__()
            self.model = {}  # session -> [holder, expires_at, stop]
            self.sessions = [f"{prefix()}-{s}" for s in SESSIONS]

        def now(self):
            return clock() if clock else 0.0

        def live(self, row):
            return row is not None and (clock is None or row[1] > self.now())

        def expected(self, s):
            row = self.model.get(s)
            if row is None:
                return None
            return (row[0], row[1] if clock else None, self.live(row), row[2])

        def seen(self, lease):
            return (
                None
                if lease is None
                else (lease.holder, lease.expires_at if clock else None, lease.live, lease.stop)
            )

        @rule(h=st.integers(0, len(handles) - 1), s=st.integers(0, 1), holder=st.sampled_from(HOLDERS),
              ttl=st.sampled_from(ttls))  # fmt: skip
        def claim(self, h, s, holder, ttl):
            s = self.sessions[s]
            row = self.model.get(s)
            if self.live(row) and row[0] != holder:
                expected = self.expected(s)
            else:
                keep = self.live(row) and row[0] == holder and row[2]
                self.model[s] = [holder, self.now() + ttl, keep]
                expected = None
            assert self.seen(handles[h].claim(s, holder, ttl)) == expected

        @rule(h=st.integers(0, len(handles) - 1), s=st.integers(0, 1), holder=st.sampled_from(HOLDERS),
              ttl=st.sampled_from(ttls))  # fmt: skip
        def renew(self, h, s, holder, ttl):
            s = self.sessions[s]
            row = self.model.get(s)
            if row is None or row[0] != holder:
                expected = "lost"
            else:
                expected = "stop" if row[2] else "held"
                row[1] = self.now() + ttl
            assert handles[h].renew(s, holder, ttl) == expected

        @rule(h=st.integers(0, len(handles) - 1), s=st.integers(0, 1), holder=st.sampled_from(HOLDERS))
        def release(self, h, s, holder):
            s = self.sessions[s]
            if self.model.get(s, [None])[0] == holder:
                del self.model[s]
            handles[h].release(s, holder)

        @rule(h=st.integers(0, len(handles) - 1), s=st.integers(0, 1))
        def request_stop(self, h, s):
            s = self.sessions[s]
            row = self.model.get(s)
            expected = self.live(row)
            if expected:
                row[2] = True
            assert handles[h].request_stop(s) is expected

        if clock is not None:

            @rule(seconds=st.sampled_from([0.5, 5.0, 10.0, 30.0]))
            def time_passes(self, seconds):
                clock.advance(seconds)

        @invariant()
        def every_handle_sees_the_model(self):
            for s in self.sessions:
                for handle in handles:
                    assert self.seen(handle.lease(s)) == self.expected(s)

    return LeaseMachine


@pytest.mark.parametrize("kind", ["memory", "sqlite", "postgres"])
def test_interleaved_lease_operations_match_the_model(kind, tmp_path, request):
    where = (
        request.getfixturevalue("fresh_postgres_url") if kind == "postgres" else str(tmp_path / "s.sqlite")
    )
    b = Leases(kind, where)
    handles = [b.open(), b.open()]
    ttls = [b.long] if kind == "postgres" else [5.0, 10.0, 20.0]
    machine = _machine(handles, b.clock, ttls, lambda: uuid.uuid4().hex[:8])
    run_state_machine_as_test(
        machine, settings=settings(max_examples=40, stateful_step_count=25, deadline=None)
    )
    b.close()
