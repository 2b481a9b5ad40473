"""Hostile review of cassettes: secrets everywhere, odd files, faults while recording, replays that
differ, the pytest fixture's file names and the CLI on bad input."""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import anthropic
import pytest
from http_helpers import live_server
from messages_standin import standin_app

import notebook_tools as nt
from notebook_tools import testing as t
from notebook_tools.__main__ import main
from notebook_tools.testing._cassette_file import Secrets

KEY = "sk-ant-api03-" + "REVIEWKEY" * 5
SYSTEM = "You review."


def record(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    script: t.ScriptedTransport,
    prompts: list[str],
    *,
    name: str = "c.json",
    secrets: tuple[str, ...] = (),
    system: str = SYSTEM,
    key: str = KEY,
    tools: list[Any] | None = None,
) -> tuple[Path, list[Any], Any]:
    """Record `prompts` (one run each) against the stand-in serving `script`."""
    monkeypatch.setenv("ANTHROPIC_API_KEY", key)
    path = tmp_path / name
    app = standin_app(script)
    try:
        with live_server(app) as base:
            cas = t.Cassette(path, "record", secrets=secrets)
            results = asyncio.run(run(cas.client(base_url=base), prompts, system, tools))
    finally:
        monkeypatch.delenv("ANTHROPIC_API_KEY")
    return path, results, app


async def run(
    client: anthropic.AsyncAnthropic, prompts: list[str], system: str = SYSTEM, tools: list[Any] | None = None
) -> list[Any]:
    agent = nt.Agent(client=client, system=system, tools=tools or [])
    out = []
    for prompt in prompts:
        result = await agent.run(prompt)
        out.append(result.model_dump(exclude={"agent_uuid"}))
    out.append({"messages": agent.state.messages})
    return out


def replay(
    path: Path,
    prompts: list[str],
    system: str = SYSTEM,
    tools: list[Any] | None = None,
    secrets: tuple[str, ...] = (),
) -> list[Any]:
    cas = t.Cassette(path, "replay", secrets=secrets)
    return asyncio.run(run(cas.client(), prompts, system, tools))


# -- secrets ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("chunk", [1, 3, 8, 16, 20, 33])
def test_the_key_in_model_output_never_reaches_the_file_whatever_the_delta_size(tmp_path, monkeypatch, chunk):
    text = f"Here it is: {KEY} and again {KEY}."
    script = t.ScriptedTransport(t.reply(text), text_chunk=chunk)
    path, _results, _ = record(tmp_path, monkeypatch, script, ["hi"])
    raw = path.read_text()
    assert "REVIEWKEY" not in raw and "EVIEWKE" not in raw, raw
    again = replay(path, ["hi"])
    assert again == json.loads(json.dumps(again))
    assert "REVIEWKEY" not in json.dumps(again)


@pytest.mark.parametrize("chunk", [1, 5, 12, 40])
def test_a_configured_secret_split_across_deltas_never_reaches_the_file(tmp_path, monkeypatch, chunk):
    secret = "ghp_" + "Q" * 30
    script = t.ScriptedTransport(t.reply(f"token {secret} end"), text_chunk=chunk)
    path, _, _ = record(tmp_path, monkeypatch, script, ["hi"], secrets=(r"ghp_[A-Za-z0-9]{20,}",))
    assert "QQQQ" not in path.read_text()
    assert replay(path, ["hi"], secrets=(r"ghp_[A-Za-z0-9]{20,}",))[0]["text"] == "token [redacted] end"


@nt.tool
def run_command(cmd: str) -> str:
    """Run a shell command."""
    return f"ran {cmd}; the server said token={KEY}"


def test_a_key_in_tool_input_deltas_and_tool_results_and_system_is_redacted_and_replays(
    tmp_path, monkeypatch
):
    script = t.ScriptedTransport(
        t.turn("Running.", t.tool_use("run_command", {"cmd": f"curl -H 'x-api-key: {KEY}' api"})),
        t.reply("Done."),
        json_chunk=7,
    )
    system = f"{SYSTEM} The key is {KEY}."
    path, results, _app = record(tmp_path, monkeypatch, script, ["go"], system=system, tools=[run_command])
    raw = path.read_text()
    assert "REVIEWKEY" not in raw and "[redacted]" in raw
    # The replay has no key: its system prompt says "[redacted]" only if the notebook wrote it so;
    # with the same text the request is cleaned to the same recorded one.
    again = replay(path, ["go"], system=system, tools=[run_command])
    assert again[0]["text"] == results[0]["text"] == "Done."
    calls = [b for m in again[-1]["messages"] if isinstance(m["content"], list) for b in m["content"]]
    assert any(
        b.get("type") == "tool_use" and b["input"]["cmd"] == "curl -H 'x-api-key: [redacted]' api"
        for b in calls
    )


