"""Uploads the kernel refuses (issue 26, item 11): never in `chat.files`, nothing left on disk.

A file named `.csv` passes the browser's `accept` check; the kernel would save it as `csv`, so it is
refused before any byte is sent, in words a person reads. A finished upload whose answer is refused,
one refused mid-way, and the uploads of a prompt that closed without them leave no file behind; only
the file of the answer that stands joins `chat.files`.
"""

import asyncio
import json

import notebook_tools as nt
from notebook_tools import testing as t
from tests.support.browser_double import FakeView, pending_ids, until

CSV = b"sku,price\n" + b"".join(b"A%d,%d.50\n" for i in range(20))


def chat_for(make_agent, tmp_path, *steps):
    agent, script = make_agent(*steps, frontend_tools=[nt.pick_file])
    chat = nt.Chat(agent, upload_dir=tmp_path / "up")
    return chat, FakeView(chat), script


def on_disk(tmp_path):
    folder = tmp_path / "up"
    return sorted(p.name for p in folder.iterdir()) if folder.exists() else []


def upload(view, upload_id, name, data, tool_use_id="f1"):
    view.custom(
        {
            "type": "upload_start",
            "upload_id": upload_id,
            "tool_use_id": tool_use_id,
            "name": name,
            "size": len(data),
        }
    )
    if data and view.of_type("upload_ack")[-1]["ok"]:
        view.custom({"type": "upload_chunk", "upload_id": upload_id, "seq": 0}, [data])
    return view.of_type("upload_ack")[-1]


async def start(chat):
    task = asyncio.ensure_future(chat.send("prices please"))
    await until(lambda: pending_ids(chat) or task.done())
    return task


def test_a_file_named_only_an_extension_is_refused_in_words_then_a_good_one_is_taken(make_agent, tmp_path):
    chat, view, script = chat_for(
        make_agent,
        tmp_path,
        t.turn("Prices?", t.tool_use("pick_file", {"prompt": "Prices", "accept": ".csv"}, id="f1")),
        t.reply("ok"),
    )

    async def main():
        task = await start(chat)
        ack = upload(view, "bad", ".csv", CSV)
        assert ack["ok"] is False
        assert (
            ack["error"]
            == '".csv" has no name before its extension: rename it (say, data.csv) and upload it again.'
        )
        assert on_disk(tmp_path) == [] and len(chat.files) == 0
        assert chat.prompts["f1"]["status"] == "pending"  # still open: the person sends another file
        assert upload(view, "good", "prices.csv", CSV)["done"] is True
        view.answer("f1", {"value": {"uploads": ["good"]}})
        return await task

    assert asyncio.run(main()).text == "ok"
    assert list(chat.files) == [str(tmp_path / "up" / "prices.csv")]
    assert on_disk(tmp_path) == ["prices.csv"]
    # nor in what is saved: the answer shown, the model's tool result
    assert chat.prompts["f1"]["answer"] == "prices.csv"
    result = script.requests[-1]["messages"][-1]["content"][0]["content"]
    assert json.loads(result[0]["text"]) == [
        {
            "name": "prices.csv",
            "path": str(tmp_path / "up" / "prices.csv"),
            "size": len(CSV),
            "media_type": "text/csv",
        }
    ]


def test_an_upload_whose_answer_is_refused_is_deleted_and_never_listed(make_agent, tmp_path):
    chat, view, _ = chat_for(
        make_agent,
        tmp_path,
        t.turn("Prices?", t.tool_use("pick_file", {"prompt": "Prices", "accept": ".csv"}, id="f1")),
        t.reply("ok"),
    )

    async def main():
        task = await start(chat)
        upload(view, "one", "a.csv", CSV)
        upload(view, "two", "b.csv", CSV)
        assert on_disk(tmp_path) == ["a.csv", "b.csv"] and len(chat.files) == 0  # not chosen yet
        view.answer("f1", {"value": {"uploads": ["one", "two"]}})
        assert chat.prompts["f1"]["error"] == "this prompt takes one file"
        assert on_disk(tmp_path) == [] and len(chat.files) == 0  # refused: gone, not listed
        upload(view, "three", "a.csv", CSV)
        view.answer("f1", {"value": {"uploads": ["three"]}, "at": 2})
        return await task

    asyncio.run(main())
    assert [name.rsplit("/", 1)[-1] for name in chat.files] == ["a.csv"]
    assert on_disk(tmp_path) == ["a.csv"]


def test_uploads_refused_mid_way_or_left_when_the_prompt_closes_leave_nothing_on_disk(make_agent, tmp_path):
    chat, view, _ = chat_for(
        make_agent,
        tmp_path,
        t.turn("Prices?", t.tool_use("pick_file", {"prompt": "Prices", "accept": ".csv"}, id="f1")),
        t.reply("ok"),
    )

    async def main():
        task = await start(chat)
        # a chunk out of order: the upload is refused and its part file deleted
        view.custom(
            {"type": "upload_start", "upload_id": "gap", "tool_use_id": "f1", "name": "a.csv", "size": 20}
        )
        view.custom({"type": "upload_chunk", "upload_id": "gap", "seq": 0}, [b"sku,price\n"])
        assert len(on_disk(tmp_path)) == 1  # the part file
        view.custom({"type": "upload_chunk", "upload_id": "gap", "seq": 2}, [b"A1,1.50\n"])
        assert view.of_type("upload_ack")[-1]["ok"] is False and on_disk(tmp_path) == []
        # more bytes than announced: refused, deleted
        view.custom(
            {"type": "upload_start", "upload_id": "over", "tool_use_id": "f1", "name": "b.csv", "size": 4}
        )
        view.custom({"type": "upload_chunk", "upload_id": "over", "seq": 0}, [b"sku,price\n"])
        assert view.of_type("upload_ack")[-1]["ok"] is False and on_disk(tmp_path) == []
        # one finished and one half-sent when the person skips: both deleted
        upload(view, "done", "c.csv", CSV)
        view.custom(
            {"type": "upload_start", "upload_id": "half", "tool_use_id": "f1", "name": "d.csv", "size": 40}
        )
        view.custom({"type": "upload_chunk", "upload_id": "half", "seq": 0}, [b"sku,price\n"])
        assert len(on_disk(tmp_path)) == 2
        view.answer("f1", {"skip": True})
        return await task

    asyncio.run(main())
    assert on_disk(tmp_path) == [] and len(chat.files) == 0
