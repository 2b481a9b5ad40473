"""Multi-round-trip MCP tool calls (2026-07-28 `input_required`) against rounds_server.py, on the SDK's own server:
elicitation and sampling through resolvers, the round cap, hostile rounds, and a question left unanswered when the
kernel died, asked again after the session is loaded in a new process and answered with the saved request_state."""

import asyncio
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from mcp.types import ListRootsResult

import notebook_tools as nt
from notebook_tools import testing as t
from notebook_tools.mcp._rounds import MAX_ROUNDS, call_in_rounds
from notebook_tools.tools import _checkpoint
from tests.mcp.servers import alive, results, text_of
from tests.support.browser_double import FakeView, pending_ids, until
from tests.support.readiness import wait_until

ROUNDS = Path(__file__).resolve().parent / "rounds_server.py"
OPEN = t.turn(t.tool_use("rounds", id="open"))


def rounds_server(**kw) -> nt.MCPServer:
    return nt.MCPServer.stdio(
        sys.executable, [str(ROUNDS)], env={"PYTHONUNBUFFERED": "1"}, name="rounds", **kw
    )


def run_calls(*calls, elicit=None, sample=None, store=None):
    """Run one turn calling each `(tool, arguments, id)`; the final request's results and what was asked."""
    script = t.ScriptedTransport(
        OPEN, t.turn(*(t.tool_use(n, a, id=i) for n, a, i in calls)), t.reply("done")
    )
    server = rounds_server()
    agent = nt.Agent(script.client(), mcp_servers=[server], store=store or nt.InMemoryStore())
    asked = []

    async def record(handler, name, params):
        asked.append((name, params))
        return await handler(params)

    agent.set_mcp_handlers(
        elicit=(lambda n, p: record(elicit, n, p)) if elicit else None,
        sample=(lambda n, p: record(sample, n, p)) if sample else None,
    )

    async def go():
        try:
            return await agent.run("go")
        finally:
            await agent.aclose()

    assert asyncio.run(go()).stop_reason == "end_turn"
    return results(script.requests[-1]), asked, server


@pytest.mark.parametrize(
    ("answer", "said"),
    [
        ({"action": "accept", "content": {"name": "Ada"}}, "hello Ada"),
        ({"action": "decline"}, "no name: decline"),
        ({"action": "cancel"}, "no name: cancel"),
    ],
)
def test_an_elicitation_in_an_input_required_round_is_answered(answer, said):
    async def elicit(params):
        return answer

    got, asked, server = run_calls(("ask_name", {}, "a"), elicit=elicit)
    assert got["a"] == (False, [{"type": "text", "text": said}])
    assert [(n, p["message"]) for n, p in asked] == [("rounds", "What is your name?")]
    assert server.server_info["name"] == "rounds"


def test_sampling_in_a_round_and_refused_sampling_names_the_server():
    async def sample(params):
        assert params["messages"][0]["content"]["text"] == "Summarize tides"
        return {"role": "assistant", "content": {"type": "text", "text": "the sea moves"}, "model": "m"}

    got, asked, _ = run_calls(("summarize", {"topic": "tides"}, "s"), sample=sample)
    assert got["s"] == (False, [{"type": "text", "text": "summary of tides: the sea moves"}])
    assert len(asked) == 1
    refused, _, _ = run_calls(("summarize", {"topic": "tides"}, "s"))  # no sampling handler: refused
    assert refused["s"][0] is True
    assert "'rounds'" in text_of(refused["s"][1]) and "not available" in text_of(refused["s"][1])


def test_a_handler_that_raises_is_an_error_result_naming_the_server():
    async def elicit(params):
        raise RuntimeError("broken front end")

    got, _, _ = run_calls(("ask_name", {}, "a"), elicit=elicit)
    assert (
        got["a"][0] is True and "'rounds'" in text_of(got["a"][1]) and "RuntimeError" in text_of(got["a"][1])
    )


def test_rounds_past_the_cap_and_an_unknown_request_are_error_results_not_hangs():
    got, _, _ = run_calls(("forever", {}, "f"), ("odd_request", {}, "o"))
    assert got["f"][0] is True
    assert f"still asked for input after {MAX_ROUNDS} rounds of 'forever'" in text_of(got["f"][1])
    assert got["o"][0] is True and "'rounds'" in text_of(got["o"][1])


