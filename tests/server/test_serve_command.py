"""The `serve` command and store URLs: loopback by default, bad settings refused before workers start."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import notebook_tools as nt
from notebook_tools.server import store_from_url
from tests.support.http_helpers import TOKEN

AGENT_SPEC = "server_agents:confirm_agent"


@pytest.fixture
def fake_uvicorn(monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    import uvicorn

    called: dict[str, Any] = {}
    monkeypatch.setattr(uvicorn, "run", lambda *a, **k: called.update(args=a, **k))
    for name in ("NOTEBOOK_TOOLS_SERVER_AGENT", "NOTEBOOK_TOOLS_SERVER_STORE", "NOTEBOOK_TOOLS_SERVER_HOLD"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("NOTEBOOK_TOOLS_SERVER_TOKEN", TOKEN)
    return called


@pytest.mark.parametrize("store", ["memory", "", "sqlite:", "sqlite::memory:"])
def test_serve_refuses_several_workers_on_a_store_they_cannot_share(store: str, fake_uvicorn: dict[str, Any]):
    from notebook_tools.server import serve

    with pytest.raises(nt.ConfigurationError):
        serve(AGENT_SPEC, workers=3, store=store)
    assert fake_uvicorn == {}


def test_an_empty_sqlite_path_is_refused_not_a_private_temporary_database():
    with pytest.raises(nt.ConfigurationError):
        store_from_url("sqlite:")


@pytest.mark.parametrize(
    ("url", "kind"),
    [
        ("memory", nt.InMemoryStore),
        ("sqlite:{tmp}/a.sqlite", nt.SQLiteStore),
        ("sqlite:///{tmp}/b.sqlite", nt.SQLiteStore),
    ],
)
def test_store_urls(url: str, kind: type, tmp_path: Any):
    store = store_from_url(url.format(tmp=tmp_path))
    assert isinstance(store, kind)
    if isinstance(store, nt.SQLiteStore):
        assert Path(store.path).resolve().parent == tmp_path.resolve()


@pytest.mark.parametrize(
    "url",
    [
        "mysql://root:hunter2-secret@db/x",
        "redis://:hunter2-secret@h",
        "postgresql://u:hunter2-secret@127.0.0.1:1/x",
    ],
)
def test_a_bad_store_url_is_refused_without_echoing_its_password(url: str):
    with pytest.raises(Exception) as raised:
        store_from_url(url)
    assert "hunter2" not in str(raised.value)


def test_serve_binds_loopback_by_default_and_warns_for_another_host(fake_uvicorn: dict[str, Any], capsys):
    from notebook_tools.server import serve

    serve(AGENT_SPEC)
    assert fake_uvicorn["host"] == "127.0.0.1"
    err = capsys.readouterr().err
    assert TOKEN not in err and "reachable" not in err
    serve(AGENT_SPEC, host="0.0.0.0")
    assert "reachable from other machines" in capsys.readouterr().err
    serve(AGENT_SPEC, host="::1")
    assert "reachable" not in capsys.readouterr().err


def test_serve_refuses_a_short_token_before_starting_workers(fake_uvicorn: dict[str, Any], monkeypatch):
    from notebook_tools.server import serve

    monkeypatch.setenv("NOTEBOOK_TOOLS_SERVER_TOKEN", "short")
    with pytest.raises(nt.ConfigurationError):
        serve(AGENT_SPEC, workers=2, store="sqlite:/tmp/never-made.sqlite")
    assert fake_uvicorn == {}


def test_serve_refuses_a_bad_agent_spec_before_starting(fake_uvicorn: dict[str, Any]):
    from notebook_tools.server import serve

    for spec in ("server_agents:SYSTEM", "server_agents", "server_agents:nope", "../../etc/passwd:x", ":x"):
        with pytest.raises(nt.ConfigurationError):
            serve(spec)
    assert fake_uvicorn == {}
