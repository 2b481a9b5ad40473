"""How a replay matches requests to the recording as strictly as the API, naming the first difference."""

from __future__ import annotations

import asyncio
import json
import os
from typing import Any

import anthropic
import httpx2
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

import notebook_tools as nt
from notebook_tools import testing as t
from tests.support.cassette_recorder import note, record, replay
from tests.support.cassette_sessions import KEY, cli, session
from tests.support.cassette_sessions import key as key_fixture  # noqa: F401  (the `key` fixture)
from tests.support.http_helpers import live_server
from tests.support.messages_standin import standin_app

PARAMS: dict[str, Any] = {
    "model": "claude-sonnet-4-6",
    "max_tokens": 100,
    "messages": [{"role": "user", "content": "hi"}],
    "tools": [
        {"name": "a", "description": "A.", "input_schema": {"type": "object"}},
        {"name": "b", "description": "B.", "input_schema": {"type": "object"}},
    ],
    "tool_choice": {"type": "auto"},
    "metadata": {"user_id": "u1"},
    "stop_sequences": ["STOP"],
}


async def create(client: anthropic.AsyncAnthropic, times: int = 1, **changed: Any) -> list[str]:
    out = []
    for _ in range(times):
        params = {**PARAMS, **changed}
        core = {k: params.pop(k) for k in ("model", "max_tokens", "messages")}
        async with client.messages.stream(**core, extra_body=params) as stream:  # (any field, as sent)
            out.append((await stream.get_final_message()).content[0].text)  # type: ignore[union-attr]
    return out


@pytest.mark.parametrize(
    ("changed", "named"),
    [
        ({"max_tokens": 101}, "`max_tokens` differs"),
        ({"tool_choice": {"type": "any"}}, "`tool_choice` differs"),
        ({"temperature": 0.5}, "`temperature` differs: recorded (nothing), sent 0.5"),
        ({"metadata": {"user_id": "u2"}}, "`metadata` differs"),
        ({"tools": PARAMS["tools"][::-1]}, '`tools` differs: the tool "a" (index 0)'),
        ({"model": "claude-opus-4-1", "max_tokens": 5}, "`model` differs"),
        ({"stop_sequences": ["STOP", "END"]}, "`stop_sequences` differs"),
        ({"top_k": 5, "top_p": 0.5}, "`top_k` differs"),
    ],
)
def test_any_changed_parameter_is_refused_naming_the_first_differing_field(tmp_path, key, changed, named):
    path = tmp_path / "c.json"
    with live_server(standin_app(t.ScriptedTransport(t.reply("Once.")))) as base:
        asyncio.run(create(t.Cassette(path, "record").client(base_url=base)))
    os.environ.pop("ANTHROPIC_API_KEY")
    assert asyncio.run(create(t.Cassette(path, "replay").client())) == ["Once."]
    cas = t.Cassette(path, "replay")
    with pytest.raises(anthropic.BadRequestError) as raised:
        asyncio.run(create(cas.client(), **changed))
    assert cas.mismatch is not None and cas.mismatch.difference.startswith(named), cas.mismatch.difference
    assert named in str(raised.value)


def test_the_same_request_made_more_often_than_recorded_is_refused(tmp_path, key):
    path = tmp_path / "c.json"
    with live_server(standin_app(t.ScriptedTransport(t.reply("One."), t.reply("Two.")))) as base:
        asyncio.run(create(t.Cassette(path, "record").client(base_url=base), times=2))
    os.environ.pop("ANTHROPIC_API_KEY")
    assert asyncio.run(create(t.Cassette(path, "replay").client(), times=2)) == ["One.", "Two."]
    cas = t.Cassette(path, "replay")
    with pytest.raises(
        anthropic.BadRequestError, match="request 3 is not the one recorded: nothing was recorded"
    ):
        asyncio.run(create(cas.client(), times=3))


@pytest.mark.parametrize(
    ("changed", "named"),
    [
        ({"metadata": {"user_id": "u1", "x": None}}, '`metadata` differs: recorded {"user_id": "u1"}'),
        ({"tool_choice": {"type": "auto", "disable_parallel_tool_use": 0}}, "`tool_choice` differs"),
        ({"max_tokens": 100.0}, "`max_tokens` differs: recorded 100, sent 100.0"),
    ],
)
def test_values_python_calls_equal_but_json_does_not_are_refused(changed, named):
    """Was: `==` compared them, so `false` replayed as `0`, `100.0` as `100`; and a field recorded as
    null but now absent was no difference at all (first_difference returned None for unequal requests)."""
    from notebook_tools.testing._cassette_file import first_difference

    recorded = {**PARAMS, "tool_choice": {"type": "auto", "disable_parallel_tool_use": False}}
    if "tool_choice" not in changed:
        recorded = dict(PARAMS)
    said = first_difference(recorded, {**recorded, **changed})
    assert said is not None and said.startswith(named), said
    assert first_difference({"a": None}, {}) == "`a` differs: recorded null, sent (nothing)"
    nan = {"messages": [{"role": "user", "content": [{"type": "text", "text": "x", "n": float("nan")}]}]}
    assert first_difference(nan, json.loads(json.dumps(nan))) is None