def test_a_megabyte_of_non_ascii_request_state_goes_back_byte_for_byte():
    async def elicit(params):
        return {"action": "accept", "content": {"name": "Zoë ✓"}}

    store = nt.InMemoryStore()
    got, _, _ = run_calls(("remember", {"size": 1_000_000}, "r"), elicit=elicit, store=store)
    said = json.loads(text_of(got["r"][1]))
    assert said["payload"] == 1_000_000 and said["minted_by"] == said["answered_in"]
    assert said["said"] == {"name": "Zoë ✓"}


class Recorded:
    """A stand-in for a call's checkpoint and a server, to drive `call_in_rounds` with hostile rounds."""

    name = "fake"
    elicitation_handler = sampling_handler = None

    def __init__(self, saved=None):
        self.saves = []

        async def save(data):
            self.saves.append(data)

        self.checkpoint = _checkpoint.Checkpoint("x", saved, save)

    async def _ask(self, handler, params, default):
        return {"action": "accept", "content": {"name": "Bo"}}


def drive(fake, rounds):
    from mcp.types import InputRequiredResult

    sent = []

    async def send(responses, state):
        sent.append((responses, state))
        nxt = rounds.pop(0)
        if callable(nxt):
            return await nxt()
        return InputRequiredResult.model_construct(**nxt) if isinstance(nxt, dict) else nxt

    async def go():
        token = _checkpoint.checkpointing(fake.checkpoint)
        try:
            return await call_in_rounds(fake, "tool", {"a": 1}, send)
        finally:
            _checkpoint.reset(token)

    return asyncio.run(go()), sent


def test_an_unknown_input_method_is_an_mcp_error_and_nothing_is_asked():
    from mcp.types import ElicitRequest

    fake = Recorded()
    asked = []
    fake._ask = lambda *a: asked.append(a)
    odd = ElicitRequest.model_construct(method="mystery/ask", params={"x": 1})  # past the SDK's own parsing
    with pytest.raises(nt.MCPServerError, match="'fake' asked 'mystery/ask'"):
        drive(fake, [{"input_requests": {"k": odd}, "request_state": "s"}])
    assert fake.saves[0]["mcp"]["request_state"] == "s" and asked == []


def test_a_saved_round_is_asked_again_and_retried_with_its_state_and_a_stale_one_starts_over():
    from mcp.shared.exceptions import MCPError
    from mcp.types import ErrorData

    question = {
        "method": "elicitation/create",
        "params": {"mode": "form", "message": "Who?", "requestedSchema": {}},
    }
    saved = {"server": "fake", "tool": "tool", "arguments": {"a": 1}, "request_state": "é" * 10}
    saved = {"mcp": {**saved, "input_requests": {"who": question}}}
    value, sent = drive(Recorded(saved), ["final"])
    assert value == "final" and sent[0][1] == "é" * 10 and sent[0][0]["who"].action == "accept"
    stale = MCPError.from_error_data(ErrorData(code=-32602, message="bad state"))

    async def refuse(*_):
        raise stale

    fake = Recorded(saved)
    value, sent = drive(fake, [refuse, "fresh"])  # the first send raises: the call starts over
    assert value == "fresh" and sent[-1] == (None, None)
    other = {"mcp": {**saved["mcp"], "arguments": {"a": 2}}}  # another call's checkpoint: ignored
    assert drive(Recorded(other), ["fresh"])[1] == [(None, None)]


_FIRST_KERNEL = """
import asyncio, json, sys
sys.path.insert(0, {root!r})
import notebook_tools as nt
from notebook_tools import testing as t
from tests.mcp.test_mcp_rounds import OPEN, rounds_server
from tests.support.browser_double import FakeView, pending_ids

script = t.ScriptedTransport(OPEN, t.turn(t.tool_use("remember", {{"size": 40}}, id="r")))
agent = nt.Agent(script.client(), model="claude-test", mcp_servers=[rounds_server()], store=nt.SQLiteStore({db!r}))
chat = nt.Chat(agent)
view = FakeView(chat)
view.custom({{"type": "hello", "view_id": "tab"}})

async def main():
    turn = asyncio.ensure_future(agent.run("go"))
    while not pending_ids(chat):  # the card shows; the person has not answered when the kernel dies
        await asyncio.sleep(0.01)
        view.custom({{"type": "ping", "view_id": "tab"}})
    [card] = pending_ids(chat)
    print("ASKED", agent.agent_uuid, card, json.dumps(chat.prompts[card]["input"]), flush=True)
    while True:
        await asyncio.sleep(0.05)
        view.custom({{"type": "ping", "view_id": "tab"}})

asyncio.run(main())
"""


