"""Kernel level: Stop while an approved backend tool runs; a JupyterLab restart while a turn is paused.

A real ipykernel, spoken to as JupyterLab speaks to it (tests/support/kernel_client.py): cells run on the
shell channel, the widget's view talks through the AnyWidget comm, the Stop button sends
{"type": "stop"}, and the restart is jupyter_server's (SIGINT, shutdown_request with restart, a
new process). The scripted model refuses any history the Messages API would refuse.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

pytestmark = pytest.mark.kernel

INTERRUPTED = "Interrupted by the user"


def hello(kernel, comm: str, view: str = "view-1") -> None:
    kernel.send_custom(comm, {"type": "hello", "view_id": view})


def answer(kernel, comm: str, tool_use_id: str, value: Any) -> None:
    """What a prompt card sends when the person answers (js/src/chat/cards.ts `submit`)."""
    kernel.send_custom(comm, {"type": "answer", "tool_use_id": tool_use_id, "answer": {"value": value}})


def prompt_statuses(messages: list[dict[str, Any]], comm: str) -> dict[str, list[str]]:
    """Every status each prompt of the widget `comm` went through, in order (open ones in the
    `prompts` trait, closed ones on their transcript items)."""
    seen: dict[str, list[str]] = {}
    for m in messages:
        if m["content"].get("comm_id") != comm or m["msg_type"] not in ("comm_open", "comm_msg"):
            continue
        data = m["content"]["data"]
        prompts = dict((data.get("state") or {}).get("prompts") or {})
        if data.get("method") == "custom" and data["content"].get("type") in ("items", "snapshot"):
            prompts = {i["id"]: i["prompt"] for i in data["content"]["items"] if "prompt" in i}
        for tool_use_id, prompt in prompts.items():
            statuses = seen.setdefault(tool_use_id, [])
            if not statuses or statuses[-1] != prompt["status"]:
                statuses.append(prompt["status"])
    return seen


def turn_ended(kernel, comm: str) -> bool:
    """The widget went busy and then not busy again (its `busy` trait, as a view sees it)."""
    busy = [
        m["content"]["data"]["state"]["busy"]
        for m in kernel.comm_msgs(comm)
        if "busy" in m["content"]["data"].get("state", {})
    ]
    return True in busy and busy[-1] is False


# -- 1. Stop while an approved backend tool runs -------------------------------------------------

STOP_SETUP = """
import asyncio
import notebook_tools as nt
from notebook_tools import testing as t

started, cancelled, finished = [], [], []

@nt.tool(needs_approval=True)
async def slow_delete(n: int) -> str:
    '''Delete rows, slowly.

    Args:
        n: How many rows.
    '''
    started.append(n)
    try:
        await asyncio.sleep(30)
    except asyncio.CancelledError:
        cancelled.append(n)
        raise
    finished.append(n)
    return f"deleted {n}"

