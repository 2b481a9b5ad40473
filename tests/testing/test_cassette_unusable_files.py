"""Cassette paths and files that cannot be used are a clear CassetteError, in every mode."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

import notebook_tools as nt
from notebook_tools import testing as t
from notebook_tools.testing._cassette_file import save
from tests.support.cassette_recorder import KEY
from tests.support.cassette_sessions import cli
from tests.support.cassette_sessions import key as key_fixture  # noqa: F401  (the `key` fixture)


def test_a_cassette_path_that_is_a_directory_or_unwritable_is_a_clear_error(tmp_path, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    (tmp_path / "dir.json").mkdir()
    with pytest.raises(nt.CassetteError, match=r"dir\.json"):
        t.Cassette(tmp_path / "dir.json", "record")
    with pytest.raises(nt.CassetteError, match=r"dir\.json"):
        t.Cassette(tmp_path / "dir.json", "replay")
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    try:
        if (locked / "probe").parent.stat().st_mode & 0o200 == 0 and not _can_write(locked):
            with pytest.raises(nt.CassetteError, match="cannot be written"):
                t.Cassette(locked / "c.json", "record")
    finally:
        locked.chmod(0o700)
    with pytest.raises(nt.CassetteError, match="cannot be written"):
        t.Cassette(tmp_path / "no" / "such" / "dir" / "c.json", "record")


def _can_write(directory: Path) -> bool:
    try:
        (directory / "probe").write_text("x")
    except OSError:
        return False
    (directory / "probe").unlink()
    return True


def test_a_failed_save_mid_recording_is_a_cassette_error_and_leaves_no_partial_file(tmp_path, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    cas = t.Cassette(tmp_path / "c.json", "record")
    cas.path = tmp_path / "gone" / "c.json"
    cas.exchanges.append({"request": {}, "response": {"status": 200, "body": {}}})
    with pytest.raises(nt.CassetteError, match="cannot be written"):
        cas.save()
    (tmp_path / "d.json").mkdir()
    cas.path = tmp_path / "d.json"
    with pytest.raises(nt.CassetteError, match="cannot be written"):
        cas.save()
    assert not list(tmp_path.glob("*.partial"))


def test_a_huge_cassette_loads_and_a_wrong_format_version_is_refused(tmp_path):
    path = tmp_path / "big.json"
    exchange = {
        "request": {"messages": [{"role": "user", "content": "x" * 1000}]},
        "response": {"status": 200, "body": {}},
    }
    path.write_text(json.dumps({"notebook_tools_cassette": 1, "exchanges": [exchange] * 5000, "answers": []}))
    assert len(t.Cassette(path, "replay").exchanges) == 5000
    for version in (2, "1", True, None):
        path.write_text(json.dumps({"notebook_tools_cassette": version, "exchanges": []}))
        with pytest.raises(nt.CassetteError, match="not a notebook_tools cassette"):
            t.Cassette(path, "replay")


@pytest.mark.parametrize(
    "events",
    [
        [{"type": "message_stop"}],
        [{"type": "message_start", "message": 5}],
        [
            {"type": "message_start", "message": {}},
            {"type": "content_block_delta", "index": "0", "delta": {}},
        ],
        [{"type": "message_start", "message": {}}, {"type": "content_block_start", "index": 0}],
        [{"type": "message_start", "message": {}}, {"type": "message_delta", "delta": None}],
        "events",
    ],
)
def test_events_the_sdk_would_choke_on_are_refused_at_load_not_raised_from_inside_it(tmp_path, events):
    path = tmp_path / "odd.json"
    exchange = {"request": {}, "response": {"status": 200, "events": events}}
    path.write_text(json.dumps({"notebook_tools_cassette": 1, "exchanges": [exchange], "answers": []}))
    with pytest.raises(nt.CassetteError, match="exchange 1 is not a request with its response"):
        t.Cassette(path, "replay")


def test_a_cassette_too_deeply_nested_for_json_is_a_cassette_error(tmp_path):
    path = tmp_path / "deep.json"
    path.write_text(
        '{"notebook_tools_cassette": 1, "exchanges": [], "x": ' + "[" * 100_000 + "]" * 100_000 + "}"
    )
    with pytest.raises(nt.CassetteError, match="cannot be read as JSON"):
        t.Cassette(path, "replay")
    assert cli("show", str(path))[0] == 1


@pytest.mark.parametrize("mode", ["record", "replay", "auto"])
def test_a_path_no_file_can_have_is_a_cassette_error_in_every_mode(tmp_path, key, mode):
    """Was: OSError (name too long, a folder not to be looked into) from `Path.exists()`, and a NUL
    in the name was accepted until the first save raised ValueError from inside a stream."""
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o000)
    try:
        bad = [tmp_path / ("x" * 300 + ".json"), tmp_path / "a\0b.json"]
        if os.geteuid() != 0:
            bad.append(locked / "c.json")
        for path in bad:
            with pytest.raises(nt.CassetteError, match="cannot be used"):
                t.Cassette(path, mode)
        with pytest.raises(nt.CassetteError, match="cannot be written"):
            save(tmp_path / "a\0b.json", [], [])
    finally:
        locked.chmod(0o700)
