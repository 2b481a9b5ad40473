"""A refused answer shows in its prompt as a sentence, never as a stderr block in the waiting cell.

A real ipykernel, as JupyterLab drives it: the cell awaits `chat.send(...)`, the view edits an
approval's arguments into a blocked folder, the kernel refuses the edit. Python's logging, with no
handler set up, prints WARNING records to stderr, which JupyterLab shows as a red block in the cell.
"""

import pytest

pytestmark = pytest.mark.kernel

SETUP = """
import notebook_tools as nt
from notebook_tools import testing as t

zones = nt.PathZones({"data/raw": {"write": "blocked"}}, default="ask")

@nt.tool(needs_approval=zones.rule("write", path_arg="path"))
def save_csv(path: str) -> str:
    '''Save the table.

    Args:
        path: Where to.
    '''
    return f"saved {path}"

script = t.ScriptedTransport(
    t.turn("Saving.", t.tool_use("save_csv", {"path": "scratch/out.csv"}, id="w1")),
    lambda request: t.reply(f"Done: {t.answers_in(request)}"),
)
chat = nt.Chat(nt.Agent(client=script.client(), tools=[save_csv]))
chat
"""


def test_a_refused_approval_edit_shows_in_the_card_and_never_on_stderr(kernel):
    before = set(kernel.anywidget_comms())
    kernel.execute(SETUP)
    [comm] = [c for c in kernel.anywidget_comms() if c not in before]
    kernel.send_custom(comm, {"type": "hello", "view_id": "v1"})
    waiting = kernel.execute("result = await chat.send('save it')", wait=False)
    kernel.pump(lambda: kernel.pending(comm) == ["w1"])
    edited = {"approved": True, "edited_input": {"path": "data/raw/sales.csv"}}
    kernel.send_custom(comm, {"type": "answer", "tool_use_id": "w1", "answer": {"value": edited}})
    kernel.pump(lambda: kernel.state(comm)["prompts"]["w1"].get("error"))
    error = kernel.state(comm)["prompts"]["w1"]["error"]
    # a sentence a person reads, naming the blocked folder (not the file, not a tool_use id)
    assert error == (
        "That edit is not allowed: write is blocked in the folder 'data/raw'. Change the arguments, "
        "or approve or deny the call as it was."
    )
    denied = {"approved": False, "reason": "fine"}
    kernel.send_custom(comm, {"type": "answer", "tool_use_id": "w1", "answer": {"value": denied, "at": 2}})
    kernel.wait_reply(waiting)
    stderr = [
        m["content"]["text"]
        for m in kernel.iopub
        if m["msg_type"] == "stream" and m["content"]["name"] == "stderr"
    ]
    assert stderr == [], stderr
    assert "toolu" not in error and "w1" not in error
    assert kernel.value("result.stop_reason") == "end_turn"
