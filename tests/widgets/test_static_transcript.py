"""The static copy of a chat's transcript in its cell, and `chat.export`: without a browser or a kernel."""

import asyncio
import re

import pytest

import notebook_tools as nt
from notebook_tools import testing as t
from tests.support.browser_double import FakeView, pending_ids, until


@nt.tool(needs_approval=True)
def trim_rows(n_rows: int) -> str:
    """Trim rows.

    Args:
        n_rows: How many.
    """
    return f"trimmed {n_rows} rows"


@pytest.fixture
def shown(monkeypatch):
    """What IPython would publish: ("display" | "update", object, display_id), in order."""
    import IPython.display

    published = []

    def display(obj, *, raw=False, display_id=None, **_):
        published.append(("display", obj, display_id))

    def update_display(obj, *, display_id, raw=False, **_):
        published.append(("update", obj, display_id))

    monkeypatch.setattr(IPython.display, "display", display)
    monkeypatch.setattr(IPython.display, "update_display", update_display)
    return published


def displayed(make_agent, *steps, **kwargs):
    agent, script = make_agent(*steps, **kwargs)
    chat = nt.Chat(agent)
    chat._ipython_display_()  # what IPython calls for `chat` at the end of a cell, or display(chat)
    return chat, FakeView(chat), script


def updates(shown):
    return [obj["text/html"] for kind, obj, _ in shown if kind == "update"]


WIDGET = "application/vnd.jupyter.widget-view+json"


def test_displaying_a_chat_shows_its_view_and_a_static_copy_of_its_transcript(make_agent, shown):
    chat, _, _ = displayed(make_agent)
    (kind1, view, id1), (kind2, copy, id2) = shown
    # The view's output is the widget alone: where it cannot load (an untrusted notebook in
    # JupyterLab, a viewer without widgets) a text/plain there would print above the transcript.
    assert (kind1, id1) == ("display", None)
    assert view == {"application/vnd.jupyter.widget-view+json": chat.view._repr_mimebundle_()[0][WIDGET]}
    # The copy carries the chat's one-line summary under its HTML, which every viewer prefers, and
    # names its chat for this project's JupyterLab extension (which draws it only where no view shows it).
    assert (
        kind2 == "display"
        and id2 == chat.static.display_id
        and sorted(copy) == ["application/vnd.notebook-tools.copy", "text/html", "text/plain"]
    )
    assert copy["application/vnd.notebook-tools.copy"] == f"nt-chat-{chat.static.chat_id}"
    assert copy["text/plain"] == repr(chat) == "<notebook_tools.Chat: 0 items, 0 prompts, idle>"
    assert f'data-nt-chat="{chat.static.chat_id}"' in copy["text/html"]
    assert "nt-static-transcript" in copy["text/html"] and "no messages yet" in copy["text/html"]
    # The live view is told which copy is its own: the class nt-chat-<id> on the view.
    assert f"nt-chat-{chat.static.chat_id}" in chat.view._dom_classes
    assert re.fullmatch(r"[0-9a-f]{32}", chat.static.chat_id)


def test_a_prompt_only_widget_shows_no_static_copy(shown):
    widget = nt.Chat(None)
    widget._ipython_display_()
    assert shown == [("display", widget.view, None)]


def test_the_copy_is_replaced_once_when_a_turn_ends_not_per_streamed_token(make_agent, shown):
    chat, _, script = displayed(make_agent, t.reply("word " * 60), t.reply("Second **answer**."))
    script.text_chunk = 3  # a hundred deltas

    asyncio.run(chat.send("hello"))
    (first,) = updates(shown)
    assert "You:" in first and "hello" in first and "word word" in first
    asyncio.run(chat.send("again"))
    assert len(updates(shown)) == 2 and "<strong>answer</strong>" in updates(shown)[-1]
    assert {display_id for _, _, display_id in shown[1:]} == {chat.static.display_id}


def test_a_turn_paused_for_a_person_shows_the_question_then_the_answer(make_agent, shown):
    chat, view, _ = displayed(
        make_agent,
        t.turn("Before I drop them:", t.tool_use("user_confirm", {"message": "Drop 3 rows?"}, id="c1")),
        t.reply("Dropped."),
    )

    async def main():
        task = asyncio.ensure_future(chat.send("clean up"))
        await until(lambda: pending_ids(chat))
        assert len(updates(shown)) == 1 and "Drop 3 rows?" in updates(shown)[0]  # asked, not answered
        view.answer("c1", {"value": "yes"})
        await task

    asyncio.run(main())
    # asked; answered (at once, not only when the turn ends: issue 26); the turn's end
    assert len(updates(shown)) == 3
    assert "Drop 3 rows?" in updates(shown)[1] and "<b>Yes</b>" in updates(shown)[1]
    assert "<b>Yes</b>" in updates(shown)[-1] and "Dropped." in updates(shown)[-1]


