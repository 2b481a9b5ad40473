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
from hypothesis import given, settings
from hypothesis import strategies as st

import notebook_tools as nt
from notebook_tools import testing as t
from notebook_tools.__main__ import main
from notebook_tools.testing._cassette_file import Secrets
from tests.support.http_helpers import live_server
from tests.support.messages_standin import standin_app

pytest_plugins = ["pytester"]

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


# -- faults while recording ---------------------------------------------------------------------------


@pytest.mark.parametrize("status", [429, 500, 529])
def test_http_faults_the_sdk_retries_are_not_recorded_and_the_replay_matches(tmp_path, monkeypatch, status):
    script = t.ScriptedTransport(t.HTTPFault(status), t.HTTPFault(status), t.reply("Fine."), t.reply("Two."))
    path, results, app = record(tmp_path, monkeypatch, script, ["a", "b"])
    assert len(app.state.headers) == 4
    data = json.loads(path.read_text())
    assert [e["response"]["status"] for e in data["exchanges"]] == [200, 200]
    assert replay(path, ["a", "b"]) == results


@pytest.mark.parametrize("fault", [t.DropStream(after_events=3), t.TruncatedStream(after_events=3)])
def test_a_stream_cut_off_while_recording_replays_as_the_agent_saw_it(tmp_path, monkeypatch, fault):
    script = t.ScriptedTransport(fault, t.reply("Whole answer."), t.reply("Two."))
    path, results, _ = record(tmp_path, monkeypatch, script, ["a", "b"])
    assert results[0]["text"] == "Whole answer."
    assert replay(path, ["a", "b"]) == results
    statuses = [e["response"]["status"] for e in json.loads(path.read_text())["exchanges"]]
    assert statuses[-2:] == [200, 200]


def test_a_request_the_api_kept_failing_replays_as_the_same_failure(tmp_path, monkeypatch):
    """The SDK gave up after its retries; the notebook carried on. The replay must give the same error."""
    script = t.ScriptedTransport(*[t.HTTPFault(529)] * 3, t.reply("Later."))
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    path = tmp_path / "c.json"

    async def session(client: anthropic.AsyncAnthropic) -> list[Any]:
        agent = nt.Agent(client=client, system=SYSTEM)
        out: list[Any] = []
        try:
            await agent.run("a")
        except anthropic.APIStatusError as exc:
            out.append(type(exc).__name__)
        out.append((await agent.run("b")).text)
        return out

    with live_server(standin_app(script)) as base:
        recorded = asyncio.run(session(t.Cassette(path, "record").client(base_url=base)))
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    assert recorded[-1] == "Later."
    assert asyncio.run(session(t.Cassette(path, "replay").client())) == recorded
    # auto with a key: the SDK retries the recorded failure; each retry is answered with it again,
    # nothing is re-recorded (no server is running) and the file is unchanged.
    before = path.read_bytes()
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    cas = t.Cassette(path, "auto")
    again = asyncio.run(session(cas.client(base_url="http://127.0.0.1:9")))
    assert again == recorded and cas.mismatch is None and not cas.recording
    assert path.read_bytes() == before


# -- auto, record, several cassettes ------------------------------------------------------------------


def test_auto_without_a_key_replays_and_with_a_key_replays_what_matches_without_the_network(
    tmp_path, monkeypatch
):
    script = t.ScriptedTransport(t.reply("One."), t.reply("Two."))
    path, results, _ = record(tmp_path, monkeypatch, script, ["a", "b"])
    before = path.read_bytes()
    assert asyncio.run(run(t.Cassette(path, "auto").client(), ["a", "b"])) == results
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    cas = t.Cassette(path, "auto")
    assert asyncio.run(run(cas.client(base_url="http://127.0.0.1:9"), ["a", "b"])) == results
    assert path.read_bytes() == before and cas.served == 2


