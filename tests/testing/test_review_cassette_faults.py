"""Hostile review of cassettes, second round: faults at every await point (a Stop, a dropped or cut
stream), files two writers share or a person edits by hand, a replay that must be as strict as the
API, and secrets hidden where the first review did not look."""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
import multiprocessing
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anthropic
import httpx2
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

import notebook_tools as nt
from notebook_tools import testing as t
from notebook_tools.__main__ import main
from notebook_tools.api._rules import history_errors
from notebook_tools.testing._cassette_file import Secrets, events_of, load, save
from tests.support.http_helpers import live_server
from tests.support.messages_standin import standin_app

pytest_plugins = ["pytester"]

KEY = "sk-ant-api03-" + "FAULTKEY" * 5
SYSTEM = "You review faults."


@pytest.fixture
def key(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    yield
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)


def cli(*args: str) -> tuple[int, str, str]:
    """`python -m notebook_tools cassette ARGS`, in this process (a traceback would raise here)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["cassette", *args])
    return code, out.getvalue(), err.getvalue()


def comparable(events: list[Any]) -> list[dict[str, Any]]:
    out = []
    for event in events:
        data = event.model_dump(mode="json", exclude={"time", "agent_uuid"})
        data.pop("duration", None)
        for pending in data.get("pending", []):
            pending.pop("requested_at", None)
        out.append(data)
    return out


def scripted_events(*turns: t.Turn, text_chunk: int = 4) -> list[list[dict[str, Any]]]:
    """The SSE events a scripted model streams for each of `turns` (to serve by hand)."""
    script = t.ScriptedTransport(*turns, text_chunk=text_chunk)
    out = []
    for _ in turns:
        body = {"model": "m", "max_tokens": 9, "stream": True, "messages": [{"role": "user", "content": "x"}]}
        served = asyncio.run(script.handle(httpx2.Request("POST", "http://x/v1/messages", json=body)))
        out.append(events_of(asyncio.run(served.aread())))
    return out


def sse(events: list[dict[str, Any]]) -> bytes:
    return b"".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n".encode() for e in events)


def raw_app(bodies: list[bytes]) -> Starlette:
    """A stand-in answering each request with the next raw SSE body (the last one repeats)."""
    served: list[int] = []

    async def messages(request: Request) -> Response:
        served.append(1)
        return Response(bodies[min(len(served), len(bodies)) - 1], media_type="text/event-stream")

    return Starlette(routes=[Route("/v1/messages", messages, methods=["POST"])])


async def session(client: anthropic.AsyncAnthropic, prompts: list[str], **agent: Any) -> Any:
    agent_ = nt.Agent(client=client, system=SYSTEM, stream_retries=2, retry_delay=0, **agent)
    recorder = nt.EventRecorder()
    agent_.events.subscribe(recorder)
    texts = [(await agent_.run(p)).text for p in prompts]
    return texts, agent_.state.messages, comparable(recorder.events)


# -- 1. faults while recording ------------------------------------------------------------------------


def test_a_stream_cut_inside_an_sse_event_records_the_events_before_it_and_replays(tmp_path, key):
    """Was: the half event reached `json.loads` at the end of the body; the run died with JSONDecodeError."""
    whole = sse(scripted_events(t.reply("Hello there, my friend."))[0])
    cut = whole[: whole.index(b"content_block_delta") + 40]  # inside the first delta's JSON
    path = tmp_path / "c.json"
    with live_server(raw_app([cut, whole])) as base:
        recorded = asyncio.run(session(t.Cassette(path, "record").client(base_url=base), ["hi"]))
    assert recorded[0] == ["Hello there, my friend."]
    first = load(path)["exchanges"][0]["response"]["events"]
    assert [e["type"] for e in first] == ["message_start", "content_block_start"]
    os.environ.pop("ANTHROPIC_API_KEY")
    assert asyncio.run(session(t.Cassette(path, "replay").client(), ["hi"])) == recorded


def test_a_complete_sse_event_that_is_not_json_is_a_cassette_error():
    assert events_of(b"event: ping\ndata: {}\n\nevent: x\ndata: {cut") == [{}]
    with pytest.raises(nt.CassetteError, match="not JSON"):
        events_of(b"event: x\ndata: {bad}\n\n")


def test_a_stream_cut_mid_event_with_crlf_line_ends_is_read_as_the_sdk_reads_it():
    body = b'event: a\r\ndata: {"type": "a"}\r\n\r\nevent: b\r\ndata: {"ty'
    assert events_of(body) == [{"type": "a"}]


@nt.tool
async def slow_note(text: str) -> str:
    """Note something, taking a moment."""
    await asyncio.sleep(0)
    return f"noted {text}"


class Stopper:
    """Cancels the running task (the notebook's Stop) when the agent publishes its `at`-th event."""

    def __init__(self, at: int) -> None:
        self.at, self.seen, self.stopped = at, 0, False

    async def __call__(self, event: Any) -> None:
        self.seen += 1
        if self.seen == self.at:
            self.stopped = True
            task = asyncio.current_task()
            assert task is not None
            task.cancel()
            await asyncio.sleep(0)


async def stopped_session(client: anthropic.AsyncAnthropic, at: int) -> Any:
    agent = nt.Agent(client=client, system=SYSTEM, tools=[slow_note], retry_delay=0)
    recorder, stopper = nt.EventRecorder(), Stopper(at)
    agent.events.subscribe(recorder)
    agent.events.subscribe(stopper)
    outcome = []
    for prompt in ("Note it.", "Again."):
        try:
            outcome.append((await agent.run(prompt)).text)
        except asyncio.CancelledError:
            outcome.append("stopped")
            asyncio.current_task().uncancel()  # type: ignore[union-attr]
        assert history_errors(agent.state.messages)[0] == [], agent.state.messages
    return outcome, agent.state.messages, comparable(recorder.events)


class Holder:
    """One live stand-in for all of a property's examples, serving whichever script is current."""

    def __init__(self) -> None:
        self.app: Any = None

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        await self.app(scope, receive, send)


def fresh_script() -> t.ScriptedTransport:
    return t.ScriptedTransport(
        t.turn("Noting it now.", t.tool_use("slow_note", {"text": "a line"})),
        t.reply("Noted, and that is all."),
        *[t.reply("Once more, done.")] * 6,
        text_chunk=3,
    )


@settings(max_examples=20, deadline=None, suppress_health_check=list(HealthCheck))
@given(at=st.integers(min_value=1, max_value=40))
def test_a_stop_at_any_await_point_while_recording_leaves_a_valid_file_and_history_that_replay(at):
    os.environ["ANTHROPIC_API_KEY"] = KEY
    try:
        path = HOLDER_DIR / f"stop-{at}.json"
        HOLDER.app = standin_app(fresh_script())
        recorded = asyncio.run(stopped_session(t.Cassette(path, "record").client(base_url=HOLDER_URL), at))
    finally:
        os.environ.pop("ANTHROPIC_API_KEY")
    data = load(path)  # valid, and a cassette
    assert json.loads(path.read_text()) == data and not list(HOLDER_DIR.glob("*.partial"))
    for exchange in data["exchanges"]:  # no half event in it
        assert all(isinstance(e, dict) and "type" in e for e in exchange["response"].get("events", []))
    try:
        replayed = asyncio.run(stopped_session(t.Cassette(path, "replay").client(), at))
    except anthropic.BadRequestError as exc:  # the cut landed where a replay cannot repeat it
        assert "is not the one recorded" in str(exc)
        return
    assert replayed == recorded


HOLDER = Holder()
HOLDER_DIR = Path()
HOLDER_URL = ""


@pytest.fixture(autouse=True, scope="module")
def _holder(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    global HOLDER_DIR, HOLDER_URL
    HOLDER_DIR = tmp_path_factory.mktemp("stops")
    with live_server(HOLDER) as base:
        HOLDER_URL = base
        yield


# -- 2. files: hand edits, two writers, links, permissions ---------------------------------------------

JSON_LEAF = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**30), max_value=10**30)
    | st.floats(allow_nan=False)
    | st.text(max_size=12)
    | st.sampled_from(["message_start", "content_block_delta", "tool_use", "text", 200, 529, -1, 0, 10**20])
)
ANY_JSON = st.recursive(
    JSON_LEAF, lambda c: st.lists(c, max_size=3) | st.dictionaries(st.text(max_size=6), c, max_size=3)
)