script = t.ScriptedTransport(
    t.turn("Deleting.", t.tool_use("slow_delete", {"n": 5}, id="del_1")),
    t.reply("Stopped, as you asked."),
)
agent = nt.Agent(client=script.client(), tools=[slow_delete], store=nt.SQLiteStore(DB))
chat = nt.Chat(agent)
chat
"""


def test_stop_while_an_approved_tool_runs_closes_the_call_and_the_next_message_works(kernel, tmp_path):
    kernel.execute(f"DB = {str(tmp_path / 'stop.sqlite')!r}\n" + STOP_SETUP)
    [comm] = kernel.anywidget_comms()
    hello(kernel, comm)

    cell = kernel.execute("result = await chat.send('go')", wait=False)
    kernel.pump(lambda: kernel.pending(comm) == ["del_1"])
    assert kernel.state(comm)["prompts"]["del_1"]["kind"] == "approval"
    answer(kernel, comm, "del_1", {"approved": True})
    # The kernel is busy in the awaiting cell, so no cell can look; the view sees the call start:
    # the tool_started event upserts the transcript item with status "running".
    kernel.pump(lambda: kernel.transcript(comm).get("del_1", {}).get("status") == "running")
    assert kernel.prompts(comm)["del_1"]["status"] == "answered"

    kernel.send_custom(comm, {"type": "stop"})  # the Stop button
    kernel.pump(lambda: cell in kernel.replies and kernel._idle(cell))

    # The awaiting cell ends normally with a "stopped" result (no traceback, nothing on stdout).
    assert kernel.replies[cell]["content"]["status"] == "ok"
    assert kernel.stdout(cell) == ""
    assert kernel.value("result.stop_reason") == "stopped"

    # The widget: stopped, not busy, the approval stays answered, the call is not shown running.
    state = kernel.state(comm)
    assert (state["status"], state["busy"]) == ("stopped", False)
    assert kernel.prompts(comm)["del_1"]["status"] == "answered" and state["prompts"] == {}
    after_stop = kernel.transcript(comm)  # checked last, below
    assert any(i["kind"] == "notice" and i["text"] == "Stopped." for i in after_stop.values())

    # The tool started, was cancelled, never finished.
    assert kernel.value("[started, cancelled, finished]") == [[5], [5], []]
    # The history ends with ONE results message: the call closed as interrupted.
    last = kernel.value("agent.state.messages[-1]")
    assert last["role"] == "user"
    [block] = last["content"]
    assert block["type"] == "tool_result" and block["tool_use_id"] == "del_1"
    assert block["is_error"] is True and "interrupted" in block["content"].lower()
    assert kernel.value("agent.state.status") == "idle"
    assert kernel.value("agent.store.load(agent.agent_uuid) == agent.state") is True
    assert kernel.value("nt.SQLiteStore(DB).load(agent.agent_uuid) == agent.state") is True  # on disk

    # The next message carries on; the strict scripted API accepted every request.
    kernel.execute("result = await chat.send('and now?')")
    assert kernel.value("result.text") == "Stopped, as you asked."
    assert kernel.value("[repr(r) for r in script.refused]") == []
    sent = kernel.value("script.requests[-1]['messages']")
    assert [m["role"] for m in sent] == ["user", "assistant", "user"]
    assert sent[-1]["content"] == [
        {"type": "tool_result", "tool_use_id": "del_1", "content": block["content"], "is_error": True},
        {"type": "text", "text": "and now?"},
    ]
    assert kernel.value("[agent.state.status, len(script.requests), script.remaining]") == ["idle", 2, 0]
    assert kernel.value("agent.store.load(agent.agent_uuid) == agent.state") is True

    # What the view showed once stopped: the call's card with its interrupted result, not a spinner.
    tool_item = after_stop["del_1"]
    assert tool_item["status"] == "error", (
        f"the stopped call still shows {tool_item['status']!r}: {tool_item}"
    )
    assert tool_item["is_error"] is True and INTERRUPTED in tool_item["result"]


# -- 2. A JupyterLab restart while paused, one of two prompts answered ---------------------------

RESTART_SETUP = """
import notebook_tools as nt
from notebook_tools import testing as t

