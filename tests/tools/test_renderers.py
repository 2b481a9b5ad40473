"""Custom renderers and browser-executed built-ins, without a browser: what the kernel sends and checks."""

import asyncio
import json

import pytest

import notebook_tools as nt
from notebook_tools import testing as t
from tests.support.browser_double import FakeView, pending_ids, until

COLOR_ESM = "export default ({ input, el, submit }) => { el.textContent = input.purpose; };"


def color_tool(**options):
    @nt.tool(
        executor="frontend",
        renderer=nt.Renderer(esm=COLOR_ESM),
        output_schema={
            "type": "object",
            "properties": {"hex": {"type": "string", "pattern": "^#[0-9a-f]{6}$"}},
            "required": ["hex"],
        },
        **options,
    )
    def pick_color(purpose: str) -> str:
        """Ask the user to pick a colour.

        Args:
            purpose: What the colour is for.
        """

    return pick_color


def chat_with(make_agent, *calls, frontend_tools, root=None):
    agent, script = make_agent(t.turn("Asking.", *calls), t.reply("done"), frontend_tools=frontend_tools)
    chat = nt.Chat(agent, root=root)
    return chat, FakeView(chat), script


def results(script):
    return {b["tool_use_id"]: b for b in script.requests[-1]["messages"][-1]["content"]}


def run(chat, act):
    async def main():
        task = asyncio.ensure_future(chat.send("go"))
        await until(lambda: pending_ids(chat) or task.done())
        await act()
        return await task

    return asyncio.run(main())


def test_renderer_takes_source_or_a_file_path(tmp_path):
    module = tmp_path / "slider.js"
    module.write_text(COLOR_ESM)
    assert nt.Renderer(esm=COLOR_ESM).source == COLOR_ESM
    assert nt.Renderer(esm=str(module)).source == COLOR_ESM
    assert nt.Renderer(esm=module).path == module
    with pytest.raises(nt.ToolDefinitionError, match="is not a file"):
        nt.Renderer(esm=tmp_path / "missing.js")
    with pytest.raises(nt.ToolDefinitionError, match="at most"):
        nt.Renderer(esm="x" * (600 * 1024))
    with pytest.raises(nt.ToolDefinitionError, match="executor='frontend'"):
        nt.tool(renderer=nt.Renderer(esm=COLOR_ESM))(lambda: None)


def test_hello_sends_the_modules_before_the_snapshot_and_not_in_the_saved_state(make_agent):
    tool = color_tool()
    chat, view, _ = chat_with(make_agent, frontend_tools=[tool, nt.open_url])
    view.custom({"type": "hello", "view_id": "v1"})
    kinds = [c["type"] for c, _ in view.sent]
    assert kinds[:2] == ["renderers", "snapshot"]
    assert view.of_type("renderers")[0]["renderers"] == {"pick_color": COLOR_ESM}  # built-ins are bundled
    assert COLOR_ESM not in json.dumps(chat.view.get_state())


def test_a_renderer_file_that_went_away_is_reported_and_the_view_still_gets_its_snapshot(
    make_agent, tmp_path
):
    module = tmp_path / "color.js"
    module.write_text(COLOR_ESM)

    @nt.tool(executor="frontend", renderer=nt.Renderer(esm=module))
    def pick_color() -> str:
        """Ask the user to pick a colour."""

    chat, view, _ = chat_with(make_agent, frontend_tools=[pick_color])
    module.unlink()
    view.custom({"type": "hello", "view_id": "v1"})
    assert [c["type"] for c, _ in view.sent] == ["snapshot"]
    assert "the renderer of 'pick_color' could not be read" in chat.errors[-1]


def test_a_renderer_file_that_is_not_utf8_is_reported_and_the_view_still_gets_its_snapshot(
    make_agent, tmp_path
):
    module = tmp_path / "color.js"
    module.write_text(COLOR_ESM)

    @nt.tool(executor="frontend", renderer=nt.Renderer(esm=module))
    def pick_color() -> str:
        """Ask the user to pick a colour."""

    chat, view, _ = chat_with(make_agent, frontend_tools=[pick_color, color_tool(name="other")])
    module.write_bytes(b"export default () => {}; // \xff\xfe not UTF-8")
    view.custom({"type": "hello", "view_id": "v1"})
    assert [c["type"] for c, _ in view.sent] == ["renderers", "snapshot"]
    assert list(view.of_type("renderers")[0]["renderers"]) == ["other"]
    assert "the renderer of 'pick_color' could not be read" in chat.errors[-1]
    assert "not UTF-8" in chat.errors[-1]