def good_data(tmp: Path) -> dict[str, Any]:
    """A cassette `replay_edited` replays as it is: a tool call, its result, the reply (recorded once)."""
    if not GOOD:
        os.environ["ANTHROPIC_API_KEY"] = KEY
        try:
            HOLDER.app = standin_app(
                t.ScriptedTransport(
                    t.turn("Let me note.", t.tool_use("slow_note", {"text": "x"})),
                    t.reply("Done."),
                    text_chunk=4,
                )
            )
            cas = t.Cassette(tmp / "good.json", "record")
            asyncio.run(edited_session(cas.client(base_url=HOLDER_URL)))
        finally:
            os.environ.pop("ANTHROPIC_API_KEY")
        GOOD.update(load(tmp / "good.json"))
        GOOD["answers"] = [{"tool_use_id": "toolu_1", "tool": "user_confirm", "answer": {"value": "yes"}}]
    return json.loads(json.dumps(GOOD))


async def edited_session(client: anthropic.AsyncAnthropic) -> Any:
    agent = nt.Agent(client=client, tools=[slow_note], frontend_tools=[nt.user_confirm], retry_delay=0)
    return await agent.run("go")


GOOD: dict[str, Any] = {}


def mutate(data: Any, draw: Any) -> Any:
    """`data` with one place, chosen by `draw`, replaced, removed or given an extra key."""
    if not isinstance(data, (dict, list)) or not data or draw(st.integers(0, 4)) == 0:
        return draw(ANY_JSON)
    if isinstance(data, dict):
        key = draw(st.sampled_from(sorted(data)))
        action = draw(st.sampled_from(["deeper", "drop", "extra"]))
        if action == "drop":
            return {k: v for k, v in data.items() if k != key}
        if action == "extra":
            return {**data, draw(st.text(max_size=6)): draw(ANY_JSON)}
        return {**data, key: mutate(data[key], draw)}
    index = draw(st.integers(0, len(data) - 1))
    return [*data[:index], mutate(data[index], draw), *data[index + 1 :]]