def test_a_replay_making_fewer_requests_says_which_are_unused_and_more_fails(tmp_path, monkeypatch):
    script = t.ScriptedTransport(t.reply("One."), t.reply("Two."), t.reply("Three."))
    path, _, _ = record(tmp_path, monkeypatch, script, ["a", "b", "c"])
    cas = t.Cassette(path, "replay")
    asyncio.run(run(cas.client(), ["a"]))
    assert "requests 2-3 of 3 were not replayed" in cas.unused() and "--after 1" in cas.unused()
    assert cli("prune", str(path), "--after", "1").returncode == 0
    assert replay(path, ["a"])[0]["text"] == "One."
    with pytest.raises(anthropic.BadRequestError, match="nothing was recorded for it"):
        replay(path, ["a", "b"])


def test_record_overwrites_an_existing_cassette_and_two_cassettes_work_at_once(tmp_path, monkeypatch):
    first, _, _ = record(tmp_path, monkeypatch, t.ScriptedTransport(t.reply("Old.")), ["a"], name="one.json")
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    other = tmp_path / "two.json"

    async def both(base_one: str, base_two: str) -> tuple[str, str]:
        one, two = t.Cassette(first, "record"), t.Cassette(other, "record", secrets=[r"ONLY\w+"])
        a = nt.Agent(client=one.client(base_url=base_one), system=SYSTEM)
        b = nt.Agent(client=two.client(base_url=base_two), system=SYSTEM)
        ra, rb = await asyncio.gather(a.run("x"), b.run("y"))
        return ra.text, rb.text

    with (
        live_server(standin_app(t.ScriptedTransport(t.reply("New ONLYTWO."), text_chunk=2))) as one,
        live_server(standin_app(t.ScriptedTransport(t.reply("Other ONLYTWO."), text_chunk=3))) as two,
    ):
        assert asyncio.run(both(one, two)) == ("New ONLYTWO.", "Other ONLYTWO.")
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    assert "Old." not in first.read_text()
    assert replay(first, ["x"])[0]["text"] == "New ONLYTWO."  # each cassette has its own patterns
    assert replay(other, ["y"], secrets=(r"ONLY\w+",))[0]["text"] == "Other [redacted]."


# -- a Chat: answers, approvals, auto re-recording ----------------------------------------------------


@nt.tool(needs_approval=True)
def delete_rows(n: int) -> str:
    """Delete n rows."""
    return f"deleted {n}"


def chat_script(*, reverse: bool = False) -> t.ScriptedTransport:
    calls = [
        t.tool_use("user_confirm", {"message": "Drop?"}),
        t.tool_use("ask_text", {"prompt": "Name?", "default": "n1"}),
        t.tool_use("delete_rows", {"n": 2}),
    ]
    return t.ScriptedTransport(
        t.turn("Several.", *(reversed(calls) if reverse else calls)),
        lambda body: t.reply(f"Got {sorted(map(str, t.answers_in(body).values()))}."),
    )


async def chat_session(client: anthropic.AsyncAnthropic, cas: t.Cassette) -> tuple[nt.Chat, Any, Any]:
    agent = nt.Agent(
        client=client, system=SYSTEM, tools=[delete_rows], frontend_tools=[nt.user_confirm, nt.ask_text]
    )
    chat = nt.Chat(agent)
    user = cas.attach(chat)
    return chat, user, await asyncio.wait_for(chat.send("Go."), 30)


def chat_view(chat: nt.Chat) -> dict[str, Any]:
    prompts = sorted((p["name"], p["status"], json.dumps(p["answer"])) for p in chat.prompts.values())
    return {"messages": chat.agent.state.messages, "prompts": prompts, "errors": list(chat.errors)}


@pytest.mark.parametrize("reverse", [False, True])
def test_several_prompts_and_an_approval_in_one_turn_record_and_replay_through_the_chat(
    tmp_path, monkeypatch, reverse
):
    path = tmp_path / "chat.json"
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    monkeypatch.setenv("NOTEBOOK_TOOLS_SCRIPTED_USER", "1")
    with live_server(standin_app(chat_script(reverse=reverse))) as base:
        cas = t.Cassette(path, "record")
        chat, _, result = asyncio.run(chat_session(cas.client(base_url=base), cas))
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    data = json.loads(path.read_text())
    assert {a["tool"] for a in data["answers"]} == {"user_confirm", "ask_text", "delete_rows"}
    data["answers"].reverse()  # answers kept in another order are still found by their call's id
    path.write_text(json.dumps(data))
    cas = t.Cassette(path, "replay")
    again, replayer, replayed = asyncio.run(chat_session(cas.client(), cas))
    assert isinstance(replayer, nt.CassetteUser)
    assert replayed.text == result.text
    assert chat_view(again) == chat_view(chat)


