"""What a running call asks the person, over AG-UI with the official client: the kernel consent card.

AG-UI 1.0 can only ask by ending the run (an interrupt), but the consent card is asked by a call
already under way: the code ran, and running it again to ask would be wrong. So the stream stays
open while the question waits, as the server's held runs do: the client gets a `CUSTOM` event
`notebook_tools.ask` (shaped like an interrupt), answers it with `POST /api/tools/ack`, and the
same run goes on. Before, an AG-UI run had nobody to ask: the data was withheld and nobody knew why.

The scripted model's requests are what Claude was sent; each test reads them.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx
import palmerpenguins

import notebook_tools as nt
from notebook_tools import testing as t
from notebook_tools.server import create_app
from notebook_tools.server._agui_messages import messages_of
from tests.support import race_agents
from tests.support.agui_app import events
from tests.support.agui_client import client_transcript, converse
from tests.support.http_helpers import AUTH, TOKEN, live_server

CODE = "print(df[['species', 'island']].head(3))"
MASK_ISLAND = {"send": "mask", "mask": ["island"], "remember": "no"}
SEND = {"send": "send", "remember": "no"}


class Kernel:
    """A live app whose agent runs code that prints penguins (a consent card asks), on a store the test reads.

    The n-th person's message gets the call `toolu_k<n>`; a request answering it (and nothing else)
    gets a reply quoting what Claude read.
    """

    def __init__(self, approval: str = "auto", ask_timeout: float | None = None) -> None:
        self.store = nt.InMemoryStore()
        self.calls = 0

        def step(body: dict[str, Any]) -> t.Turn:
            results = race_agents._results(body)
            content = body["messages"][-1]["content"]
            said = isinstance(content, str) or any(b.get("type") == "text" for b in content)
            if results and not said:  # (a result with the person's next message: a new request of theirs)
                return t.reply("Claude read: " + race_agents._text(results[0].get("content")))
            self.calls += 1
            return t.turn(t.tool_use("run_code", {"code": CODE}, id=f"toolu_k{self.calls}"))

        self.script = t.ScriptedTransport(*([step] * 8))
        client = self.script.client(max_retries=0)

        def agent() -> nt.Agent:
            kernel = nt.KernelTools({"df": palmerpenguins.load_penguins()}, approval=approval)  # type: ignore[arg-type]
            return nt.Agent(client=client, model="claude-test", plugins=[kernel])

        self.app = create_app(agent, store=self.store, token=TOKEN, ask_timeout=ask_timeout)

    def sent(self) -> str:
        """Everything Claude was sent, as JSON text."""
        return json.dumps(self.script.requests, ensure_ascii=False)

    def history(self, thread: str) -> list[dict[str, Any]]:
        state = self.store.load(thread)
        assert state is not None
        dumped = [m.model_dump(mode="json", by_alias=True, exclude_none=True) for m in messages_of(state)]
        return client_transcript(dumped)


def _talk(
    kernel: Kernel, steps: list[dict[str, Any]], asks: dict[str, Any], thread: str = "t1"
) -> dict[str, Any]:
    with live_server(kernel.app) as base:
        return converse(base + "/agui", TOKEN, thread, steps, asks=asks, run_timeout=30)


def test_the_consent_card_is_asked_over_agui_and_a_masked_column_is_all_claude_reads() -> None:
    kernel = Kernel()
    seen = _talk(kernel, [{"say": "show me the penguins"}], {"kernel_consent": MASK_ISLAND})

    [run] = seen["runs"]
    assert run["error"] is None and run["warnings"] == [], run
    assert run["outcome"] == "success" and run["pendingToolCallIds"] == [] and run["interrupts"] == []
    assert run["result"] == {"status": "idle", "stopReason": "end_turn"}
    [ask] = run["asks"]
    assert ask["id"] == "consent_toolu_k1.t1" and ask["reason"] == "kernel_consent"
    assert ask["message"] == "Claude's code produced data. Send it to Claude?"
    assert ask["toolCallId"] == "toolu_k1"  # the running call, which the client was streamed
    assert {"send", "mask", "remember"} <= set(ask["responseSchema"]["properties"])
    assert "expiresAt" not in ask  # it waits until answered (or Stop)
    meta = ask["metadata"]
    assert meta["name"] == "kernel_consent" and meta["answer"] == {"method": "POST", "path": "/api/tools/ack"}
    assert "Torgersen" in meta["input"]["would_send"]  # the client is shown what would go
    assert [(a["id"], a["status"]) for a in run["acked"]] == [(ask["id"], 200)]
    assert run["askClosed"] == [{"id": ask["id"], "status": "answered"}]
    # one stream: the call, the question, its answer, the call's result, the reply
    events = run["events"]
    order = [events.index("TOOL_CALL_END"), events.index("CUSTOM"), events.index("TOOL_CALL_RESULT")]
    assert order == sorted(order), events
    assert events.count("RUN_STARTED") == 1 and events[-1] == "RUN_FINISHED"

    _, second = kernel.script.requests
    read = json.dumps(second["messages"][-1], ensure_ascii=False)
    assert "Adelie" in read and "■■■" in read and "Torgersen" not in read
    assert "Torgersen" not in kernel.sent()
    reply = client_transcript(seen["messages"])[-1]
    assert reply["role"] == "assistant" and "■■■" in reply["content"] and "Torgersen" not in reply["content"]
    assert client_transcript(seen["messages"]) == kernel.history("t1")


def test_a_declined_consent_card_sends_nothing_of_the_rows() -> None:
    kernel = Kernel()
    seen = _talk(kernel, [{"say": "show me the penguins"}], {"kernel_consent": {"status": "skipped"}})

    [run] = seen["runs"]
    assert run["outcome"] == "success" and run["error"] is None, run
    [ask] = run["asks"]
    assert [(a["id"], a["status"]) for a in run["acked"]] == [(ask["id"], 200)]
    assert run["askClosed"] == [{"id": ask["id"], "status": "skipped"}]
    assert len(kernel.script.requests) == 2  # the run went on to Claude, without the data
    sent = kernel.sent()
    assert "Adelie" not in sent and "Torgersen" not in sent and "Biscoe" not in sent


def test_a_client_that_ignores_the_card_gets_the_data_withheld_when_its_timeout_passes() -> None:
    """A generic AG-UI client does not know `notebook_tools.ask`: with the server's `ask_timeout` the
    card closes unanswered ("timed_out"), the consent fails closed and the run finishes."""
    kernel = Kernel(ask_timeout=1.0)
    seen = _talk(kernel, [{"say": "show me the penguins"}], {})

    [run] = seen["runs"]
    assert run["outcome"] == "success" and run["error"] is None, run
    [ask] = run["asks"]
    assert run["acked"] == [] and run["askClosed"] == [{"id": ask["id"], "status": "timed_out"}]
    assert ask["expiresAt"].endswith("Z")  # an ISO date, as the interrupts' expiresAt
    assert len(kernel.script.requests) == 2
    sent = kernel.sent()
    assert "Adelie" not in sent and "Torgersen" not in sent


def test_stop_while_the_card_waits_ends_the_run_cancelled_and_the_next_message_works() -> None:
    """A client that does not answer the card keeps the run open (no `ask_timeout` by default): the
    person's Stop ends it "cancelled", the card closes, nothing of the data went to Claude, and the
    thread's next message runs on a valid history."""
    kernel = Kernel()
    steps: list[dict[str, Any]] = [
        {"say": "show me the penguins", "asks": {"kernel_consent": {"stop": True}}},
        {"say": "try again", "asks": {"kernel_consent": SEND}},
    ]
    seen = _talk(kernel, steps, {})

    stopped, again = seen["runs"]
    assert stopped["outcome"] == "cancelled", stopped
    assert kernel.store.load("t1") is not None
    [ask] = stopped["asks"]
    assert [a["status"] for a in stopped["acked"]] == [200]  # POST /agui/stop
    assert stopped["askClosed"] == [{"id": ask["id"], "status": "cancelled"}]
    requests = [json.dumps(r, ensure_ascii=False) for r in kernel.script.requests]
    assert ["try again" in r for r in requests] == [False, True, True]  # nothing more in that run
    assert "Adelie" not in requests[1]  # the stopped call's result, as the next request holds it

    assert again["outcome"] == "success" and again["error"] is None, again
    [ask2] = again["asks"]
    assert ask2["id"] == "consent_toolu_k2.t1" and again["askClosed"] == [
        {"id": ask2["id"], "status": "answered"}
    ]
    last = json.dumps(kernel.script.requests[-1]["messages"][-1], ensure_ascii=False)
    assert "Torgersen" in last  # sent, as the person chose this time
    assert client_transcript(seen["messages"]) == kernel.history("t1")