def test_requests_to_other_endpoints_are_told_apart_and_a_body_that_is_not_json_is_refused(tmp_path, key):
    """Was: only the body was compared, so `models.retrieve("b")` replayed what `models.retrieve("a")`
    got (both send no body); and a file upload died as "Connection error." after the SDK's retries."""

    async def model(request: Request) -> Response:
        name = request.path_params["name"]
        return Response(
            json.dumps(
                {
                    "type": "model",
                    "id": name,
                    "display_name": name.upper(),
                    "created_at": "2025-01-01T00:00:00Z",
                }
            ),
            media_type="application/json",
        )

    async def fetch(client: anthropic.AsyncAnthropic, name: str) -> str:
        return (await client.models.retrieve(name)).display_name

    app = Starlette(routes=[Route("/v1/models/{name}", model, methods=["GET"])])
    path = tmp_path / "c.json"
    with live_server(app) as base:
        assert asyncio.run(fetch(t.Cassette(path, "record").client(base_url=base), "a")) == "A"
    os.environ.pop("ANTHROPIC_API_KEY")
    assert asyncio.run(fetch(t.Cassette(path, "replay").client(), "a")) == "A"
    cas = t.Cassette(path, "replay")
    with pytest.raises(anthropic.BadRequestError, match="`\\(endpoint\\)` differs"):
        asyncio.run(fetch(cas.client(), "b"))
    assert "GET /v1/models/a" in cli("show", str(path))[1]
    with pytest.raises(anthropic.BadRequestError, match="records requests with a JSON body"):
        asyncio.run(cas.client().beta.files.upload(file=("a.txt", b"hello", "text/plain")))


def test_client_options_that_record_also_replay_and_the_cassettes_own_are_refused_clearly(tmp_path, key):
    """Was: `cas.client(max_retries=5)` recorded fine and replayed with TypeError (max_retries given
    twice); `cas.client(api_key=...)` raised TypeError in every mode."""
    path = tmp_path / "c.json"
    with live_server(standin_app(t.ScriptedTransport(t.reply("Opts.")))) as base:
        cas = t.Cassette(path, "record")
        assert asyncio.run(session(cas.client(base_url=base, max_retries=5, timeout=30), ["hi"]))[0] == [
            "Opts."
        ]
    os.environ.pop("ANTHROPIC_API_KEY")
    cas = t.Cassette(path, "replay")
    assert asyncio.run(session(cas.client(max_retries=5, timeout=30), ["hi"]))[0] == ["Opts."]
    for taken in ({"api_key": KEY}, {"http_client": httpx2.AsyncClient()}):
        with pytest.raises(nt.ConfigurationError, match=r"sets .* itself"):
            cas.client(**taken)


def test_the_beta_features_a_request_asks_for_are_part_of_it(tmp_path, key):
    """Was: headers were never compared, so a request asking for other beta features (or none)
    replayed what was recorded for the old list. The `anthropic-beta` list is recorded and compared."""
    path = tmp_path / "c.json"
    beta = {"anthropic-beta": "context-1m-2025-08-07, files-api-2025-04-14"}
    with live_server(standin_app(t.ScriptedTransport(t.reply("With betas.")))) as base:
        recorded = asyncio.run(
            session(t.Cassette(path, "record").client(base_url=base, default_headers=beta), ["hi"])
        )
    [exchange] = json.loads(path.read_text())["exchanges"]
    assert exchange["request"]["(anthropic-beta)"] == ["context-1m-2025-08-07", "files-api-2025-04-14"]
    swapped = {"anthropic-beta": "files-api-2025-04-14,context-1m-2025-08-07"}  # the same list
    assert (
        asyncio.run(session(t.Cassette(path, "replay").client(default_headers=swapped), ["hi"])) == recorded
    )
    for headers in ({}, {"anthropic-beta": "files-api-2025-04-14"}):
        with pytest.raises(anthropic.BadRequestError, match="anthropic-beta"):
            asyncio.run(session(t.Cassette(path, "replay").client(default_headers=headers), ["hi"]))


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
