"""A page that reconnects while a cell sits in `await chat.send(...)` gets its answers from a real kernel.

A reloaded JupyterLab page asks `kernel_info` and `comm_info` on the main shell before it draws any
widget; both used to wait for the awaiting cell. Here they are answered at once, framed by busy and
idle statuses as a page needs, while a cell sent meanwhile still waits its turn.
"""

import pytest

from notebook_tools.widgets._reconnect import answer_reconnects
from tests.support.kernel_client import KernelSession

pytestmark = pytest.mark.kernel

SETUP = """
import notebook_tools as nt
from notebook_tools import testing as t
script = t.ScriptedTransport(
    t.turn("One question.", t.tool_use("user_confirm", {"message": "Go?"}, id="q1")),
    t.reply("done"),
)
chat = nt.Chat(nt.Agent(client=script.client(), frontend_tools=[nt.user_confirm]))
"""


@pytest.fixture
def kernel():
    session = KernelSession()
    yield session
    session.close()


def request(kernel, msg_type, content):
    msg = kernel.kc.session.msg(msg_type, content)
    kernel.kc.shell_channel.send(msg)
    return msg["header"]["msg_id"]


def statuses(kernel, msg_id):
    return [
        m["content"]["execution_state"]
        for m in kernel.iopub
        if m["msg_type"] == "status" and m["parent_header"].get("msg_id") == msg_id
    ]


def test_kernel_and_comm_info_are_answered_while_a_cell_awaits_and_cells_keep_their_order(kernel):
    kernel.execute(SETUP)
    chat_comm = kernel.anywidget_comms()[-1]
    run = kernel.execute("result = await chat.send('go')", wait=False)
    kernel.pump(lambda: kernel.pending(chat_comm) == ["q1"])
    later = kernel.execute("after = result.text", wait=False)  # queued behind the awaiting cell

    info = request(kernel, "kernel_info_request", {})
    comms = request(kernel, "comm_info_request", {"target_name": "jupyter.widget"})
    kernel.pump(lambda: all(m in kernel.replies and "idle" in statuses(kernel, m) for m in (info, comms)))
    assert kernel.replies[info]["content"]["status"] == "ok"
    assert chat_comm in kernel.replies[comms]["content"]["comms"]
    for msg_id in (info, comms):
        assert statuses(kernel, msg_id) == ["busy", "idle"]

    # the running cell is shown busy again after each answer
    def shown_busy_again():
        last = [m for m in kernel.iopub if m["msg_type"] == "status"][-1]
        return (
            last["content"]["execution_state"] == "busy"
            and last["parent_header"]["msg_type"] == "execute_request"
        )

    kernel.pump(shown_busy_again)
    # nothing else jumped the queue: the later cell has not run
    assert later not in kernel.replies and run not in kernel.replies

    # the answer is taken at once (a confirm's value is "yes" or "no": {"value": True} was refused,
    # and the test passed on the tool's 60 s timeout, the call ending as an error)
    kernel.answer(chat_comm, {}, "q1", {"value": "yes"})
    kernel.wait_reply(run)
    kernel.wait_reply(later)
    assert kernel.value("after") == "done"
    call = kernel.transcript(chat_comm)["q1"]
    assert call["status"] == "done" and call["prompt"]["status"] == "answered", call


def test_an_idle_kernel_answers_as_it_always_did(kernel):
    kernel.execute(SETUP)
    info = request(kernel, "kernel_info_request", {})
    kernel.pump(lambda: info in kernel.replies and "idle" in statuses(kernel, info))
    assert statuses(kernel, info) == ["busy", "idle"]


def test_without_an_ipykernel_nothing_is_installed():
    assert answer_reconnects(object()) is False
    assert answer_reconnects() is False  # plain Python: no kernel to change