@settings(max_examples=30, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_a_hand_edited_cassette_loads_shows_prunes_and_replays_with_only_clear_errors(tmp_path, data):
    path = tmp_path / "edited.json"
    edited = good_data(tmp_path)
    for _ in range(data.draw(st.integers(1, 3))):
        edited = mutate(edited, data.draw)
    path.write_text(json.dumps(edited, ensure_ascii=data.draw(st.booleans())))
    for action in ("show", "prune"):
        code, _, err = cli(action, str(path))
        assert code in (0, 1) and (code == 0 or str(path) in err), err
    try:
        cas = t.Cassette(path, "replay")
    except nt.CassetteError as exc:
        assert str(path) in str(exc)
        return

    async def replay() -> None:
        with contextlib.suppress(anthropic.APIError, nt.NotebookToolsError):
            await edited_session(cas.client())

    asyncio.run(asyncio.wait_for(replay(), 20))


def _set(path: list[Any], value: Any) -> Any:
    def edit(events: list[Any]) -> None:
        place: Any = events
        for step in path[:-1]:
            place = place[step]
        if value is DROP:
            del place[path[-1]]
        else:
            place[path[-1]] = value

    return edit


DROP = object()
# (where in the first response's events, what): each made the SDK or the agent fail deep inside
# (TypeError, AttributeError, IndexError, KeyError, the SDK's ValueError) instead of a load naming it.
EVENT_EDITS = {
    "a text delta without its text": _set([2, "delta", "text"], DROP),
    "a message_start without content": _set([0, "message", "content"], DROP),
    "token counts that are strings": _set([-2, "usage", "output_tokens"], "12"),
    "a message_delta without usage": _set([-2, "usage"], DROP),
    "a delta for a block never started": _set([2, "index"], 9),
    "a text block without its text": _set([1, "content_block", "text"], DROP),
    "a content block without a type": _set([1, "content_block", "type"], None),
    "a tool call's input that is not JSON": _set([7, "delta", "partial_json"], "{bad"),
}


@pytest.mark.parametrize("edit", EVENT_EDITS.values(), ids=EVENT_EDITS.keys())
def test_recorded_events_the_sdk_cannot_read_are_refused_at_load_naming_the_event(tmp_path, edit):
    data = good_data(tmp_path)
    events = data["exchanges"][0]["response"]["events"]
    assert events[7]["delta"]["type"] == "input_json_delta"
    edit(events)
    path = tmp_path / "edited.json"
    path.write_text(json.dumps(data))
    with pytest.raises(nt.CassetteError, match=r"exchange 1 is not a request with its response \(.+\)"):
        t.Cassette(path, "replay")
    code, _, err = cli("show", str(path))
    assert code == 1 and "exchange 1" in err


@settings(max_examples=30, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_events_edited_anywhere_are_refused_at_load_or_replay_with_only_clear_errors(tmp_path, data):
    edited = good_data(tmp_path)
    number = data.draw(st.integers(0, 1))
    events = edited["exchanges"][number]["response"]["events"]
    for _ in range(data.draw(st.integers(1, 3))):
        events = mutate(events, data.draw)
    edited["exchanges"][number]["response"]["events"] = events
    path = tmp_path / "edited.json"
    path.write_text(json.dumps(edited))
    assert cli("show", str(path))[0] in (0, 1)
    try:
        cas = t.Cassette(path, "replay")
    except nt.CassetteError:
        return

    async def replay() -> None:
        with contextlib.suppress(anthropic.APIError, nt.NotebookToolsError):
            await edited_session(cas.client())

    asyncio.run(asyncio.wait_for(replay(), 20))


def test_a_cassette_too_deeply_nested_for_json_is_a_cassette_error(tmp_path):
    path = tmp_path / "deep.json"
    path.write_text(
        '{"notebook_tools_cassette": 1, "exchanges": [], "x": ' + "[" * 100_000 + "]" * 100_000 + "}"
    )
    with pytest.raises(nt.CassetteError, match="cannot be read as JSON"):
        t.Cassette(path, "replay")
    assert cli("show", str(path))[0] == 1


def test_a_lone_surrogate_escape_in_a_hand_edited_file_shows_and_prunes(tmp_path):
    """Was: `prune` raised UnicodeEncodeError writing it back, and `show` when printing it."""
    path = tmp_path / "s.json"
    data = good_data(tmp_path)
    data["exchanges"][0]["request"]["messages"][0]["content"] = "a \ud800 b"
    path.write_text(json.dumps(data))  # the escape "\ud800": valid JSON, not valid UTF-8 text
    done = subprocess.run(
        [sys.executable, "-m", "notebook_tools", "cassette", "show", str(path)],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "PYTHONIOENCODING": "utf-8"},
    )
    assert done.returncode == 0 and "Traceback" not in done.stderr and "a \\ud800 b" in done.stdout
    code, out, err = cli("prune", str(path))
    assert code == 0 and "dropped 0 exchanges and 1 answers" in out, err
    assert load(path)["exchanges"][0]["request"]["messages"][0]["content"] == "a \ud800 b"


def _writer(path: str, tag: int, rounds: int, go: Any) -> None:
    go.wait(60)
    for i in range(rounds):
        exchange = {"request": {"w": tag, "i": i, "pad": "x" * 5000}, "response": {"status": 200, "body": {}}}
        save(Path(path), [exchange], [])


def test_two_processes_writing_one_cassette_at_once_always_leave_a_whole_file(tmp_path):
    """Was: both wrote the same `NAME.partial`; one's replace took the other's file away from under
    it ('cannot be written', the process failed) or put a half-written one in place."""
    path = tmp_path / "shared.json"
    save(path, [], [])
    context = multiprocessing.get_context("spawn")
    go = context.Event()
    writers = [context.Process(target=_writer, args=(str(path), tag, 400, go)) for tag in (1, 2)]
    for writer in writers:
        writer.start()
    go.set()
    reads = 0
    while any(w.is_alive() for w in writers):
        load(path)  # never half a file
        reads += 1
    for writer in writers:
        writer.join(30)
        assert writer.exitcode == 0
    assert reads and load(path)["exchanges"][0]["request"]["i"] == 399
    assert not list(tmp_path.glob("*.partial"))


def test_a_symlinked_cassette_is_written_through_the_link_and_keeps_its_permissions(tmp_path, key):
    """Was: the link was replaced by a file (the shared target kept the old recording) and a
    0600 cassette came back 0644."""
    target = tmp_path / "shared" / "real.json"
    target.parent.mkdir()
    save(target, [], [])
    target.chmod(0o600)
    link = tmp_path / "nb.cassette.json"
    link.symlink_to(target)
    with live_server(standin_app(t.ScriptedTransport(t.reply("Through the link.")))) as base:
        asyncio.run(session(t.Cassette(link, "record").client(base_url=base), ["hi"]))
    assert link.is_symlink() and len(load(target)["exchanges"]) == 1
    assert target.stat().st_mode & 0o777 == 0o600
    loop = tmp_path / "loop.json"
    loop.symlink_to(loop)
    with pytest.raises(nt.CassetteError, match="cannot"):
        save(loop, [], [])


# -- 1 (continued). a connection dropped mid-stream, a refused or absent network in auto --------------


def dropping_app(whole: bytes, cut_at: int) -> Starlette:
    from starlette.responses import StreamingResponse

    calls: list[int] = []

    async def messages(request: Request) -> Response:
        calls.append(1)
        first = len(calls) == 1

        async def body() -> Any:
            yield whole[:cut_at] if first else whole
            if first:
                await asyncio.sleep(0.05)
                raise ConnectionResetError("the stand-in drops the connection")

        return StreamingResponse(body(), media_type="text/event-stream")

    return Starlette(routes=[Route("/v1/messages", messages, methods=["POST"])])


@pytest.mark.parametrize("inside", [False, True])
def test_a_connection_dropped_mid_stream_replays_the_drop_and_the_retry_with_the_same_events(
    tmp_path, key, inside
):
    """Was: a dropped stream was not recorded, so the replay had no drop, no "retrying" status and
    other request numbers: the same text, other events."""
    whole = sse(scripted_events(t.reply("Hello there, my dear friend, hello again."))[0])
    cut = whole.index(b"content_block_delta", 200) + (30 if inside else -7)
    path = tmp_path / "c.json"
    with live_server(dropping_app(whole, cut)) as base:
        recorded = asyncio.run(session(t.Cassette(path, "record").client(base_url=base), ["hi"]))
    assert any(e["type"] == "status" and e["state"] == "retrying" for e in recorded[2])
    data = load(path)
    assert "dropped" in data["exchanges"][0]["response"] and "dropped" not in data["exchanges"][1]["response"]
    os.environ.pop("ANTHROPIC_API_KEY")
    assert asyncio.run(session(t.Cassette(path, "replay").client(), ["hi"])) == recorded
    code, out, _ = cli("show", str(path))
    assert code == 0 and "dropped: RemoteProtocolError" in out


def test_auto_whose_re_recording_fails_after_a_replayed_request_leaves_the_cassette_as_it_was(tmp_path, key):
    """Was: the replayed head was written back without the tail (save ran on `served`), so an offline
    run, or a refused key, of a notebook changed at request 2 destroyed the rest of the recording."""
    path = tmp_path / "c.json"
    with live_server(
        standin_app(t.ScriptedTransport(t.reply("One."), t.reply("Two."), t.reply("Three.")))
    ) as base:
        asyncio.run(session(t.Cassette(path, "record").client(base_url=base), ["a", "b", "c"]))
    before = path.read_bytes()
    with t.Cassette(path, "auto") as cas, pytest.raises(anthropic.APIConnectionError):
        asyncio.run(session(cas.client(base_url="http://127.0.0.1:9", max_retries=0), ["a", "changed"]))
    assert cas.served == 1 and path.read_bytes() == before


@pytest.mark.parametrize("mode", ["replay", "auto"])
def test_a_request_the_notebook_retries_after_the_sdk_gave_up_replays_failure_then_answer(
    tmp_path, key, mode
):
    """Was: the notebook's own retry (the same request, the next cell) dropped the recorded failure as
    if the SDK had retried it, so the replay's first cell got the answer and the second had nothing to retry."""
    path = tmp_path / "c.json"

    async def cells(client: anthropic.AsyncAnthropic) -> list[str]:
        agent = nt.Agent(client=client, system=SYSTEM, retry_delay=0)
        out = []
        try:
            await agent.run("a")
        except anthropic.APIStatusError as exc:
            out.append(f"{type(exc).__name__} {exc.status_code}")
        out.append((await agent.retry()).text)
        return out

    script = t.ScriptedTransport(*[t.HTTPFault(529)] * 3, t.reply("Later."))
    with live_server(standin_app(script)) as base:
        recorded = asyncio.run(cells(t.Cassette(path, "record").client(base_url=base)))
    assert recorded == ["OverloadedError 529", "Later."]
    assert [e["response"]["status"] for e in load(path)["exchanges"]] == [529, 200]
    if mode != "auto":
        os.environ.pop("ANTHROPIC_API_KEY")
    cas = t.Cassette(path, "replay" if mode == "replay" else "auto")
    assert asyncio.run(cells(cas.client(base_url="http://127.0.0.1:9"))) == recorded
    assert cas.mismatch is None and not cas.recording


# -- 3. a replay as strict as the API -----------------------------------------------------------------

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


# -- 4. secrets ---------------------------------------------------------------------------------------


def deltas(kind: str, field: str, pieces: list[str]) -> list[dict[str, Any]]:
    return [{"type": "content_block_delta", "index": 1, "delta": {"type": kind, field: p}} for p in pieces]


@pytest.mark.parametrize(
    ("kind", "field", "before", "after"),
    [
        ("text_delta", "text", "key: ", " ok"),
        ("thinking_delta", "thinking", "I see the key ", " in the env."),  # was: never joined, so it leaked
        ("input_json_delta", "partial_json", '{"cmd": "curl -H \'x-api-key: ', "' api\"}"),
    ],
)
def test_the_key_split_between_any_two_deltas_of_any_kind_never_survives(kind, field, before, after):
    secrets = Secrets(values=[KEY])
    whole = before + KEY + after
    for cut in range(len(before) + 1, len(before) + len(KEY)):
        cleaned = secrets.clean_events(deltas(kind, field, [whole[:cut], whole[cut:]]))
        joined = "".join(e["delta"][field] for e in cleaned)
        assert "FAULTKEY" not in joined and "sk-ant-api03-" not in joined, (cut, joined)
        assert joined == before + "[redacted]" + after, (cut, joined)


def test_a_secret_a_tool_input_stream_escapes_never_reaches_the_file(tmp_path, key):
    """Was: the patterns ran over the raw JSON text, where `ä` streams as `\\u00e4` and `"` as `\\"`,
    so a pattern written for the value found nothing in the tool call's events."""
    patterns = (r"pässwort=\w+", r'token="[^"]+"')
    cmd = 'login pässwort=hunter22 and token="abc123xyz" now'
    script = t.ScriptedTransport(
        t.turn("Running.", t.tool_use("slow_note", {"text": cmd})), t.reply("Done."), json_chunk=5
    )
    path = tmp_path / "c.json"
    with live_server(standin_app(script)) as base:
        cas = t.Cassette(path, "record", secrets=patterns)
        recorded = asyncio.run(session(cas.client(base_url=base), ["go"], tools=[slow_note]))
    raw = path.read_text()
    assert "hunter22" not in raw and "abc123xyz" not in raw, raw
    os.environ.pop("ANTHROPIC_API_KEY")
    again = asyncio.run(
        session(t.Cassette(path, "replay", secrets=patterns).client(), ["go"], tools=[slow_note])
    )
    assert again[0] == recorded[0] == ["Done."]
    call = again[1][1]["content"][1]
    assert call["input"] == {"text": "login [redacted] and [redacted] now"}


INNOCENT = [
    "Here are the basic statistics of the data.",
    "Basic descriptive statistics, then a BASIC PROGRAMME.",
    "the bearer instrument pays the bearer-bond holder",
    "Bearer authentication is described in RFC 6750.",
    "A sk-ant- prefix marks an Anthropic key; sk-ant-short is not one.",
]


def test_text_that_merely_looks_like_a_secret_is_kept_and_real_tokens_are_not(tmp_path, key):
    """Was: "basic statistics" and "bearer instrument" were recorded as "[redacted]": the pattern took
    any 8 letters after the word, so a replay showed other text than the notebook saved."""
    secrets = Secrets()
    for text in INNOCENT:
        assert secrets.clean(text) == text
    import base64

    basic = base64.b64encode(f"user:{KEY}".encode()).decode()
    for token in (
        f"Authorization: Basic {basic}",
        "Bearer eyJhbGciOiJIUzI1NiJ9.e30.abc",
        "basic dXNlcjpwYXNz",
    ):
        assert "[redacted]" in secrets.clean(token) and basic not in secrets.clean(token)
    text = " ".join(INNOCENT)
    path = tmp_path / "c.json"
    with live_server(standin_app(t.ScriptedTransport(t.reply(text), text_chunk=3))) as base:
        recorded = asyncio.run(session(t.Cassette(path, "record").client(base_url=base), ["hi"]))
    assert "[redacted]" not in path.read_text()
    os.environ.pop("ANTHROPIC_API_KEY")
    assert asyncio.run(session(t.Cassette(path, "replay").client(), ["hi"])) == recorded


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


def test_record_mode_with_a_refused_key_leaves_the_old_cassette_as_it_was(tmp_path, key):
    """Was: the refused request was kept out, but the fixture's (or a `with` block's) closing save wrote
    an empty cassette over the old one: `--cassette-mode=record` with an expired key wiped them all."""
    path = tmp_path / "c.json"
    with live_server(standin_app(t.ScriptedTransport(t.reply("Kept.")))) as base:
        asyncio.run(session(t.Cassette(path, "record").client(base_url=base), ["hi"]))
    before = path.read_bytes()

    async def refuse(request: Request) -> Response:
        error = {"type": "error", "error": {"type": "authentication_error", "message": "invalid x-api-key"}}
        return Response(json.dumps(error), status_code=401, media_type="application/json")

    app = Starlette(routes=[Route("/v1/messages", refuse, methods=["POST"])])
    with (
        live_server(app) as base,
        t.Cassette(path, "record") as cas,
        pytest.raises(anthropic.AuthenticationError),
    ):
        asyncio.run(session(cas.client(base_url=base), ["hi"]))
    assert path.read_bytes() == before


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


BLOCKED_TEST = """
import pytest

@pytest.mark.cassette("blocker/c.json")
def test_t(cassette):
    pass
"""


def test_the_fixture_with_a_file_where_its_folder_should_be_is_a_cassette_error(pytester, key):
    """Was: FileExistsError from the fixture's mkdir, a traceback from inside the plugin."""
    pytester.makepyfile(test_blocked=BLOCKED_TEST)
    (pytester.path / "blocker").write_text("a file, not a folder")
    result = pytester.runpytest_inprocess("--cassette-mode=record", "-p", "no:cacheprovider")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*CassetteError: cassette *blocker*c.json cannot be used*"])


async def stopped_at_prompt(client: anthropic.AsyncAnthropic, cas: t.Cassette, *, press_stop: bool) -> Any:
    agent = nt.Agent(client=client, system=SYSTEM, frontend_tools=[nt.user_confirm])
    chat = nt.Chat(agent)
    cas.attach(chat)
    task = asyncio.ensure_future(chat.send("Go."))
    for _ in range(2000):  # until the prompt is open
        if any(p["status"] == "pending" for p in chat.prompts.values()):
            break
        await asyncio.sleep(0.005)
    if press_stop:
        chat.stop()  # the person presses Stop while the prompt is open (a replay has nobody to press it)
    first = (await asyncio.wait_for(task, 10)).stop_reason
    second = (await asyncio.wait_for(chat.send("Next."), 10)).text
    prompts = sorted((p["name"], p["status"]) for p in chat.prompts.values())
    return first, second, prompts, list(chat.errors), agent.state.messages


def test_a_stop_while_a_prompt_is_open_is_recorded_and_replays_without_an_error(tmp_path, key):
    """Was: nothing was recorded for the stopped prompt, so the replay found no answer, logged
    "recorded no answer" into the widget and the cell's stderr (an output the saved notebook lacks)."""
    path = tmp_path / "chat.json"
    script = t.ScriptedTransport(
        t.turn("Ask.", t.tool_use("user_confirm", {"message": "Drop?"})), t.reply("Fine, next.")
    )
    with live_server(standin_app(script)) as base:
        cas = t.Cassette(path, "record")
        recorded = asyncio.run(stopped_at_prompt(cas.client(base_url=base), cas, press_stop=True))
    assert recorded[:4] == ("stopped", "Fine, next.", [("user_confirm", "cancelled")], [])
    assert [a["answer"] for a in load(path)["answers"]] == [{"stopped": True}]
    os.environ.pop("ANTHROPIC_API_KEY")
    cas = t.Cassette(path, "replay")
    assert asyncio.run(stopped_at_prompt(cas.client(), cas, press_stop=False)) == recorded


def test_the_key_url_encoded_or_after_basic_in_base64_is_redacted_and_a_custom_pattern_in_an_error_too():
    """Held up (kept as a guard). URL-encoding leaves a key as it is (its characters are all unreserved);
    base64 is in scope only where credentials travel so ("Basic ..."): a bare base64 of the key is not
    key-shaped text and is not looked for."""
    import base64
    import urllib.parse

    secrets = Secrets([r"ghp_\w{10,}"], values=[KEY])
    assert urllib.parse.quote(KEY, safe="") == KEY
    assert "FAULTKEY" not in json.dumps(
        secrets.clean({"url": f"https://x/?key={urllib.parse.quote(KEY)}&a=1"})
    )
    basic = base64.b64encode(f"me:{KEY}".encode()).decode()
    assert basic not in secrets.clean(f"Authorization: Basic {basic}")
    error = {"type": "error", "error": {"message": "token ghp_abcdefghijkl refused", "key": KEY}}
    assert "ghp_abc" not in json.dumps(secrets.clean(error)) and "FAULTKEY" not in json.dumps(
        secrets.clean(error)
    )


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
