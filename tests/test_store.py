import sqlite3

import pytest

import notebook_tools as nt


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
    assert store.schema_version == 2
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
    with pytest.raises(RuntimeError, match="newer notebook_tools"):
        nt.SQLiteStore(path)