@nt.tool
def note(cmd: str) -> str:
    """Note a command."""
    return "noted"


def test_a_greedy_pattern_in_tool_input_keeps_the_recorded_json_parseable(tmp_path, monkeypatch):
    script = t.ScriptedTransport(
        t.turn(t.tool_use("note", {"cmd": "login password=hunter22"})), t.reply("Done."), json_chunk=3
    )
    path, _results, _ = record(
        tmp_path, monkeypatch, script, ["go"], secrets=(r"password=\S+",), tools=[note]
    )
    assert "hunter22" not in path.read_text()
    again = replay(path, ["go"], tools=[note], secrets=(r"password=\S+",))
    assert again[0]["text"] == "Done."
    tool_use = again[-1]["messages"][1]["content"][0]
    assert tool_use["input"] == {"cmd": "login [redacted]"}


def test_patterns_that_match_nothing_or_match_the_redaction_itself_are_harmless(tmp_path, monkeypatch):
    script = t.ScriptedTransport(t.reply(f"key {KEY} here"), t.reply("More."))
    patterns = (r"z{0}", r"(?:)", r"red\w+", r"(?i)REDACTED")
    path, _results, _ = record(tmp_path, monkeypatch, script, ["a", "b"], secrets=patterns)
    raw = path.read_text()
    assert "REVIEWKEY" not in raw and "[[" not in raw
    assert replay(path, ["a", "b"], secrets=patterns)[1]["text"] == "More."  # request 2 carries "[redacted]"
    secrets = Secrets([r"z{0}", r"red\w+"])
    assert secrets.clean("max [redacted] reddish") == "max [redacted] [redacted]"
    assert secrets.clean(secrets.clean("reddish")) == secrets.clean("reddish")


def test_an_invalid_pattern_is_a_configuration_error(tmp_path, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    with pytest.raises(nt.ConfigurationError, match="not a regular expression"):
        t.Cassette(tmp_path / "c.json", "record", secrets=["(unclosed"])


def test_error_bodies_headers_and_base_url_userinfo_never_reach_the_file(tmp_path, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    seen: list[dict[str, str]] = []
    from starlette.applications import Starlette
    from starlette.responses import JSONResponse
    from starlette.routing import Route

    async def messages(request: Any) -> Any:
        seen.append(dict(request.headers))
        error = {
            "type": "invalid_request_error",
            "message": f"bad key {KEY} from {request.headers.get('authorization')}",
        }
        return JSONResponse({"type": "error", "error": error}, status_code=400)

    app = Starlette(routes=[Route("/v1/messages", messages, methods=["POST"])])
    path = tmp_path / "c.json"
    with live_server(app) as base:
        userinfo = base.replace("http://", "http://alice:pa55w0rd-userinfo@")
        monkeypatch.setenv("ANTHROPIC_BASE_URL", userinfo)
        cas = t.Cassette(path, "record")
        client = cas.client(default_headers={"X-Custom": "custom-secret-header-value"})
        with pytest.raises(anthropic.BadRequestError):
            asyncio.run(run(client, ["hi"]))
    raw = path.read_text()
    for leak in ("REVIEWKEY", "pa55w0rd", "alice", "custom-secret", "Basic"):
        assert leak not in raw, leak
    assert json.loads(raw)["exchanges"][0]["response"]["status"] == 400


def test_a_short_key_never_reaches_the_file(tmp_path, monkeypatch):
    short = "k3y9"
    script = t.ScriptedTransport(t.reply(f"your key is {short}"))
    with pytest.raises(nt.ConfigurationError, match="too short"):
        record(tmp_path, monkeypatch, script, ["hi"], key=short)
    assert not (tmp_path / "c.json").exists()


# -- odd files ----------------------------------------------------------------------------------------


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    """`python -m notebook_tools cassette ARGS`, in this process (a traceback would raise here)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["cassette", *args])
    return subprocess.CompletedProcess(args, code, out.getvalue(), err.getvalue())


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


def test_unicode_emoji_and_carriage_returns_replay_byte_identically(tmp_path, monkeypatch):
    text = 'Zeile 1\r\nZeile 2\rdrei 🎉👩‍👩‍👧 \u2028 \x00 \\n "q" \ud7ff end'
    script = t.ScriptedTransport(t.reply(text), t.reply("é" * 3), text_chunk=1)
    path, results, _ = record(tmp_path, monkeypatch, script, ["a", "b"])
    assert results[0]["text"] == text
    assert replay(path, ["a", "b"]) == results


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