def test_a_one_line_string_naming_a_missing_js_file_is_an_error_and_a_path_is_kept_resolved(
    tmp_path, monkeypatch
):
    with pytest.raises(nt.ToolDefinitionError, match="is not a file"):
        nt.Renderer(esm="widgets/missing.js")
    with pytest.raises(nt.ToolDefinitionError, match="is not a file"):
        nt.Renderer(esm=" missing.mjs ")
    (tmp_path / "color.js").write_text(COLOR_ESM)
    monkeypatch.chdir(tmp_path)
    renderer = nt.Renderer(esm="color.js")
    assert renderer.path == tmp_path.resolve() / "color.js"
    monkeypatch.chdir("/")
    assert renderer.source == COLOR_ESM  # still found after the working folder changed


def test_a_renderer_answer_is_checked_by_the_output_schema_then_reaches_the_model(make_agent):
    chat, view, script = chat_with(
        make_agent,
        t.tool_use("pick_color", {"purpose": "bars"}, id="c1"),
        frontend_tools=[color_tool()],
    )

    async def act():
        prompt = chat.prompts["c1"]
        assert (prompt["kind"], prompt["renderer"]) == ("custom", "pick_color")
        view.answer("c1", {"value": {"hex": "blue"}})
        assert "does not match" in chat.prompts["c1"]["error"]  # refused, still open
        view.answer("c1", {"value": {"hex": "#1f77b4"}})

    run(chat, act)
    assert results(script)["c1"]["content"] == '{"hex": "#1f77b4"}'
    assert chat.acks["c1"].status == "success"


@pytest.mark.parametrize(
    ("schema", "value", "content"),
    [
        ({"type": "integer"}, 42, "42"),
        ({"anyOf": [{"type": "string"}, {"type": "null"}]}, "red", "red"),
        ({"anyOf": [{"type": "string"}, {"type": "null"}]}, None, "null"),
        ({"enum": ["red", "green"]}, "red", "red"),
        ({"type": "array", "items": {"type": "string"}}, ["a", "é"], '["a", "é"]'),
    ],
)
def test_a_renderers_value_itself_is_checked_by_the_output_schema(make_agent, schema, value, content):
    @nt.tool(executor="frontend", renderer=nt.Renderer(esm=COLOR_ESM), output_schema=schema)
    def pick() -> str:
        """Pick something."""

    chat, view, script = chat_with(make_agent, t.tool_use("pick", {}, id="c1"), frontend_tools=[pick])

    async def act():
        if schema.get("type") == "integer":
            view.answer("c1", {"value": "42"})  # text of a number is not a number
            assert "is not of type 'integer'" in chat.prompts["c1"]["error"]
        view.answer("c1", {"value": value})

    run(chat, act)
    assert results(script)["c1"]["content"] == content


def test_a_long_error_text_or_skip_reason_reaches_the_model_capped(make_agent):
    chat, view, script = chat_with(
        make_agent,
        t.tool_use("pick_color", {"purpose": "a"}, id="c1"),
        t.tool_use("pick_color", {"purpose": "b"}, id="c2"),
        frontend_tools=[color_tool()],
    )

    async def act():
        view.answer("c1", {"status": "failed", "error_text": "e" * 5000})
        view.answer("c2", {"skip": True, "reason": "r" * 2500})

    run(chat, act)
    failed, skipped = results(script)["c1"]["content"], results(script)["c2"]["content"]
    assert failed.endswith("e" * 2000 + "… [3,000 more characters]") and len(failed) < 2100
    assert skipped == "Skipped by the user: " + "r" * 2000 + "… [500 more characters]"
    assert len(chat.acks["c1"].error_text) < 2100


@pytest.mark.parametrize(
    ("answer", "content", "ack"),
    [
        ({"skip": True, "reason": "no colour fits"}, "Skipped by the user: no colour fits", "success"),
        ({"skip": True}, "Skipped by the user: they chose not to answer this.", "success"),
        (
            {"status": "failed", "error_text": "the renderer threw: TypeError: boom"},
            "The frontend could not run 'pick_color': the renderer threw: TypeError: boom",
            "failed",
        ),
    ],
)
def test_skip_with_a_reason_and_a_renderer_that_failed_tell_the_model(make_agent, answer, content, ack):
    chat, view, script = chat_with(
        make_agent, t.tool_use("pick_color", {"purpose": "bars"}, id="c1"), frontend_tools=[color_tool()]
    )

    async def act():
        view.answer("c1", answer)

    run(chat, act)
    assert results(script)["c1"] == {
        "type": "tool_result",
        "tool_use_id": "c1",
        "content": content,
        "is_error": True,
    }
    assert chat.acks["c1"].status == ack


