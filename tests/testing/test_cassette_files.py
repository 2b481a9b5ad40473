"""Cassette files stay whole after a Stop, two writers or a symlink; hand-edited files fail clearly."""

from __future__ import annotations

import asyncio
import contextlib
import json
import multiprocessing
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anthropic
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import notebook_tools as nt
from notebook_tools import testing as t
from notebook_tools.api import history_errors
from notebook_tools.testing._cassette_file import load, save
from tests.support.cassette_sessions import KEY, SYSTEM, cli, comparable, session, slow_note
from tests.support.cassette_sessions import key as key_fixture  # noqa: F401  (the `key` fixture)
from tests.support.http_helpers import live_server
from tests.support.messages_standin import standin_app


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