DB = {db!r}
script = t.ScriptedTransport({steps})
agent = nt.Agent(client=script.client(), frontend_tools=[nt.user_confirm, nt.ask_text], store=nt.SQLiteStore(DB))
"""
REPLY = 'lambda request: t.reply(f"Got: {t.answers_in(request)}")'
TWO_QUESTIONS = (
    't.turn("Two questions.", t.tool_use("user_confirm", {"message": "Go on?"}, id="c1"),'
    ' t.tool_use("ask_text", {"prompt": "Your name?"}, id="t1")), ' + REPLY
)
START = {
    "background-task": ("task = chat.send_nowait('go')", True),  # the cell returns at once
    "awaiting-cell": ("result = await chat.send('go')", False),  # the cell awaits the turn
}


@pytest.mark.parametrize("start", list(START))
def test_restart_while_paused_keeps_the_given_answer_and_the_resumed_turn_finishes(kernel, tmp_path, start):
    db = str(tmp_path / "restart.sqlite")
    kernel.execute(RESTART_SETUP.format(db=db, steps=TWO_QUESTIONS) + "chat = nt.Chat(agent)\nchat")
    [comm] = kernel.anywidget_comms()
    hello(kernel, comm)
    code, wait = START[start]
    kernel.execute(code, wait=wait)
    kernel.pump(lambda: kernel.pending(comm) == ["c1", "t1"])
    answer(kernel, comm, "c1", "yes")
    kernel.pump(lambda: kernel.prompts(comm)["c1"]["status"] == "answered")  # accepted and saved
    assert kernel.pending(comm) == ["t1"]

    old = kernel.restart()  # JupyterLab's Restart Kernel
    assert kernel.value("'chat' in globals()") is False  # a fresh process

    # The session as the old kernel left it: c1's answer held, t1 still open, nothing interrupted.
    kernel.execute(RESTART_SETUP.format(db=db, steps=REPLY))
    kernel.execute("[uuid] = nt.SQLiteStore(DB).list_sessions()\nsaved = agent.store.load(uuid)")
    saved = kernel.value(
        "[saved.status, [r.model_dump(mode='json') for r in saved.held_results],"
        " [p.tool_use_id for p in saved.pending_frontend_tools], [m['role'] for m in saved.messages]]"
    )
    assert saved == [
        "awaiting_frontend_tools",
        [{"kind": "tool_result", "tool_use_id": "c1", "content": "yes", "is_error": False}],
        ["t1"],
        ["user", "assistant"],
    ], f"the restart changed the saved pause (the {start} was treated as a Stop?)"

    # The same notebook cells again: the chat rebuilt from the store.
    kernel.execute("chat = nt.Chat.resume(uuid, agent=agent)\nchat")
    [comm2] = kernel.anywidget_comms()
    prompts = kernel.prompts(comm2)
    assert {k: p["status"] for k, p in prompts.items()} == {"c1": "answered", "t1": "pending"}
    hello(kernel, comm2, "view-2")
    kernel.pump(lambda: kernel.custom_from_kernel(comm2, "snapshot"))
    answer(kernel, comm2, "t1", "Ada Lovelace")
    kernel.pump(lambda: turn_ended(kernel, comm2))

    got = "Got: {'user_confirm': 'yes', 'ask_text': 'Ada Lovelace'}"
    assert kernel.value("agent.state.messages[-1]") == {
        "role": "assistant",
        "content": [{"type": "text", "text": got}],
    }
    assert kernel.value("[repr(r) for r in script.refused]") == []
    [request] = kernel.value("script.requests")
    assert [m["role"] for m in request["messages"]] == ["user", "assistant", "user"]
    assert request["messages"][-1]["content"] == [  # both answers, in ONE user message
        {"type": "tool_result", "tool_use_id": "c1", "content": "yes"},
        {"type": "tool_result", "tool_use_id": "t1", "content": "Ada Lovelace"},
    ]
    assert kernel.value("[agent.state.status, [m['role'] for m in agent.state.messages]]") == [
        "idle",
        ["user", "assistant", "user", "assistant"],
    ]
    assert kernel.value("agent.store.load(uuid) == agent.state") is True

    # The new widget: both prompts answered; the transcript shows both calls done with their answers.
    state = kernel.state(comm2)
    assert {k: p["status"] for k, p in kernel.prompts(comm2).items()} == {"c1": "answered", "t1": "answered"}
    assert state["prompts"] == {}  # the synced (saved) state holds only open prompts
    assert (state["status"], state["busy"]) == ("idle", False)
    items = kernel.transcript(comm2)
    shown = {i: (items[i].get("status"), items[i].get("result")) for i in ("c1", "t1")}
    assert shown == {"c1": ("done", "yes"), "t1": ("done", "Ada Lovelace")}
    assert items[next(reversed(items))]["text"] == got

    # Neither widget ever showed a prompt cancelled or a call interrupted.
    for messages, widget in ((old, comm), (kernel.iopub, comm2)):
        statuses = prompt_statuses(messages, widget)
        assert all("cancelled" not in s for s in statuses.values()), statuses
        assert INTERRUPTED not in json.dumps([m["content"] for m in messages])
