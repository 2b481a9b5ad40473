"""The SessionStore contract on every backend (memory, SQLite, a real PostgreSQL), across processes too."""

import json
import sqlite3
import subprocess
import sys
import textwrap
import threading
import time
import uuid
from pathlib import Path

import psycopg
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import notebook_tools as nt
from tests.support.pg_server import PASSWORD, PgServer
from tests.support.readiness import wait_until


def _state(text="hi", **kwargs):
    return nt.AgentState(messages=[{"role": "user", "content": text}], **kwargs)


class Backend:
    """Opens handles on one store (as separate processes would) and writes rows behind its back."""

    def __init__(self, kind, where):
        self.kind, self.where, self.opened = kind, where, []
        self._memory = nt.InMemoryStore() if kind == "memory" else None

    def open(self):
        if self._memory is not None:
            return self._memory  # one process: every "handle" is the store itself
        store = nt.SQLiteStore(self.where) if self.kind == "sqlite" else nt.PostgresStore(self.where)
        self.opened.append(store)
        return store

    def sql(self, query, *args):
        """Run one statement on the database, as another program would."""
        if self.kind == "sqlite":
            with sqlite3.connect(self.where) as conn:
                conn.execute(query.replace("%s", "?"), args)
        else:
            with psycopg.connect(self.where, autocommit=True) as conn:
                conn.execute(query, args)

    def write_row(self, agent_uuid, text, revision=1):
        if self._memory is not None:
            self._memory._rows[agent_uuid] = (time.time(), revision, text)
        else:
            self.sql(
                "UPDATE sessions SET state = %s, revision = %s WHERE agent_uuid = %s",
                text,
                revision,
                agent_uuid,
            )

    def close(self):
        for store in self.opened:
            store.close()


@pytest.fixture(params=["memory", "sqlite", "postgres"])
def backend(request, tmp_path):
    kind = request.param
    where = (
        request.getfixturevalue("fresh_postgres_url") if kind == "postgres" else str(tmp_path / "s.sqlite")
    )
    b = Backend(kind, where)
    yield b
    b.close()


@pytest.fixture(params=["sqlite", "postgres"])
def shared(request, tmp_path):
    """A backend that several processes can open."""
    kind = request.param
    where = (
        request.getfixturevalue("fresh_postgres_url") if kind == "postgres" else str(tmp_path / "s.sqlite")
    )
    b = Backend(kind, where)
    yield b
    b.close()


# -- the contract ----------------------------------------------------------------------------------


def test_round_trip_list_and_delete(backend):
    store, other = backend.open(), backend.open()
    assert isinstance(store, nt.SessionStore)
    a, b = _state("a"), _state("b")
    store.save(a)
    store.save(b)
    assert other.load(a.agent_uuid) == a and a.revision == 1
    assert other.load("missing") is None
    a.messages.append({"role": "assistant", "content": [{"type": "text", "text": "yo ünïcode \u2603"}]})
    store.save(a)
    assert other.load(a.agent_uuid) == a and a.revision == 2
    assert other.list_sessions() == [a.agent_uuid, b.agent_uuid]
    other.delete(a.agent_uuid)
    other.delete("missing")  # no error
    assert store.load(a.agent_uuid) is None
    assert store.list_sessions() == [b.agent_uuid]


def test_list_is_most_recently_updated_first(backend):
    store = backend.open()
    a, b, c = _state("a"), _state("b"), _state("c")
    for s in (a, b, c):
        store.save(s)
    assert store.list_sessions() == [c.agent_uuid, b.agent_uuid, a.agent_uuid]
    store.save(a)
    assert backend.open().list_sessions() == [a.agent_uuid, c.agent_uuid, b.agent_uuid]