def test_a_renderer_that_never_answers_ends_with_the_tools_timeout(make_agent):
    chat, _view, script = chat_with(
        make_agent,
        t.tool_use("pick_color", {"purpose": "bars"}, id="c1"),
        frontend_tools=[color_tool(timeout=0.3)],
    )
    chat.broker.seen("v1")  # a view is attached, it just never answers

    async def act():
        pass

    run(chat, act)
    assert results(script)["c1"]["content"] == "The user did not answer within 0.3 seconds."
    assert chat.acks["c1"].status == "timeout"


@pytest.mark.parametrize(
    ("name", "args", "output", "told"),
    [
        (
            "open_url",
            {"url": "https://example.org/a"},
            {"url": "https://example.org/a", "via": "button"},
            "Opened https://example.org/a in a new browser tab (the browser blocked the pop-up, "
            "so the user clicked the button).",
        ),
        (
            "copy_to_clipboard",
            {"text": "SELECT 1"},
            {"chars": 8, "via": "auto"},
            "Copied 8 characters to the user's clipboard.",
        ),
        (
            "notify",
            {"message": "Done"},
            {"shown_in": ["widget", "jupyterlab"]},
            "Showed the notification to the user in the chat and JupyterLab's notifications.",
        ),
    ],
)
def test_browser_tools_ack_and_the_model_reads_what_happened(make_agent, name, args, output, told):
    tool = getattr(nt, name)
    chat, view, script = chat_with(make_agent, t.tool_use(name, args, id="b1"), frontend_tools=[tool])

    async def act():
        assert chat.prompts["b1"]["renderer"] == f"nt.{name}"
        view.answer("b1", {"status": "success", "output": {"bogus": 1}})  # not the tool's output shape
        assert "required property" in chat.prompts["b1"]["error"]
        view.answer("b1", {"status": "success", "output": output})
        view.answer("b1", {"status": "timeout"})  # late: ignored and reported

    run(chat, act)
    assert results(script)["b1"] == {"type": "tool_result", "tool_use_id": "b1", "content": told}
    assert chat.acks["b1"].status == "success"
    assert any("already answered" in e for e in chat.errors)


def test_open_url_refuses_what_is_not_http_before_any_prompt(make_agent):
    chat, _view, script = chat_with(
        make_agent,
        t.tool_use("open_url", {"url": "javascript:alert(1)"}, id="b1"),
        frontend_tools=[nt.open_url],
    )
    asyncio.run(chat.send("go"))
    assert results(script)["b1"]["is_error"] and "does not match" in results(script)["b1"]["content"]
    assert "b1" not in chat.prompts


def test_cancelling_a_browser_tool_says_it_was_not_done(make_agent):
    chat, view, script = chat_with(
        make_agent,
        t.tool_use("open_url", {"url": "https://example.org"}, id="b1"),
        frontend_tools=[nt.open_url],
    )

    async def act():
        view.answer("b1", {"skip": True})

    run(chat, act)
    assert results(script)["b1"]["content"] == (
        "Skipped by the user: they chose not to open the URL; it was not opened."
    )
    assert chat.prompts["b1"]["status"] == "skipped"


def test_download_sends_a_file_from_the_root_in_chunks_and_acks(make_agent, tmp_path):
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "report.csv").write_bytes(b"a,b\n1,2\n")
    chat, view, script = chat_with(
        make_agent,
        t.tool_use("download_file", {"path": "out/report.csv"}, id="d1"),
        frontend_tools=[nt.download_file],
        root=tmp_path,
    )

    async def act():
        view.custom({"type": "download", "request_id": "r1", "tool_use_id": "d1"})
        [(reply, buffers)] = [(c, b) for c, b in view.sent if c["type"] == "download_chunk"]
        assert reply == {
            "type": "download_chunk",
            "request_id": "r1",
            "seq": 0,
            "last": True,
            "filename": "report.csv",
            "size": 8,
            "media_type": "text/csv",
        }
        assert buffers == [b"a,b\n1,2\n"]
        output = {"filename": "report.csv", "bytes": 8, "via": "button"}
        view.answer("d1", {"status": "success", "output": output})

    run(chat, act)
    assert results(script)["d1"]["content"] == (
        "The user clicked Save: report.csv (8 bytes) went to the user's browser as a download; "
        "it saves it in their downloads folder or asks them where."
    )


