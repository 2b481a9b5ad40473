"""Hostile review of cassettes: secrets everywhere, odd files, faults while recording, replays that
differ, the pytest fixture's file names and the CLI on bad input."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import anthropic
import pytest
from http_helpers import live_server
from messages_standin import standin_app

import notebook_tools as nt
from notebook_tools import testing as t
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