def test_a_stale_save_raises_and_writes_nothing(backend):
    store, other = backend.open(), backend.open()
    original = _state()
    store.save(original)
    first, second = store.load(original.agent_uuid), other.load(original.agent_uuid)
    first.messages.append({"role": "assistant", "content": "first"})
    second.messages.append({"role": "assistant", "content": "second"})
    store.save(first)
    with pytest.raises(nt.StaleSessionError) as caught:
        other.save(second)
    assert second.revision == 1  # the loser's state is not advanced
    assert other.load(original.agent_uuid) == first
    err = caught.value
    assert (err.agent_uuid, err.expected, err.stored) == (original.agent_uuid, 1, 2)
    assert repr(other) in str(err) and "agent.load(" in str(err)
    again = other.load(original.agent_uuid)  # reloading is the way out
    again.messages.append({"role": "assistant", "content": "second, after reloading"})
    other.save(again)
    assert store.load(original.agent_uuid).revision == 3


def test_of_two_first_inserts_the_second_is_stale(backend):
    store, other = backend.open(), backend.open()
    mine = _state("mine")
    theirs = mine.model_copy(update={"messages": [{"role": "user", "content": "theirs"}]})
    store.save(mine)
    with pytest.raises(nt.StaleSessionError) as caught:
        other.save(theirs)
    assert (caught.value.expected, caught.value.stored) == (0, 1)
    assert other.load(mine.agent_uuid) == mine


def test_a_deleted_session_is_not_revived_by_a_stale_save(backend):
    store, other = backend.open(), backend.open()
    state = _state()
    store.save(state)
    held = other.load(state.agent_uuid)
    store.delete(state.agent_uuid)
    with pytest.raises(nt.StaleSessionError, match="deleted") as caught:
        other.save(held)
    assert caught.value.stored is None
    assert store.load(state.agent_uuid) is None and store.list_sessions() == []


