import json
import sqlite3

import pytest

import notebook_tools as nt
from notebook_tools.session._state import SCHEMA_VERSION


def _state(text="hi"):
    return nt.AgentState(messages=[{"role": "user", "content": text}])


@pytest.mark.parametrize("kind", ["memory", "sqlite"])
def test_save_load_list_delete(kind, tmp_path):
    store = nt.InMemoryStore() if kind == "memory" else nt.SQLiteStore(tmp_path / "s.sqlite")
    assert isinstance(store, nt.SessionStore)
    a, b = _state("a"), _state("b")
    store.save(a)
    store.save(b)
    assert store.load(a.agent_uuid) == a
    assert store.load("missing") is None
    assert set(store.list_sessions()) == {a.agent_uuid, b.agent_uuid}
    a.messages.append({"role": "assistant", "content": [{"type": "text", "text": "yo"}]})
    store.save(a)
    assert store.load(a.agent_uuid) == a
    assert store.list_sessions()[0] == a.agent_uuid  # most recently updated first
    store.delete(a.agent_uuid)
    assert store.load(a.agent_uuid) is None


def test_sqlite_uses_wal_one_row_per_session_and_records_the_schema(tmp_path):
    path = tmp_path / "s.sqlite"
    store = nt.SQLiteStore(path)
    state = _state()
    for _ in range(3):
        store.save(state)
    assert store.schema_version == 4  # 4: leases
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert conn.execute("SELECT COUNT(*) FROM sessions").fetchone()[0] == 1
    # a second store on the same file (another process, a restarted kernel) sees the session
    assert nt.SQLiteStore(path).load(state.agent_uuid) == state


def test_sqlite_refuses_a_file_from_a_newer_version(tmp_path):
    path = tmp_path / "s.sqlite"
    nt.SQLiteStore(path).close()
    conn = sqlite3.connect(path)
    conn.execute("UPDATE meta SET value = '99' WHERE key = 'schema_version'")
    conn.commit()
    before = "\n".join(conn.iterdump())
    with pytest.raises(nt.UnsupportedSchemaError, match=r"newer notebook_tools \(store schema 99") as caught:
        nt.SQLiteStore(path)
    assert str(path) in str(caught.value)
    assert "\n".join(conn.iterdump()) == before


# -- one writer per pause: save is compare-and-set on the revision ---------------------------------


def _store(kind, path):
    return nt.InMemoryStore() if kind == "memory" else nt.SQLiteStore(path / "s.sqlite")


@pytest.mark.parametrize("kind", ["memory", "sqlite"])
def test_save_bumps_the_revision_and_load_returns_it(kind, tmp_path):
    store = _store(kind, tmp_path)
    state = _state()
    assert state.revision == 0
    store.save(state)
    assert state.revision == 1
    store.save(state)  # the same state saves again: save moved it to the stored revision
    assert state.revision == 2
    assert store.load(state.agent_uuid).revision == 2


@pytest.mark.parametrize("kind", ["memory", "sqlite"])
def test_of_two_saves_from_the_same_revision_the_first_wins(kind, tmp_path):
    store = _store(kind, tmp_path)
    original = _state()
    store.save(original)
    first, second = store.load(original.agent_uuid), store.load(original.agent_uuid)
    first.messages.append({"role": "assistant", "content": "first"})
    second.messages.append({"role": "assistant", "content": "second"})
    store.save(first)
    before = _dump(store)

    with pytest.raises(nt.StaleSessionError) as caught:
        store.save(second)

    assert _dump(store) == before  # nothing written
    assert second.revision == 1  # and the loser's state is not advanced
    assert store.load(original.agent_uuid) == first
    err = caught.value
    assert (err.agent_uuid, err.expected, err.stored) == (original.agent_uuid, 1, 2)
    message = str(err)
    for part in (original.agent_uuid, repr(store), "revision 1", "revision 2", "agent.load("):
        assert part in message
    # reloading is the way out
    again = store.load(original.agent_uuid)
    again.messages.append({"role": "assistant", "content": "second, after reloading"})
    store.save(again)
    assert again.revision == 3


