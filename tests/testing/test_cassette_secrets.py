"""Secrets in cassettes: the key and configured patterns never reach the file, however a stream is cut."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import anthropic
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import notebook_tools as nt
from notebook_tools import testing as t
from notebook_tools.testing._cassette_file import Secrets
from tests.support.cassette_recorder import KEY, SYSTEM, note, record, replay, run
from tests.support.http_helpers import live_server


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