def test_an_unanswered_round_survives_a_killed_kernel_and_chat_resume_asks_it_again(tmp_path):
    db = tmp_path / "sessions.db"
    code = _FIRST_KERNEL.format(root=os.getcwd(), db=str(db))
    kernel = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    try:
        line = kernel.stdout.readline()
        assert line.startswith("ASKED "), line
        _, agent_uuid, first_card, shown = line.strip().split(" ", 3)
        assert json.loads(shown)["server_message"] == "Who is there?"
        os.kill(kernel.pid, signal.SIGKILL)
        kernel.wait(30)
    finally:
        if kernel.poll() is None:
            kernel.kill()
            kernel.wait()  # collected while still running, it would warn into another test
        kernel.stdout.close()
    [queued] = nt.SQLiteStore(db).load(agent_uuid).queued_calls
    mcp = queued.checkpoint["mcp"]
    assert (mcp["server"], mcp["tool"], mcp["arguments"]) == ("rounds", "remember", {"size": 40})
    assert mcp["request_state"] and mcp["input_requests"]["who"]["params"]["message"] == "Who is there?"

    script = t.ScriptedTransport(t.reply("done"))
    later = nt.Agent(
        script.client(), model="claude-test", mcp_servers=[rounds_server()], store=nt.SQLiteStore(db)
    )
    cards = []

    async def go():
        chat = nt.Chat.resume(agent_uuid, agent=later)  # a new kernel: the running call runs again
        view = FakeView(chat)
        view.custom({"type": "hello", "view_id": "tab"})

        def answered():
            view.custom({"type": "ping", "view_id": "tab"})
            for card in pending_ids(chat):
                if card not in cards:
                    cards.append(card)
                    view.answer(card, {"value": json.dumps({"name": "Ada"})})
            return bool(script.requests) and later.state.status == "idle" and not later.writer.busy

        try:
            await until(answered)
            return chat.prompts[cards[0]]
        finally:
            await later.aclose()

    card = asyncio.run(go())
    assert cards == [first_card] and card["input"]["server_message"] == "Who is there?"  # the same card again
    error, content = results(script.requests[0])["r"]
    said = json.loads(text_of(content))
    assert error is False and said["said"] == {"name": "Ada"} and said["payload"] == 40
    assert said["minted_by"] != said["answered_in"]  # the state minted before the kill reached the new server
    assert later.state.queued_calls == [] and later.state.messages[-1]["content"][0]["text"] == "done"
    wait_until(
        lambda: not alive(said["minted_by"]), "the killed kernel's server to see EOF and end", ceiling=20
    )


@settings(max_examples=60, deadline=None)
@given(
    state=st.text(max_size=3000),
    key=st.text(min_size=1, max_size=20),
    junk=st.recursive(
        st.none() | st.booleans() | st.integers() | st.text(max_size=20),
        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
        max_leaves=10,
    ),
)
def test_saved_state_survives_the_store_byte_for_byte_and_junk_checkpoints_start_over(state, key, junk):
    question = {"method": "roots/list"}
    saved = {"server": "fake", "tool": "tool", "arguments": {"a": 1}, "request_state": state}
    call = nt.QueuedCall(
        tool_use_id="x", name="n", input={}, checkpoint={"mcp": {**saved, "input_requests": {key: question}}}
    )
    stored = nt.QueuedCall.model_validate_json(call.model_dump_json())
    value, sent = drive(Recorded(stored.checkpoint), ["final"])
    assert sent == [({key: ListRootsResult(roots=[])}, state)] and value == "final"
    for hostile in (
        {"mcp": junk},
        {"mcp": {**saved, "input_requests": junk}},
        {"mcp": {**saved, "request_state": junk}},
    ):
        value, sent = drive(Recorded(hostile), ["final", "final"])
        assert value == "final" and len(sent) == 1