@pytest.mark.parametrize("kind", ["memory", "sqlite"])
def test_a_new_state_cannot_overwrite_a_saved_one_nor_revive_a_deleted_one(kind, tmp_path):
    store = _store(kind, tmp_path)
    saved = _state()
    store.save(saved)
    impostor = saved.model_copy(update={"revision": 0})  # same agent_uuid, never loaded
    with pytest.raises(nt.StaleSessionError, match=r"revision 0\b.*revision 1\b"):
        store.save(impostor)
    store.delete(saved.agent_uuid)
    with pytest.raises(nt.StaleSessionError, match="deleted"):
        store.save(saved)
    assert store.load(saved.agent_uuid) is None


def _dump(store):
    if isinstance(store, nt.SQLiteStore):
        conn = sqlite3.connect(store.path)
        try:
            return "\n".join(conn.iterdump())
        finally:
            conn.close()
    return repr(store._rows)


def test_sqlite_keeps_the_revision_in_its_own_column(tmp_path):
    store = nt.SQLiteStore(tmp_path / "s.sqlite")
    state = _state()
    store.save(state)
    store.save(state)
    conn = sqlite3.connect(store.path)
    [(column, text)] = conn.execute("SELECT revision, state FROM sessions").fetchall()
    assert column == 2 == json.loads(text)["revision"]


# -- a store that fails clearly --------------------------------------------------------------------


def _write_row(path, agent_uuid, text, revision=0):
    conn = sqlite3.connect(path)
    with conn:
        conn.execute(
            "INSERT OR REPLACE INTO sessions (agent_uuid, state, revision, updated_at) VALUES (?, ?, ?, 0)",
            (agent_uuid, text, revision),
        )
    conn.close()


def _state_json(**changes):
    data = json.loads(_state().model_dump_json())
    data.update(changes)
    return data


@pytest.mark.parametrize(
    ("text", "detail"),
    [
        ("{not json", "not JSON"),
        ("[1, 2]", "not a JSON object with a schema_version"),
        (json.dumps(_state_json(messages="nope")), "messages"),  # pydantic's detail names the field
        (json.dumps(_state_json(surprise=1)), "surprise"),
    ],
)
def test_a_malformed_row_raises_corrupt_session_error(tmp_path, text, detail):
    path = tmp_path / "s.sqlite"
    store = nt.SQLiteStore(path)
    _write_row(path, "broken", text)
    with pytest.raises(nt.CorruptSessionError) as caught:
        store.load("broken")
    message = str(caught.value)
    assert "'broken'" in message and str(path) in message and detail in message
    assert isinstance(caught.value, ValueError)


def test_a_row_under_another_agent_uuid_is_corrupt(tmp_path):
    path = tmp_path / "s.sqlite"
    store = nt.SQLiteStore(path)
    _write_row(path, "mine", _state().model_dump_json())
    with pytest.raises(nt.CorruptSessionError, match="holds session"):
        store.load("mine")


def test_a_row_from_a_newer_state_schema_is_refused(tmp_path):
    path = tmp_path / "s.sqlite"
    store = nt.SQLiteStore(path)
    data = _state_json(schema_version=SCHEMA_VERSION + 1, some_new_field=[1])
    _write_row(path, data["agent_uuid"], json.dumps(data))
    with pytest.raises(nt.UnsupportedSchemaError, match=rf"state schema {SCHEMA_VERSION + 1}") as caught:
        store.load(data["agent_uuid"])
    assert data["agent_uuid"] in str(caught.value) and str(path) in str(caught.value)
    # even when the row would validate as this version's AgentState
    newer = _state_json(schema_version=SCHEMA_VERSION + 1)
    _write_row(path, newer["agent_uuid"], json.dumps(newer))
    with pytest.raises(nt.UnsupportedSchemaError):
        store.load(newer["agent_uuid"])


