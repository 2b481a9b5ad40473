"""Kernel level: approvals through the widget protocol, and interrupting a turn (Stop and the kernel's ■)."""

import pytest

pytestmark = pytest.mark.kernel

SETUP = """
import notebook_tools as nt
from notebook_tools import testing as t

ran = []

@nt.tool(needs_approval=lambda args: args["n_rows"] > 10)
def delete_rows(n_rows: int) -> str:
    '''Delete rows.

    Args:
        n_rows: How many.
    '''
    ran.append(n_rows)
    return f"deleted {n_rows}"

script = t.ScriptedTransport(*STEPS, event_delay=DELAY)
agent = nt.Agent(client=script.client(), tools=[delete_rows], frontend_tools=[nt.user_confirm])
chat = nt.Chat(agent)
chat
"""


def start(kernel, steps, delay=0.0):
    kernel.execute(f"from notebook_tools import testing as t\nSTEPS = [{steps}]\nDELAY = {delay}\n" + SETUP)
    [comm] = kernel.anywidget_comms()
    kernel.send_custom(comm, {"type": "hello", "view_id": "v"})
    return comm


def answer(kernel, comm, tool_use_id, value):
    kernel.send_custom(comm, {"type": "answer", "tool_use_id": tool_use_id, "answer": {"value": value}})


def test_approve_deny_and_edit_through_the_widget_protocol(kernel):
    comm = start(
        kernel,
        't.turn(t.tool_use("delete_rows", {"n_rows": 50}, id="a"), t.tool_use("delete_rows", {"n_rows": 60}, id="b"),'
        ' t.tool_use("delete_rows", {"n_rows": 70}, id="c"), t.tool_use("delete_rows", {"n_rows": 1}, id="d")),'
        ' t.reply("ok")',
    )
    cell = kernel.execute("result = await chat.send('go')", wait=False)
    kernel.pump(lambda: kernel.pending(comm) == ["a", "b", "c"])
    assert kernel.state(comm)["prompts"]["a"]["kind"] == "approval"
    answer(kernel, comm, "a", {"approved": True})
    answer(kernel, comm, "b", {"approved": False, "reason": "not that many"})
    answer(kernel, comm, "c", {"approved": True, "edited_input": {"n_rows": 7}})
    kernel.wait_reply(cell)
    assert kernel.value("ran") == [1, 50, 7]
    last = {b["tool_use_id"]: b for b in kernel.value("script.requests[-1]['messages'][-1]['content']")}
    assert last["a"]["content"] == "deleted 50"
    assert last["b"]["content"] == "The user denied this call. Reason: not that many"
    assert 'it ran with {"n_rows": 7}' in last["c"]["content"]
    assert kernel.value("[r.decision for r in agent.store.audit_log()]") == ["approved", "denied", "edited"]


def test_stop_button_while_streaming_then_the_next_message_works(kernel):
    comm = start(kernel, 't.reply("slow words " * 300), t.reply("Sure, stopped.")', delay=0.01)
    cell = kernel.execute("result = await chat.send('write a lot')", wait=False)
    kernel.pump(lambda: kernel.custom_from_kernel(comm, "delta"))
    kernel.send_custom(comm, {"type": "stop"})
    kernel.pump(lambda: cell in kernel.replies)
    assert kernel.replies[cell]["content"]["status"] == "ok"  # no CancelledError traceback
    assert kernel.value("result.stop_reason") == "stopped"
    streamed = "".join(d["text"] for d in kernel.custom_from_kernel(comm, "delta"))
    assert len(streamed) < len("slow words " * 300)  # cut short
    kernel.execute("result = await chat.send('ok, short please')")
    assert kernel.value("result.text") == "Sure, stopped."
    messages = kernel.value("script.requests[-1]['messages']")
    assert [m["role"] for m in messages] == ["user"]  # no partial assistant message


def test_kernel_interrupt_during_a_pending_prompt(kernel):
    comm = start(
        kernel, 't.turn(t.tool_use("user_confirm", {"message": "Go?"}, id="q")), t.reply("Fine, I stopped.")'
    )
    cell = kernel.execute("result = await chat.send('go')", wait=False)
    kernel.pump(lambda: kernel.pending(comm) == ["q"])
    kernel.km.interrupt_kernel()  # the toolbar's ■
    kernel.pump(lambda: cell in kernel.replies)
    assert kernel.replies[cell]["content"]["status"] == "ok"  # the ■ button is a Stop: no traceback
    assert kernel.value("result.stop_reason") == "stopped"
    assert kernel.prompts(comm)["q"]["status"] == "cancelled"
    kernel.execute("result = await chat.send('why did you stop?')")
    assert kernel.value("result.text") == "Fine, I stopped."
    last = kernel.value("script.requests[-1]['messages'][-1]['content']")
    assert last[0]["tool_use_id"] == "q" and last[0]["is_error"] is True
    assert last[1]["text"] == "why did you stop?"