@pytest.mark.parametrize(
    ("path", "why"),
    [
        ("../secret.txt", "outside the folder"),
        (".env", "hidden"),
        ("sub/.ssh/id_rsa", "hidden"),
        ("link_out/x.txt", "outside the folder"),
        ("missing.csv", "not a file"),
        ("sub", "not a file"),
    ],
)
def test_download_never_sends_a_path_outside_the_root_or_hidden(make_agent, tmp_path, path, why):
    root = tmp_path / "root"
    (root / "sub" / ".ssh").mkdir(parents=True)
    (root / "sub" / ".ssh" / "id_rsa").write_text("key")
    (root / ".env").write_text("TOKEN=1")
    (tmp_path / "secret.txt").write_text("secret")
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "elsewhere" / "x.txt").write_text("x")
    (root / "link_out").symlink_to(tmp_path / "elsewhere")
    chat, view, _script = chat_with(
        make_agent,
        t.tool_use("download_file", {"path": path}, id="d1"),
        frontend_tools=[nt.download_file],
        root=root,
    )

    async def act():
        view.custom({"type": "download", "request_id": "r1", "tool_use_id": "d1"})
        [(reply, buffers)] = [(c, b) for c, b in view.sent if c["type"] == "download_chunk"]
        assert why in reply["error"] and reply["last"] and buffers == []
        view.answer("d1", {"status": "failed", "error_text": reply["error"]})

    run(chat, act)
    assert chat.acks["d1"].status == "failed"


def test_download_is_refused_for_a_prompt_that_is_not_a_pending_download(make_agent):
    chat, view, _ = chat_with(make_agent, frontend_tools=[nt.download_file])
    view.custom({"type": "download", "request_id": "r1", "tool_use_id": "nope"})
    assert "no pending download 'nope'" in chat.errors[-1]
    [reply] = view.of_type("download_chunk")  # the card fails at once instead of waiting 60 s
    assert reply["request_id"] == "r1" and reply["last"] and "no pending download 'nope'" in reply["error"]
    assert (reply["filename"], reply["size"], reply["seq"]) == ("", 0, 0)


def test_download_reads_through_one_handle_and_refuses_a_file_that_grew_past_the_limit(
    make_agent, tmp_path, monkeypatch
):
    from notebook_tools._exceptions import FileAccessError
    from notebook_tools.prompts._downloads import read_at_most
    from notebook_tools.widgets import _messages

    (tmp_path / "small.txt").write_bytes(b"12345")
    assert read_at_most(tmp_path / "small.txt", 5) == b"12345"
    with pytest.raises(FileAccessError, match="over the limit of 4 bytes"):
        read_at_most(tmp_path / "small.txt", 4)
    chat, view, _script = chat_with(
        make_agent,
        t.tool_use("download_file", {"path": "small.txt"}, id="d1"),
        frontend_tools=[nt.download_file],
        root=tmp_path,
    )
    chat.inbox.max_upload_bytes = 10
    checked = _messages.downloadable

    def grows(inbox, arguments):  # checked under the limit, then it grows before it is read
        found = checked(inbox, arguments)
        (tmp_path / "small.txt").write_bytes(b"x" * 50)
        return found

    monkeypatch.setattr(_messages, "downloadable", grows)

    async def act():
        view.custom({"type": "download", "request_id": "r1", "tool_use_id": "d1"})
        [(reply, buffers)] = [(c, b) for c, b in view.sent if c["type"] == "download_chunk"]
        assert "over the limit of 10 bytes" in reply["error"] and buffers == []
        view.answer("d1", {"status": "failed", "error_text": reply["error"]})

    run(chat, act)


def test_scripted_user_plays_the_browser_for_built_ins_and_answers_renderers(make_agent):
    chat, _view, script = chat_with(
        make_agent,
        t.tool_use("pick_color", {"purpose": "bars"}, id="c1"),
        t.tool_use("copy_to_clipboard", {"text": "hi"}, id="b1"),
        frontend_tools=[color_tool(), nt.copy_to_clipboard],
    )
    nt.ScriptedUser(chat, {"pick_color": {"hex": "#ff7f0e"}}, delay=0.01)
    asyncio.run(chat.send("go"))
    got = results(script)
    assert got["c1"]["content"] == '{"hex": "#ff7f0e"}'
    assert got["b1"]["content"] == "Copied 2 characters to the user's clipboard."
