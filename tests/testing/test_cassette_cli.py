"""The `cassette` command (show, prune) on missing, broken, odd and good files: never a traceback."""

from __future__ import annotations

import contextlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

import notebook_tools as nt
from notebook_tools import testing as t
from tests.support.cassette_recorder import cli, note, record


def test_the_cassette_command_runs_as_a_module(tmp_path):
    done = subprocess.run(
        [sys.executable, "-m", "notebook_tools", "cassette", "show", str(tmp_path / "missing.json")],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1 and "Traceback" not in done.stderr and "missing.json" in done.stderr


def good_cassette(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    script = t.ScriptedTransport(
        t.turn("Let me note.", t.tool_use("note", {"cmd": "ls"})), t.reply("Noted 🎉\r\nline two\u2028 ok.")
    )
    path, _, _ = record(tmp_path, monkeypatch, script, ["go"], tools=[note], name="good.json")
    return path


def test_show_and_prune_on_a_missing_or_non_json_file_say_so_without_a_traceback(tmp_path):
    (tmp_path / "bad.json").write_text("{nope")
    (tmp_path / "latin.json").write_bytes(b'{"notebook_tools_cassette": 1, "x": "\xff"}')
    (tmp_path / "dir.json").mkdir()
    for name in ("missing.json", "bad.json", "latin.json", "dir.json"):
        for action in ("show", "prune"):
            done = cli(action, str(tmp_path / name))
            assert done.returncode != 0 and "Traceback" not in done.stderr, done.stderr
            assert name in done.stderr


ODD_EVENTS = [
    [1],
    ["text"],
    [{"type": 5}],
    [{"type": "content_block_start"}],
    [{"type": "content_block_start", "index": 0, "content_block": "x"}],
    [{"type": "content_block_start", "index": [0], "content_block": {"type": "text", "text": ""}}],
    [{"type": "content_block_delta", "index": 0, "delta": "x"}],
    [{"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": 5}}],
    [{"type": "content_block_delta", "index": 0, "delta": {"partial_json": ["x"]}}],
    [{"type": "content_block_start", "index": 0, "content_block": {"type": "tool_use", "name": 1}}],
    [{"type": "message_delta", "delta": "x"}],
]


@pytest.mark.parametrize("events", ODD_EVENTS)
def test_odd_shapes_deep_inside_events_are_refused_at_load_or_shown_without_a_traceback(tmp_path, events):
    path = tmp_path / "odd.json"
    request = {"model": "m", "messages": [{"role": "user", "content": "hi"}], "tools": [{"name": "x"}]}
    data = {
        "notebook_tools_cassette": 1,
        "exchanges": [{"request": request, "response": {"status": 200, "events": events}}],
        "answers": [],
    }
    path.write_text(json.dumps(data))
    with contextlib.suppress(nt.CassetteError):  # refused at load: fine
        t.Cassette(path, "replay")
    for action in ("show", "prune"):
        done = cli(action, str(path))
        assert "Traceback" not in done.stderr, done.stderr


@pytest.mark.parametrize(
    "request_body",
    [
        {"messages": "hi"},
        {"messages": [1, "x", {"role": "user", "content": 5}]},
        {"messages": [{"role": "user", "content": [1, {"type": "text"}, {"type": "tool_result"}]}]},
        {"tools": "x", "system": 5},
        {"tools": [1, {"name": ["x"]}], "system": [{"type": "text"}]},
    ],
)
def test_odd_requests_and_answers_show_and_prune_without_a_traceback(tmp_path, request_body):
    path = tmp_path / "odd.json"
    data = {
        "notebook_tools_cassette": 1,
        "exchanges": [{"request": request_body, "response": {"status": 400, "body": "x"}}],
        "answers": [{"tool_use_id": "a", "answer": 1}],
    }
    path.write_text(json.dumps(data))
    for action in ("show", "prune"):
        done = cli(action, str(path))
        assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr


def test_show_prints_unicode_and_prune_keeps_what_is_used(tmp_path, monkeypatch):
    path = good_cassette(tmp_path, monkeypatch)
    done = cli("show", str(path))
    assert done.returncode == 0 and "Noted 🎉" in done.stdout and "[calls note" in done.stdout
    done = cli("prune", str(path))
    assert done.returncode == 0 and "dropped 0 exchanges and 0 answers" in done.stdout
    done = cli("prune", str(path), "--after", "-1")
    assert done.returncode != 0 and "Traceback" not in done.stderr
    assert len(json.loads(path.read_text())["exchanges"]) == 2