@pytest.mark.parametrize("rounds", [15])
def test_threads_racing_first_inserts_and_updates_exactly_one_wins(backend, rounds):
    stores = [backend.open(), backend.open()]
    for _ in range(rounds):
        base = _state()
        for start in (0, 1):  # a first insert, then an update of the saved row
            copies = [base.model_copy(deep=True), base.model_copy(deep=True)]
            barrier, outcomes = threading.Barrier(2), [None, None]

            def race(i, copies=copies, barrier=barrier, outcomes=outcomes):
                barrier.wait()
                try:
                    stores[i].save(copies[i])
                    outcomes[i] = True
                except nt.StaleSessionError:
                    outcomes[i] = False

            threads = [threading.Thread(target=race, args=(i,)) for i in (0, 1)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            assert sorted(outcomes) == [False, True]
            winner = copies[outcomes.index(True)]
            assert winner.revision == start + 1
            assert stores[0].load(base.agent_uuid).revision == start + 1
            base = winner


def test_the_audit_log_is_oldest_first_per_session_or_all(backend):
    store, other = backend.open(), backend.open()

    def record(agent_uuid, tool):
        return nt.AuditRecord(agent_uuid=agent_uuid, tool_use_id=f"toolu_{tool}", tool=tool,
                              arguments={"path": "a/b"}, decision="approved", reason="ok")  # fmt: skip

    records = [record("s1", "write"), record("s2", "read"), record("s1", "delete")]
    for r in records:
        store.append_audit(r)
    assert other.audit_log() == records
    assert other.audit_log("s1") == [records[0], records[2]]
    assert other.audit_log("none") == []


@pytest.mark.parametrize(
    ("text", "error", "match"),
    [
        ("not json", nt.CorruptSessionError, "not JSON"),
        ('{"schema_version": 3, "messages": 5}', nt.CorruptSessionError, "not a valid AgentState"),
        ("[1, 2]", nt.CorruptSessionError, "schema_version"),
        ('{"schema_version": 999}', nt.UnsupportedSchemaError, "newer notebook_tools"),
    ],
)
def test_a_bad_row_is_refused_and_left_as_it_is(backend, text, error, match):
    store = backend.open()
    state = _state()
    store.save(state)
    backend.write_row(state.agent_uuid, text)
    with pytest.raises(error, match=match) as caught:
        backend.open().load(state.agent_uuid)
    assert PASSWORD not in str(caught.value)
    with pytest.raises(error):
        store.load(state.agent_uuid)  # still there, untouched
    store.delete(state.agent_uuid)  # the way out
    assert store.load(state.agent_uuid) is None


def test_a_row_of_another_session_is_corrupt(backend):
    store = backend.open()
    a, b = _state("a"), _state("b")
    store.save(a)
    store.save(b)
    backend.write_row(a.agent_uuid, b.model_dump_json())
    with pytest.raises(nt.CorruptSessionError, match="holds session"):
        store.load(a.agent_uuid)


def test_an_agent_uuid_with_a_nul_is_no_session(backend):
    store = backend.open()
    assert store.load("a\x00b") is None
    store.delete("a\x00b")
    assert store.audit_log("a\x00b") == []
    if backend.kind == "postgres":  # PostgreSQL text cannot hold NUL: refused, as the package's error
        with pytest.raises(nt.StoreError, match="NUL"):
            store.save(_state(agent_uuid="a\x00b"))
        assert store.list_sessions() == []


def test_a_store_from_a_newer_version_is_refused(shared):
    shared.open()
    shared.sql("UPDATE meta SET value = '99' WHERE key = 'schema_version'")
    with pytest.raises(nt.UnsupportedSchemaError, match=r"newer notebook_tools \(store schema 99"):
        shared.open()


def test_postgres_records_its_schema_and_refuses_foreign_tables(postgres_server):
    url = postgres_server.create_database()
    store = nt.PostgresStore(url)
    assert store.schema_version == 2  # 2: leases
    store.close()
    foreign = postgres_server.create_database()
    with psycopg.connect(foreign, autocommit=True) as conn:
        conn.execute("CREATE TABLE sessions (id int)")
    with pytest.raises(nt.UnsupportedSchemaError, match="not a notebook_tools store"):
        nt.PostgresStore(foreign)


def test_the_tables_can_live_in_a_schema_of_their_own(postgres_server):
    url = postgres_server.create_database()
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("CREATE SCHEMA nt")
        conn.execute("CREATE TABLE sessions (id int)")  # someone else's table in public
    store = nt.PostgresStore(url + "?options=-csearch_path%3Dnt")
    state = _state()
    store.save(state)
    assert store.load(state.agent_uuid) == state
    with psycopg.connect(url) as conn:
        assert conn.execute("SELECT count(*) FROM nt.sessions").fetchone()[0] == 1
    store.close()


def test_processes_creating_the_tables_at_once_all_succeed(postgres_server):
    url = postgres_server.create_database()
    barrier, stores, errors = threading.Barrier(4), [], []

    def open_store():
        barrier.wait()
        try:
            stores.append(nt.PostgresStore(url))
        except Exception as exc:
            errors.append(exc)

    threads = [threading.Thread(target=open_store) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == [] and len(stores) == 4
    state = _state()
    stores[0].save(state)
    assert all(s.load(state.agent_uuid) == state for s in stores)
    for s in stores:
        s.close()


# -- PostgreSQL: the password stays out of sight; the connection comes back ------------------------


def test_repr_and_errors_never_show_the_password(postgres_server):
    url = postgres_server.create_database()
    store, other = nt.PostgresStore(url), nt.PostgresStore(url)
    dbname = url.rsplit("/", 1)[1]
    assert repr(store) == f"PostgresStore(host='127.0.0.1', port='{postgres_server.port}', dbname='{dbname}')"
    state = _state()
    store.save(state)
    held = other.load(state.agent_uuid)
    store.save(state)
    with pytest.raises(nt.StaleSessionError) as caught:
        other.save(held)
    assert PASSWORD not in str(caught.value) and repr(store) in str(caught.value)
    wrong = url.replace(f":{PASSWORD}@", ":wrong-password@")
    with pytest.raises(nt.StoreError, match="cannot connect") as refused:
        nt.PostgresStore(wrong)
    assert "wrong-password" not in str(refused.value) and "wrong-password" not in repr(
        refused.value.__cause__
    )
    kv = f"host=127.0.0.1 port={postgres_server.port} dbname={dbname} user=notebook_tools password={PASSWORD}"
    by_keywords = nt.PostgresStore(kv)
    assert repr(by_keywords) == repr(store)
    for s in (store, other, by_keywords):
        s.close()
    with pytest.raises(nt.ConfigurationError, match="neither a libpq conninfo"):
        nt.PostgresStore("host=127.0.0.1 this is not a conninfo")


def test_reconnects_once_after_the_server_drops_its_connections(postgres_server):
    url = postgres_server.create_database()
    store = nt.PostgresStore(url)
    state = _state()
    store.save(state)
    dbname = url.rsplit("/", 1)[1]
    for operation in ("save", "load", "list", "audit", "delete"):
        # a call that found its connection dropped ran on one of its own; the pool makes its new one in a
        # background worker, which a loaded machine delays: waited for, so there is a connection to drop
        wait_until(lambda: postgres_server.connections(dbname) >= 1, "the store's pool to connect again")
        assert postgres_server.drop_connections(dbname) >= 1
        if operation == "save":
            state.messages.append({"role": "assistant", "content": "after the drop"})
            store.save(state)
            assert state.revision == 2
        elif operation == "load":
            assert store.load(state.agent_uuid) == state
        elif operation == "list":
            assert store.list_sessions() == [state.agent_uuid]
        elif operation == "audit":
            assert store.audit_log() == []
        else:
            store.delete(state.agent_uuid)
            assert store.load(state.agent_uuid) is None
    store.close()


def test_a_save_whose_commit_landed_before_the_connection_dropped_is_not_stale(postgres_server, monkeypatch):
    url = postgres_server.create_database()
    store, other = nt.PostgresStore(url), nt.PostgresStore(url)
    real_run = nt.PostgresStore._run

    def commit_then_drop(self, operation):
        if self is not store or getattr(self, "_dropped", False):
            return real_run(self, operation)
        self._dropped = True

        def first_attempt(conn):
            operation(conn)  # the save commits...
            postgres_server.drop_connections(url.rsplit("/", 1)[1])
            conn.execute("SELECT 1")  # ...and the connection dies before the caller hears of it

        first = True

        def attempt(conn):
            nonlocal first
            if first:
                first = False
                return first_attempt(conn)
            return operation(conn)

        return real_run(self, attempt)

    monkeypatch.setattr(nt.PostgresStore, "_run", commit_then_drop)
    state = _state()
    store.save(state)  # the retry finds its own row at revision 1: a success, not a StaleSessionError
    assert state.revision == 1 and other.load(state.agent_uuid) == state
    held = other.load(state.agent_uuid)
    store.save(state)
    with pytest.raises(nt.StaleSessionError):  # another writer's save is still refused
        other.save(held)
    store.close()
    other.close()


def test_survives_a_server_restart_and_fails_cleanly_when_the_server_is_gone():
    server = PgServer()  # its own server: a restart must not disturb other tests' connections
    try:
        store = nt.PostgresStore(server.create_database())
        state = _state()
        store.save(state)
        server.restart()
        store.save(state)
        assert store.load(state.agent_uuid).revision == 2
    finally:
        server.stop()
    started = time.monotonic()
    with pytest.raises(nt.StoreError) as caught:
        store.load(state.agent_uuid)
    assert time.monotonic() - started < 15
    assert PASSWORD not in str(caught.value)
    store.close()


def test_psycopg_is_optional():
    code = textwrap.dedent("""
        import sys
        import notebook_tools as nt
        assert "psycopg" not in sys.modules, "import notebook_tools imported psycopg"
        sys.modules["psycopg"] = None  # as if the [server] extra were not installed
        try:
            nt.PostgresStore("postgresql://u:p@127.0.0.1/db")
        except nt.ConfigurationError as exc:
            print(exc)
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert 'pip install "notebook_tools[server]"' in out.stdout


# -- interleaved saves from two handles behave like the model: compare-and-set on one counter -----


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    ops=st.lists(st.tuples(st.sampled_from([0, 1]), st.sampled_from(["load", "save", "delete"])), max_size=12)
)
def test_interleaved_saves_match_the_model(shared, ops):
    if len(shared.opened) < 2:  # two handles for all examples; each example has its own session
        shared.open(), shared.open()
    stores = shared.opened[:2]
    agent_uuid = str(uuid.uuid4())
    held = [_state(agent_uuid=agent_uuid), _state(agent_uuid=agent_uuid)]
    stored = None  # the model: the stored revision, or None
    for i, op in ops:
        if op == "load":
            loaded = stores[i].load(agent_uuid)
            assert (loaded and loaded.revision) == stored or (loaded is None and stored is None)
            held[i] = loaded or _state(agent_uuid=agent_uuid)
        elif op == "save":
            state = held[i]
            before = state.revision
            state.messages.append({"role": "assistant", "content": f"by {i}"})
            if stored == before or (stored is None and before == 0):
                stores[i].save(state)
                stored = before + 1
                assert state.revision == stored
            else:
                with pytest.raises(nt.StaleSessionError):
                    stores[i].save(state)
                assert state.revision == before
        else:
            stores[i].delete(agent_uuid)
            stored = None
        seen = stores[1 - i].load(agent_uuid)
        assert (None if seen is None else seen.revision) == stored


# -- separate processes: one pause, two answers, exactly one wins; a pause continued elsewhere -----

WORKER = """
import asyncio, json, sys
import notebook_tools as nt
from notebook_tools import testing as t

kind, where = sys.argv[1:3]
store = nt.SQLiteStore(where) if kind == "sqlite" else nt.PostgresStore(where)

def agent(*steps):
    script = t.ScriptedTransport(*steps)
    return nt.Agent(client=script.client(), model="claude-test", frontend_tools=[nt.user_confirm],
                    store=store), script

def answer(content):
    return [nt.ToolResult(tool_use_id="toolu_confirm", content=content)]

def reply(**obj):
    print(json.dumps(obj), flush=True)

held = None
for line in sys.stdin:
    cmd = json.loads(line)
    if cmd["do"] == "pause":
        a, _ = agent(t.turn("Asking.", t.tool_use("user_confirm", {"message": "Drop?"}, id="toolu_confirm")))
        result = asyncio.run(a.run(cmd["prompt"]))
        reply(uuid=result.agent_uuid, stop=result.stop_reason)
    elif cmd["do"] == "load":
        held = agent(t.reply(f"Finished by {cmd['name']}."))
        held[0].load(cmd["uuid"])
        reply(status=held[0].state.status, revision=held[0].state.revision)
    elif cmd["do"] == "answer":
        a, script = held
        try:
            result = asyncio.run(a.resume(answer({"a": "yes", "b": "no"}[cmd["name"]])))
            reply(won=True, text=result.text, sent=len(script.requests))
        except nt.StaleSessionError as exc:
            reply(won=False, error=str(exc), stored=exc.stored, sent=len(script.requests),
                  status=a.state.status)
    elif cmd["do"] == "finish":
        a, script = agent(t.reply(f"Continued by {cmd['name']}."))
        result = asyncio.run(a.resume(answer("yes"), agent_uuid=cmd["uuid"]))
        reply(text=result.text, stop=result.stop_reason, seen=len(script.requests[0]["messages"]))
"""


class Worker:
    """A Python process holding its own store handle, driven one JSON line at a time."""

    def __init__(self, kind, where, name):
        self.name = name
        self.proc = subprocess.Popen([sys.executable, "-c", WORKER, kind, where], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)  # fmt: skip

    def send(self, **cmd):
        self.proc.stdin.write(json.dumps({"name": self.name, **cmd}) + "\n")
        self.proc.stdin.flush()

    def receive(self):
        line = self.proc.stdout.readline()
        if not line:
            raise AssertionError(f"worker {self.name} died:\n{self.proc.stderr.read()}")
        return json.loads(line)

    def ask(self, **cmd):
        self.send(**cmd)
        return self.receive()

    def close(self):
        self.proc.stdin.close()
        self.proc.wait(timeout=30)
        self.proc.stdout.close()
        self.proc.stderr.close()


@pytest.fixture(scope="module", params=["sqlite", "postgres"])
def processes(request, tmp_path_factory):
    """Two worker processes on one SQLite file or PostgreSQL database (started once per module)."""
    if request.param == "postgres":
        where = request.getfixturevalue("postgres_server").create_database("processes")
    else:
        where = str(tmp_path_factory.mktemp("processes") / "s.sqlite")
    shared = Backend(request.param, where)
    pair = [Worker(shared.kind, shared.where, name) for name in ("a", "b")]
    yield shared, pair
    for w in pair:
        w.close()
    shared.close()


def test_two_processes_answer_one_pause_and_exactly_one_wins(processes):
    shared, workers = processes
    store = shared.open()
    wins = {"a": 0, "b": 0}
    for round_ in range(10):
        pauser = workers[round_ % 2]
        paused = pauser.ask(do="pause", prompt=f"round {round_}")
        assert paused["stop"] == "awaiting_frontend_tools"
        loaded = [w.ask(do="load", uuid=paused["uuid"]) for w in workers]  # both hold the pause...
        assert {(o["status"], o["revision"]) for o in loaded} == {
            ("awaiting_frontend_tools", loaded[0]["revision"])
        }
        for w in workers:  # ...before either answers it
            w.send(do="answer")
        outcomes = {w.name: w.receive() for w in workers}
        [winner] = [name for name, o in outcomes.items() if o["won"]]
        [loser] = [name for name, o in outcomes.items() if not o["won"]]
        wins[winner] += 1
        assert outcomes[winner]["text"] == f"Finished by {winner}." and outcomes[winner]["sent"] == 1
        lost = outcomes[loser]
        assert (
            lost["sent"] == 0 and lost["status"] == "awaiting_frontend_tools"
        )  # refused before anything ran
        assert (
            paused["uuid"] in lost["error"] and lost["stored"] is not None and PASSWORD not in lost["error"]
        )
        stored = store.load(paused["uuid"])
        assert (
            stored.status == "idle" and stored.messages[-1]["content"][0]["text"] == f"Finished by {winner}."
        )
        [answer] = [b for m in stored.messages if m["role"] == "user" and isinstance(m["content"], list)
                    for b in m["content"] if b.get("type") == "tool_result"]  # fmt: skip
        mine = {"a": "yes", "b": "no"}[winner]
        assert answer["content"] in (mine, [{"type": "text", "text": mine}])
    assert sum(wins.values()) == 10


def test_a_pause_saved_by_one_process_is_continued_by_another(processes):
    shared, (first, second) = processes
    paused = first.ask(do="pause", prompt="clean the table")
    done = second.ask(do="finish", uuid=paused["uuid"])
    assert done == {"text": "Continued by b.", "stop": "end_turn", "seen": 3}
    stored = shared.open().load(paused["uuid"])
    assert stored.status == "idle" and len(stored.messages) == 4
    assert shared.open().list_sessions()[0] == paused["uuid"]


# -- the test server itself ------------------------------------------------------------------------


def test_without_postgresql_the_tests_fail_and_say_how_to_install_it(monkeypatch):
    from tests.support import pg_server

    monkeypatch.setattr(pg_server, "find_bin", lambda name: None)
    with pytest.raises(pytest.fail.Exception, match=r"Run \./dev check, which installs"):
        pg_server.PgServer()


def test_a_server_left_by_a_killed_test_run_is_stopped_by_the_next(tmp_path):
    code = textwrap.dedent("""
        import sys, time
        sys.path.insert(0, sys.argv[1])
        import tests.support.pg_server as pg_server
        server = pg_server.PgServer()
        print(server.root, server.port, flush=True)
        time.sleep(120)
    """)
    tests_dir = str(Path(__file__).resolve().parents[2])  # the root, where `tests` is a package path
    proc = subprocess.Popen([sys.executable, "-c", code, tests_dir], stdout=subprocess.PIPE, text=True)
    root, port = proc.stdout.readline().split()
    proc.kill()  # SIGKILL: no fixture teardown ran; its server is still up
    proc.wait()
    proc.stdout.close()
    with psycopg.connect(
        host="127.0.0.1", port=port, user="notebook_tools", password=PASSWORD, dbname="postgres"
    ):
        pass
    PgServer().stop()  # the next test run starts by stopping what the killed one left
    deadline = time.monotonic() + 10  # (or another xdist worker, starting its server, got there first)
    while Path(root).exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not Path(root).exists()
    with pytest.raises(psycopg.OperationalError):
        psycopg.connect(host="127.0.0.1", port=port, user="notebook_tools", password=PASSWORD, dbname="postgres",
                        connect_timeout=2)  # fmt: skip