def test_auto_with_a_key_re_records_a_chat_and_its_new_answers(tmp_path, monkeypatch):
    path = tmp_path / "chat.json"
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    monkeypatch.setenv("NOTEBOOK_TOOLS_SCRIPTED_USER", "1")
    with live_server(standin_app(chat_script())) as base:
        cas = t.Cassette(path, "record")
        asyncio.run(chat_session(cas.client(base_url=base), cas))
    changed = t.ScriptedTransport(
        t.turn("Other.", t.tool_use("ask_text", {"prompt": "Title?", "default": "t2"})),
        lambda body: t.reply(f"Titled {t.answers_in(body)['ask_text']}."),
    )

    async def other(client: anthropic.AsyncAnthropic, cas: t.Cassette) -> Any:
        agent = nt.Agent(client=client, system="Changed.", frontend_tools=[nt.ask_text])
        chat = nt.Chat(agent)
        cas.attach(chat)
        return chat, await asyncio.wait_for(chat.send("Go."), 30)

    with live_server(standin_app(changed)) as base:
        cas = t.Cassette(path, "auto")
        chat, result = asyncio.run(other(cas.client(base_url=base), cas))
    assert cas.recording and result.text == "Titled t2.", chat.errors
    data = json.loads(path.read_text())
    assert [a["tool"] for a in data["answers"]] == ["ask_text"]  # the old tail's answers went with it
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    cas = t.Cassette(path, "replay")
    chat, again = asyncio.run(other(cas.client(), cas))
    assert again.text == "Titled t2." and not chat.errors


# -- the pytest fixture's file names ------------------------------------------------------------------

PARAM_TEST = """
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

@pytest.mark.parametrize("name", ["a/b", "a_b", "a b", "../up", "[x]", "..", "x" * 300, "é", "A", "a"])
def test_p(cassette, name):
    cassette.exchanges.append({"request": {"name": name}, "response": {"status": 200, "body": {}}})
"""


def test_parametrized_names_get_distinct_files_inside_the_cassettes_folder(pytester, monkeypatch):
    pytester.makepyfile(test_names=PARAM_TEST)
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    pytester.runpytest_inprocess("--cassette-mode=record", "-p", "no:cacheprovider").assert_outcomes(
        passed=10
    )
    folder = pytester.path / "cassettes" / "test_names"
    files = sorted(p for p in pytester.path.rglob("*.json"))
    assert all(p.parent == folder for p in files), files
    names = {json.loads(p.read_text())["exchanges"][0]["request"]["name"] for p in files}
    assert len(files) == 10 and len(names) == 10
    assert all(len(p.name) <= 120 for p in files)


# -- properties ---------------------------------------------------------------------------------------