def test_a_schema_1_state_loads_migrated_with_the_rows_revision(tmp_path):
    path = tmp_path / "s.sqlite"
    store = nt.SQLiteStore(path)
    data = _state_json(schema_version=1)
    del data["revision"]  # schema 1 had no revision
    _write_row(path, data["agent_uuid"], json.dumps(data), revision=4)

    state = store.load(data["agent_uuid"])

    assert state.schema_version == SCHEMA_VERSION and state.revision == 4
    assert state.messages == data["messages"]
    store.save(state)  # written back at this version
    assert json.loads(sqlite3.connect(path).execute("SELECT state FROM sessions").fetchone()[0]) == {
        **data,
        "schema_version": SCHEMA_VERSION,
        "revision": 5,
    }


def test_every_older_version_has_a_migration():
    from notebook_tools.stores._sqlite import _FILE_MIGRATIONS, STORE_SCHEMA_VERSION
    from notebook_tools.stores._store import _STATE_MIGRATIONS

    assert set(_STATE_MIGRATIONS) == set(range(1, SCHEMA_VERSION))
    assert set(_FILE_MIGRATIONS) == set(range(1, STORE_SCHEMA_VERSION))


# The tables of the older store files, as `git show HEAD:notebook_tools/_store.py` (commit cf23e14) and
# its first version (5f013cc) created them: version 1 had no audit table, version 2 no revision column.
_OLD_FILES = {
    1: (
        "CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
        "CREATE TABLE IF NOT EXISTS sessions ( agent_uuid TEXT PRIMARY KEY, state TEXT NOT NULL, updated_at REAL NOT NULL)",
        "INSERT INTO meta (key, value) VALUES ('schema_version', '1')",
    ),
    2: (
        "CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
        "CREATE TABLE IF NOT EXISTS sessions ( agent_uuid TEXT PRIMARY KEY, state TEXT NOT NULL, updated_at REAL NOT NULL)",
        "CREATE TABLE IF NOT EXISTS audit (id INTEGER PRIMARY KEY AUTOINCREMENT,"
        " agent_uuid TEXT NOT NULL, time REAL NOT NULL, record TEXT NOT NULL)",
        "INSERT OR REPLACE INTO meta (key, value) VALUES ('schema_version', '2')",
    ),
}


@pytest.mark.parametrize("version", [1, 2])
def test_an_older_store_file_is_migrated_to_the_latest_keeping_its_rows(tmp_path, version):
    path = tmp_path / "old.sqlite"
    conn = sqlite3.connect(path)
    for statement in _OLD_FILES[version]:
        conn.execute(statement)
    old = _state_json(schema_version=1)
    del old["revision"]
    conn.execute(
        "INSERT INTO sessions (agent_uuid, state, updated_at) VALUES (?, ?, 1.0)",
        (old["agent_uuid"], json.dumps(old)),
    )
    records = []
    if version == 2:
        records.append(
            nt.AuditRecord(
                agent_uuid=old["agent_uuid"], tool_use_id="t", tool="drop", arguments={}, decision="approved"
            )
        )
        conn.execute(
            "INSERT INTO audit (agent_uuid, time, record) VALUES (?, ?, ?)",
            (records[0].agent_uuid, records[0].time, records[0].model_dump_json()),
        )
    conn.commit()
    conn.close()

    store = nt.SQLiteStore(path)

    assert store.schema_version == 4
    state = store.load(old["agent_uuid"])
    assert state.revision == 0 and state.messages == old["messages"]
    assert store.audit_log() == records
    store.save(state)
    assert store.load(old["agent_uuid"]).revision == 1
    columns = [r[1] for r in sqlite3.connect(path).execute("PRAGMA table_info(sessions)")]
    assert columns == ["agent_uuid", "state", "updated_at", "revision"]


def test_a_store_file_that_is_not_ours_is_refused_and_left_alone(tmp_path):
    path = tmp_path / "other.sqlite"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE things (x)")
    conn.commit()
    conn.close()
    with pytest.raises(nt.UnsupportedSchemaError, match="not a notebook_tools session store"):
        nt.SQLiteStore(path)
    tables = sqlite3.connect(path).execute("SELECT name FROM sqlite_master").fetchall()
    assert tables == [("things",)]
