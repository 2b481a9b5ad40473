"""Kernel level: a real ipykernel, the widget protocol spoken like the browser, the scripted model."""

import json

import pytest

pytestmark = pytest.mark.kernel

SETUP = """
import json
import notebook_tools as nt
from notebook_tools import testing as t

script = t.ScriptedTransport(
    t.turn(
        "I need a few answers.",
        t.tool_use("user_confirm", {"message": "Drop 12 rows?"}, id="k_confirm"),
        t.tool_use("ask_text", {"prompt": "New column name?"}, id="k_text"),
        t.tool_use("select_option", {"prompt": "Target?", "options": ["price", "qty", "region"], "multiple": True}, id="k_select"),
        t.tool_use("pick_file", {"prompt": "The data?"}, id="k_file"),
    ),
    t.reply("All done."),
)
agent = nt.Agent(client=script.client(), frontend_tools=[nt.user_confirm, nt.ask_text, nt.select_option, nt.pick_file])
chat = nt.Chat(agent, upload_dir=UPLOADS)
chat
"""


def _start(kernel, tmp_path, run_code):
    kernel.execute(f"UPLOADS = {str(tmp_path / 'uploads')!r}\n" + SETUP)
    [comm] = kernel.anywidget_comms()
    cell = kernel.execute(run_code, wait=False)
    kernel.pump(lambda: len(kernel.pending(comm)) == 4)
    return comm, cell


CHUNK = 4 * 1024 * 1024 - 64 * 1024  # what the front end sends (js/src/prompts/upload.ts CHUNK_BYTES)


def _upload(kernel, comm, upload_id, tool_use_id, data, chunk=CHUNK):
    acks = lambda: [a for a in kernel.custom_from_kernel(comm, "upload_ack") if a["upload_id"] == upload_id]  # noqa: E731
    kernel.send_custom(
        comm,
        {
            "type": "upload_start",
            "upload_id": upload_id,
            "tool_use_id": tool_use_id,
            "name": "big.bin",
            "size": len(data),
            "media_type": "application/octet-stream",
        },
    )
    kernel.pump(lambda: len(acks()) == 1)
    assert acks()[0]["ok"], acks()
    for seq, start in enumerate(range(0, len(data), chunk)):
        kernel.send_custom(
            comm, {"type": "upload_chunk", "upload_id": upload_id, "seq": seq}, [data[start : start + chunk]]
        )
        kernel.pump(lambda n=seq: len(acks()) == n + 2)  # one chunk in flight, as the front end does
    return acks()


def test_every_prompt_kind_answered_through_the_comm_while_a_cell_awaits(kernel, tmp_path):
    comm, cell = _start(kernel, tmp_path, "result = await chat.send('Clean it')")
    data = bytes(range(256)) * (12 * 1024 * 1024 // 256)  # 12 MiB
    acks = _upload(kernel, comm, "up1", "k_file", data)
    assert [a["received"] for a in acks[1:]] == [CHUNK, 2 * CHUNK, 3 * CHUNK, len(data)] and acks[-1][
        "done"
    ] is True
    answers = {}
    kernel.answer(comm, answers, "k_confirm", {"value": "yes", "at": 1})
    kernel.answer(comm, answers, "k_text", {"value": "price_eur", "at": 2})
    kernel.answer(comm, answers, "k_select", {"value": ["price", "qty"], "at": 3})
    kernel.answer(comm, answers, "k_file", {"value": {"uploads": ["up1"]}, "at": 4})
    kernel.wait_reply(cell, timeout=60)

    last = kernel.value("script.requests[-1]['messages'][-1]")
    results = {b["tool_use_id"]: b for b in last["content"]}
    assert results["k_confirm"]["content"] == "yes"
    assert results["k_text"]["content"] == "price_eur"
    assert json.loads(results["k_select"]["content"]) == ["price", "qty"]
    meta = json.loads(results["k_file"]["content"][0]["text"])
    assert meta[0]["name"] == "big.bin" and meta[0]["size"] == len(data)
    assert kernel.value("result.text") == "All done."
    assert kernel.value("len(chat.files['big.bin'])") == len(data)
    # no comm message the kernel sent is over 4 MiB, and no file byte entered synced state
    state = kernel.state(comm)
    assert state["prompts"] == {}  # answered prompts left the synced state for their transcript items
    assert {p["status"] for p in kernel.prompts(comm).values()} == {"answered"}
    data = {
        k: v for k, v in state.items() if k not in ("_esm", "_css")
    }  # the bundle itself is code, not data
    assert len(json.dumps(data)) < 100_000


def test_background_turn_bad_answers_and_stale_answers_in_a_real_kernel(kernel, tmp_path):
    comm, cell = _start(kernel, tmp_path, "task = chat.send_nowait('Clean it')")
    kernel.wait_reply(cell)  # send_nowait returns at once; the turn runs on the kernel's loop
    answers = {}
    kernel.answer(comm, answers, "k_confirm", {"value": "perhaps", "at": 1})
    kernel.pump(lambda: kernel.state(comm)["prompts"]["k_confirm"]["error"] != "")
    assert kernel.state(comm)["prompts"]["k_confirm"]["error"] == "a confirm answer must be 'yes' or 'no'"
    kernel.send_custom(comm, {"type": "upload_chunk", "upload_id": "nope", "seq": 0}, [b"x"])
    kernel.pump(lambda: "unknown upload 'nope'" in kernel.state(comm).get("error", ""))
    kernel.answer(comm, answers, "k_confirm", {"value": "no", "at": 2})
    kernel.answer(comm, answers, "k_text", {"skip": True, "at": 3})
    kernel.answer(comm, answers, "k_select", {"value": ["region"], "at": 4})
    kernel.answer(comm, answers, "k_file", {"skip": True, "at": 5})
    kernel.pump(
        lambda: kernel.state(comm).get("busy") is False and kernel.state(comm).get("status") == "idle"
    )
    kernel.answer(comm, answers, "k_confirm", {"value": "yes", "at": 6})  # late: ignored
    kernel.pump(lambda: "already answered" in kernel.state(comm).get("error", ""))
    last = kernel.value("script.requests[-1]['messages'][-1]")
    results = {b["tool_use_id"]: b for b in last["content"]}
    assert results["k_confirm"]["content"] == "no"
    assert results["k_text"]["is_error"] is True
    assert results["k_file"]["is_error"] is True
    assert kernel.value("len(script.requests)") == 2
    # the transcript reached the "browser" as custom messages
    items = [i for m in kernel.custom_from_kernel(comm, "items") for i in m["items"]]
    assert {i.get("kind") for i in items} >= {"user", "tool", "assistant"}