@settings(max_examples=25, deadline=None)
@given(
    before=st.text(max_size=20),
    after=st.text(max_size=20),
    cuts=st.lists(st.integers(min_value=1, max_value=9), min_size=1, max_size=30),
)
def test_a_secret_anywhere_in_a_stream_cut_anywhere_is_removed_and_the_rest_kept(before, after, cuts):
    secret = "sk-ant-api03-" + "PROPERTYKEY" * 3
    whole = before + secret + after
    pieces, at = [], 0
    for size in cuts:
        if at >= len(whole):
            break
        pieces.append(whole[at : at + size])
        at += size
    if at < len(whole):
        pieces.append(whole[at:])
    events = [
        {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": p}}
        for p in pieces
    ]
    secrets = Secrets(values=[secret])
    cleaned = secrets.clean_events(events)
    joined = "".join(e["delta"]["text"] for e in cleaned)
    assert len(cleaned) == len(events)
    assert "PROPERTYKEY" not in joined and "PROPERTYKE" not in "".join(json.dumps(e) for e in cleaned)
    assert joined == secrets.clean(whole)
    assert secrets.clean(joined) == joined


@settings(max_examples=25, deadline=None)
@given(
    value=st.recursive(
        st.text(max_size=10) | st.integers(), lambda c: st.lists(c) | st.dictionaries(st.text(max_size=5), c)
    )
)
def test_cleaning_is_idempotent_on_any_json(value):
    secrets = Secrets([r"red\w*", r"a+"])
    once = secrets.clean(value)
    assert secrets.clean(once) == once


# -- a stream the client abandons, readable differences -----------------------------------------------


async def abandon_then_ask(client: anthropic.AsyncAnthropic) -> list[str]:
    params: dict[str, Any] = {"model": "claude-sonnet-4-6", "max_tokens": 100}
    seen = []
    async with client.messages.stream(messages=[{"role": "user", "content": "long"}], **params) as stream:
        async for event in stream:
            seen.append(event.type)
            if event.type == "content_block_delta":
                break  # the reader stops early (an interrupt, enough read)
    final = await client.messages.create(messages=[{"role": "user", "content": "short"}], **params)
    return [*seen, final.content[0].text]


def test_a_stream_the_client_abandons_is_recorded_as_far_as_it_was_read_and_replays(tmp_path, monkeypatch):
    script = t.ScriptedTransport(t.reply("A long answer " * 20), t.reply("Short."), text_chunk=4)
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    path = tmp_path / "c.json"
    with live_server(standin_app(script)) as base:
        recorded = asyncio.run(abandon_then_ask(t.Cassette(path, "record").client(base_url=base)))
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    assert recorded[-1] == "Short."
    assert asyncio.run(abandon_then_ask(t.Cassette(path, "replay").client())) == recorded


def test_a_difference_deep_in_a_long_message_or_tool_is_shown_where_it_is(tmp_path, monkeypatch):
    long = "x" * 400
    script = t.ScriptedTransport(t.reply("One."))
    path, _, _ = record(tmp_path, monkeypatch, script, [long + " END-A"], tools=[note])
    with pytest.raises(anthropic.BadRequestError) as raised:
        replay(path, [long + " END-B"], tools=[note])
    assert "END-A" in str(raised.value) and "END-B" in str(raised.value)

    @nt.tool(name="note")
    def note_v2(cmd: str) -> str:
        """Note a command, now described otherwise."""
        return "noted"

    with pytest.raises(anthropic.BadRequestError, match="`tools` differs") as raised:
        replay(path, [long + " END-A"], tools=[note_v2])
    assert "now described otherwise" in str(raised.value)


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


@settings(max_examples=25, deadline=None)
@given(
    texts=st.lists(st.text(max_size=300), min_size=1, max_size=6),
    data=st.data(),
)
def test_the_first_differing_message_is_named_and_both_sides_show_the_difference(texts, data):
    from notebook_tools.testing._cassette_file import first_difference

    index = data.draw(st.integers(min_value=0, max_value=len(texts) - 1))
    changed = list(texts)
    changed[index] = texts[index] + "§CHANGED§"
    recorded = {"model": "m", "messages": [{"role": "user", "content": x} for x in texts]}
    sent = {"model": "m", "messages": [{"role": "user", "content": x} for x in changed]}
    said = first_difference(recorded, sent)
    assert said is not None and said.startswith(f"the message at index {index} differs")
    assert "§CHANGED§" in said and first_difference(recorded, recorded) is None


def test_auto_with_a_refused_key_fails_clearly_and_leaves_the_cassette_as_it_was(tmp_path, monkeypatch):
    from starlette.applications import Starlette
    from starlette.responses import JSONResponse
    from starlette.routing import Route

    path, _, _ = record(tmp_path, monkeypatch, t.ScriptedTransport(t.reply("One.")), ["a"])
    before = path.read_bytes()

    async def refuse(request: Any) -> Any:
        error = {"type": "authentication_error", "message": "invalid x-api-key"}
        return JSONResponse({"type": "error", "error": error}, status_code=401)

    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-api03-" + "WRONGKEY" * 4)
    app = Starlette(routes=[Route("/v1/messages", refuse, methods=["POST"])])
    with (
        live_server(app) as base,
        t.Cassette(path, "auto") as cas,
        pytest.raises(anthropic.AuthenticationError),
    ):
        asyncio.run(run(cas.client(base_url=base), ["a", "b"], system="Changed."))
    assert path.read_bytes() == before