def test_a_copy_saved_mid_turn_shows_each_answer_given_so_far(make_agent, shown):
    # A notebook saved while a turn waits holds the copy as last sent: each answer must reach it
    # when it is given, not when the turn ends (or the saved copy says "pending" for it).
    chat, view, _ = displayed(
        make_agent,
        t.turn(
            "Two questions.",
            t.tool_use("user_confirm", {"message": "Drop 3 rows?"}, id="c1"),
            t.tool_use("ask_text", {"prompt": "Name of the report?"}, id="c2"),
        ),
        t.reply("Done."),
    )

    async def main():
        task = asyncio.ensure_future(chat.send("clean up"))
        await until(lambda: len(pending_ids(chat)) == 2)
        asked = len(updates(shown))
        view.answer("c1", {"value": "yes"})
        await until(lambda: len(updates(shown)) > asked)
        copy = updates(shown)[-1]
        assert "Drop 3 rows?" in copy and "<b>Yes</b>" in copy  # answered, while the turn still waits
        assert "Name of the report?" in copy and "<i>pending</i>" in copy
        assert shown[-1][1]["text/plain"] == repr(chat)  # the summary travels with the copy
        view.answer("c2", {"value": "weekly"})
        await task

    asyncio.run(main())
    assert "<b>weekly</b>" in updates(shown)[-1] and "pending" not in updates(shown)[-1]


def test_approvals_show_their_decisions_and_the_approved_call_its_result(make_agent, shown):
    chat, view, _ = displayed(
        make_agent,
        t.turn(
            "Trimming.",
            t.tool_use("trim_rows", {"n_rows": 5}, id="a1"),
            t.tool_use("trim_rows", {"n_rows": 500}, id="a2"),
        ),
        t.reply("Done."),
        tools=[trim_rows],
    )

    async def main():
        task = asyncio.ensure_future(chat.send("trim"))
        await until(lambda: len(pending_ids(chat)) == 2)
        view.answer("a1", {"value": {"approved": True}})
        view.answer("a2", {"value": {"approved": False, "reason": "far too many"}})
        await task

    asyncio.run(main())
    html = updates(shown)[-1]
    assert html.count("Run trim_rows?") == 2
    assert "<b>Approved</b>" in html and "trimmed 5 rows" in html
    assert "<b>Denied: far too many</b>" in html


def test_a_failed_turn_and_clear_update_the_copy(make_agent, shown):
    chat, view, _ = displayed(make_agent, t.HTTPFault(400, "bad request from the script"), t.reply("ok"))
    with pytest.raises(Exception, match="bad request"):
        asyncio.run(chat.send("hi"))
    assert "bad request from the script" in updates(shown)[-1]  # the error notice, shown after the status
    view.custom({"type": "clear"})
    assert "no messages yet" in updates(shown)[-1]


def test_a_long_sessions_copy_is_rebuilt_without_rendering_its_messages_again():
    from notebook_tools.widgets._export import _markdown, to_html

    items = [
        {"id": f"a{i}", "kind": "assistant", "text": f"Answer **{i}**, a long session's."}
        for i in range(2000)
    ]
    first = to_html(items)
    misses = _markdown.cache_info().misses
    assert to_html(items) == first  # the refresh at the next pause
    assert _markdown.cache_info().misses == misses


def test_nothing_is_sent_for_a_chat_never_displayed(make_agent, shown):
    agent, _ = make_agent(t.reply("hi"))
    asyncio.run(nt.Chat(agent).send("hello"))
    assert shown == []


def export_chat(make_agent):
    agent, _ = make_agent(
        t.reply("Voilà: <script>alert(1)</script> and <img src=x onerror=alert(2)> **bold**"),
    )
    chat = nt.Chat(agent)
    asyncio.run(chat.send("Résumé, please"))
    return chat


def test_export_writes_a_standalone_html_page(make_agent, tmp_path):
    chat = export_chat(make_agent)
    path = chat.export(tmp_path / "chat.html")
    assert path == tmp_path / "chat.html"
    page = path.read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>") and '<meta charset="utf-8">' in page and "<style>" in page
    assert "Résumé, please" in page and "<strong>bold</strong>" in page
    assert "<script" not in page and "onerror" not in page.replace("onerror=alert(2)&gt;", "")
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page


def test_export_writes_markdown_and_accepts_a_string_path(make_agent, tmp_path):
    chat = export_chat(make_agent)
    path = chat.export(str(tmp_path / "chat.md"))
    text = path.read_text(encoding="utf-8")
    assert "**You:**" in text and "> Résumé, please" in text and "**bold**" in text
    assert "<script>" not in text and "&lt;script&gt;" in text


@pytest.mark.parametrize("name", ["chat.pdf", "chat", "chat.html.txt"])
def test_export_refuses_other_suffixes(make_agent, tmp_path, name):
    chat = export_chat(make_agent)
    with pytest.raises(nt.ConfigurationError, match=r"must end in \.html, \.htm or \.md"):
        chat.export(tmp_path / name)
    assert list(tmp_path.iterdir()) == []