def test_an_approval_of_the_code_still_ends_the_run_and_its_consent_card_is_asked_after() -> None:
    """The approval of a kernel run is AG-UI's own pause (an interrupt ending the run), not a question
    from inside a call, though its tool is of the kernel's category; once approved, the run's code
    asks its consent card in the resuming run's stream."""
    kernel = Kernel(approval="always")
    steps: list[dict[str, Any]] = [{"say": "show me the penguins"}, {"approve": True}]
    seen = _talk(kernel, steps, {"kernel_consent": MASK_ISLAND})

    asked, approved = seen["runs"]
    assert asked["outcome"] == "interrupt" and asked["asks"] == [] and "CUSTOM" not in asked["events"]
    assert [i["id"] for i in asked["interrupts"]] == ["confirmation:toolu_k1"]
    assert approved["outcome"] == "success" and approved["error"] is None, approved
    [ask] = approved["asks"]
    assert ask["id"] == "consent_toolu_k1.t1" and approved["askClosed"] == [
        {"id": ask["id"], "status": "answered"}
    ]
    read = json.dumps(kernel.script.requests[-1]["messages"][-1], ensure_ascii=False)
    assert "■■■" in read and "Torgersen" not in read


def test_a_stream_with_an_ask_passes_the_conformance_validator() -> None:
    """The ask and its closing are CUSTOM events a strict validator finds nothing wrong with."""
    kernel = Kernel(ask_timeout=0.5)
    body = {"threadId": "v1", "runId": "r1", "messages": [{"id": "u1", "role": "user", "content": "go"}]}

    async def go() -> httpx.Response:
        transport = httpx.ASGITransport(app=kernel.app, raise_app_exceptions=False)
        async with httpx.AsyncClient(transport=transport, base_url="http://t", headers=AUTH, timeout=30) as c:
            return await c.post("/agui", json=body)

    found = events(asyncio.run(go()))
    custom = [(e["name"], e["value"].get("status")) for e in found if e["type"] == "CUSTOM"]
    assert custom == [("notebook_tools.ask", None), ("notebook_tools.ask_closed", "timed_out")]


def test_an_mcp_servers_question_is_asked_over_agui_and_its_answer_reaches_the_server() -> None:
    """An MCP server's elicitation while its tool runs: before, an AG-UI run declined it for the person."""
    app = create_app(race_agents.ask_name_agent, token=TOKEN)
    with live_server(app) as base:
        seen = converse(
            base + "/agui", TOKEN, "m1", [{"say": "go 1"}], asks={"mcp_rounds_form": {"name": "Ada"}}
        )

    [run] = seen["runs"]
    assert run["outcome"] == "success" and run["error"] is None, run
    [ask] = run["asks"]
    assert ask["reason"] == "mcp_elicitation" and ask["id"].endswith(".m1"), ask
    assert ask["message"] == "An MCP server asks you for information"  # the server's words: in metadata.input
    assert ask["metadata"]["input"]["server"] == "rounds" and ask["metadata"]["name"] == "mcp_rounds_form"
    assert ask["responseSchema"]["properties"]["name"]["type"] == "string"
    assert [(a["id"], a["status"]) for a in run["acked"]] == [(ask["id"], 200)]
    assert run["askClosed"] == [{"id": ask["id"], "status": "answered"}]
    assert ask["toolCallId"] == "ask"  # the MCP tool's call, running
    said = [m["content"] for m in client_transcript(seen["messages"]) if m["role"] == "assistant"]
    assert "The server said: hello Ada." in said
