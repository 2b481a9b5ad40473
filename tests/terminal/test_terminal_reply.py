"""The terminal's reply views: thinking, server tools, citations, turn notices, usage, tool-call lines.

Each renderer is driven by publishing the agent's display events on its bus (as the loop publishes them)
into a `TerminalChat` on a plain console (what a log shows) or a terminal console (escape codes and
hyperlinks), with hostile text where text comes from a model or a web page: rich markup, escape
sequences, a forged hyperlink, bidirectional overrides, non-web links.
"""

from __future__ import annotations

import asyncio
import io
import re
from collections.abc import Iterator
from typing import Any

import pytest
from rich.console import Console

import notebook_tools as nt
from notebook_tools import testing as t
from notebook_tools.events import (
    AssistantBlock,
    MessageEvent,
    TextDelta,
    ThinkingDelta,
    ToolStarted,
    TurnNotice,
    UsageEvent,
)
from notebook_tools.session import Usage
from notebook_tools.terminal import TerminalChat
from notebook_tools.terminal._clean import arguments_text, clean, host, web_link
from notebook_tools.terminal._commands import parse_slash
from notebook_tools.terminal._usage import cost_text, toolbar_text, turn_line

SGR = re.compile(r"\x1b\[[0-9;]*m")
TAKE_BACK = re.compile(r"\x1b\[(\d+)D\x1b\[0K")
OSC8 = re.compile(r"\x1b\]8;[^;]*;([^\x1b]*)\x1b\\")
LINKS = {"https://tokio.rs/", "https://www.rust-lang.org/learn", "https://github.com/smol-rs/smol"}
"""The only hyperlinks the tests' pages should produce (a closing link is empty)."""
HOSTILE = (
    "[bold]loud[/bold] \x1b[2J\x1b]8;;https://evil.example/\x07forged\x1b]8;;\x07 \u202egnp.exe\x9b1m\x07"
)


class View:
    """A TerminalChat whose agent's bus the test publishes on; `text` is what the console shows."""

    def __init__(self, *, terminal: bool = False, width: int = 120) -> None:
        self.out = io.StringIO()
        console = Console(
            file=self.out,
            force_terminal=terminal,
            color_system="standard" if terminal else None,
            width=width,
            highlight=False,
            emoji=False,
        )
        self.agent = nt.Agent(client=t.ScriptedTransport().client())
        self.chat = TerminalChat(self.agent, console=console, input=[])

    def publish(self, *events: Any) -> None:
        for event in events:
            self.agent.events.publish_nowait(event)

    def block(self, index: int, block: dict[str, Any], request: int = 1) -> None:
        self.publish(AssistantBlock(request=request, index=index, block=block))

    @property
    def raw(self) -> str:
        return self.out.getvalue()

    @property
    def text(self) -> str:
        return OSC8.sub("", SGR.sub("", self.raw))

    def lines(self) -> list[str]:
        return [line.rstrip() for line in self.text.split("\n")]


def taken_back(text: str) -> str:
    """`text` as a terminal shows it after the chat took back words that outgrew their line."""
    while found := TAKE_BACK.search(text):
        text = text[: found.start() - int(found.group(1))] + text[found.end() :]
    return text


@pytest.fixture
def loop() -> Iterator[asyncio.AbstractEventLoop]:
    loop = asyncio.new_event_loop()  # the chat's session starts tasks; publishing needs a loop
    asyncio.set_event_loop(loop)
    yield loop
    loop.close()
    asyncio.set_event_loop(None)


def assert_inert(view: View) -> None:
    """Hostile text shows as the characters it holds: no escape code of its own, no markup applied."""
    raw = view.raw
    assert "\x07" not in raw and "\x9b" not in raw and "\u202e" not in raw
    assert "\x1b[2J" not in raw and "evil.example" not in "".join(OSC8.findall(raw))
    assert all(link in ("", *LINKS) for link in OSC8.findall(raw)), OSC8.findall(raw)


# -- thinking -------------------------------------------------------------------------------------


def test_thinking_streams_dimmed_under_a_label_apart_from_the_answer(loop: Any) -> None:
    view = View(terminal=True)
    for piece in ["The person asks", " about runtimes.\n\nI should ", "search."]:
        view.publish(ThinkingDelta(text=piece, request=1, index=0))
    view.block(0, {"type": "thinking", "thinking": "…", "signature": "sig"})
    view.block(1, {"type": "redacted_thinking", "data": "opaque"})
    view.publish(TextDelta(text="Tokio is the usual choice.", request=1, index=2))
    view.block(2, {"type": "text", "text": "Tokio is the usual choice."})
    assert view.lines()[:6] == [
        "╭─ Thinking",
        "│ The person asks about runtimes.",
        "│",
        "│ I should search.",
        "│ (thinking redacted)",
        "Tokio is the usual choice.",
    ]
    raw = view.raw
    thinking = raw[raw.index("The") : raw.index("search.")]
    assert "\x1b[2m" in thinking, "thinking is dimmed"
    answer = raw[raw.index("Tokio") - 10 : raw.index("choice.")]
    assert "\x1b[2m" not in answer and "│" not in answer, "the answer is neither dimmed nor in the margin"


def test_thinking_wraps_inside_its_margin_and_a_new_section_gets_its_label(loop: Any) -> None:
    view = View(terminal=True, width=30)
    words = " ".join(f"word{i}" for i in range(30))
    for i in range(0, len(words), 7):  # pieces split words anywhere, as a stream does
        view.publish(ThinkingDelta(text=words[i : i + 7], request=1, index=0))
    view.block(0, {"type": "thinking", "thinking": words, "signature": "s"})
    view.publish(ToolStarted(tool_use_id="c1", name="look", input={"table": "sales"}, executor="backend"))
    view.publish(ThinkingDelta(text="Now the answer.", request=2, index=0))
    lines = [line for line in taken_back(view.text).split("\n") if line]
    first = lines[1 : lines.index("⚙ look · table: sales")]
    assert first and all(line.startswith("│ ") and len(line.rstrip()) <= 30 for line in first), first
    assert " ".join(line[2:].strip() for line in first) == words, "no word is cut or lost"
    assert lines.count("╭─ Thinking") == 2, "thinking after a tool call is a new section"
    assert lines[-1] == "│ Now the answer."


def test_thinking_not_streamed_is_shown_whole_and_omitted_thinking_says_so(loop: Any) -> None:
    view = View()
    view.block(0, {"type": "thinking", "thinking": "Whole " + HOSTILE, "signature": "s"})
    view.block(1, {"type": "thinking", "thinking": "", "signature": "s"})
    view.block(2, {"type": "text", "text": "Answer."})
    lines = view.lines()
    assert lines[0] == "╭─ Thinking" and lines[1].startswith("│ Whole [bold]loud[/bold]")
    assert lines[2] == "│ (thinking omitted)" and lines[3] == "Answer."
    assert_inert(view)


# -- server tools ---------------------------------------------------------------------------------

SEARCH_RESULTS = [
    {
        "type": "web_search_result",
        "url": "https://tokio.rs/",
        "title": "Tokio " + HOSTILE,
        "encrypted_content": "x",
    },
    {
        "type": "web_search_result",
        "url": "javascript:alert(1)",
        "title": "Click me",
        "encrypted_content": "x",
    },
    {
        "type": "web_search_result",
        "url": "https://www.rust-lang.org/learn",
        "title": "",
        "encrypted_content": "x",
    },
    {
        "type": "web_search_result",
        "url": "https://evil.example/\x1b\\x",
        "title": "Escapes",
        "encrypted_content": "x",
    },
]


def test_web_search_shows_the_query_and_titled_results_with_their_sites(loop: Any) -> None:
    view = View(terminal=True)
    view.block(
        0, {"type": "server_tool_use", "id": "srv1", "name": "web_search", "input": {"query": HOSTILE}}
    )
    view.block(1, {"type": "web_search_tool_result", "tool_use_id": "srv1", "content": SEARCH_RESULTS})
    lines = view.lines()
    assert lines[0].startswith("⌕ Searched the web: [bold]loud[/bold] ")
    assert lines[1].startswith("  · Tokio [bold]loud[/bold]") and lines[1].endswith(" — tokio.rs")
    assert lines[2] == "  · Click me", "a non-web address is neither linked nor named as a site"
    assert lines[3] == "  · rust-lang.org", "without a title, the site"
    assert lines[4] == "  · Escapes — evil.example"
    assert OSC8.findall(view.raw).count("https://tokio.rs/") == 1  # the title links to its page
    assert "https://www.rust-lang.org/learn" in OSC8.findall(view.raw)
    assert_inert(view)


def test_web_fetch_shows_the_page_by_title_and_site_and_failures_in_words(loop: Any) -> None:
    view = View()
    view.block(
        0,
        {
            "type": "server_tool_use",
            "id": "f1",
            "name": "web_fetch",
            "input": {"url": "https://docs.python.org/3/"},
        },
    )
    page = {
        "type": "document",
        "title": "3.13 Documentation",
        "source": {"type": "text", "media_type": "text/plain", "data": "…"},
    }
    result = {
        "type": "web_fetch_result",
        "url": "https://docs.python.org/3/",
        "content": page,
        "retrieved_at": "2026",
    }
    view.block(1, {"type": "web_fetch_tool_result", "tool_use_id": "f1", "content": result})
    view.block(
        2, {"type": "server_tool_use", "id": "f2", "name": "web_fetch", "input": {"url": "https://x.test"}}
    )
    view.block(
        3,
        {
            "type": "web_fetch_tool_result",
            "tool_use_id": "f2",
            "content": {"type": "web_fetch_tool_error", "error_code": "url_not_accessible"},
        },
    )
    view.block(
        4,
        {
            "type": "web_search_tool_result",
            "tool_use_id": "s9",
            "content": {"type": "web_search_tool_result_error", "error_code": "max_uses_exceeded"},
        },
    )
    assert view.lines()[:6] == [
        "⌕ Fetched a page: https://docs.python.org/3/",
        "  ✓ 3.13 Documentation — docs.python.org",
        "⌕ Fetched a page: https://x.test",
        "  ✗ web fetch failed: the page could not be reached",
        "  ✗ web search failed: it reached its max_uses",
        "",
    ]


def test_code_execution_shows_the_code_then_its_output_and_exit_code(loop: Any) -> None:
    view = View()
    code = "print('hi')\nraise SystemExit(2)  # [red]not markup[/red]\x1b[2J"
    view.block(0, {"type": "server_tool_use", "id": "x1", "name": "code_execution", "input": {"code": code}})
    output = {
        "type": "code_execution_result",
        "stdout": "hi\n",
        "stderr": "SystemExit: 2\x1b[31m",
        "return_code": 2,
        "content": [{"type": "code_execution_output", "file_id": "file_1"}],
    }
    view.block(1, {"type": "code_execution_tool_result", "tool_use_id": "x1", "content": output})
    view.block(
        2,
        {"type": "server_tool_use", "id": "b1", "name": "bash_code_execution", "input": {"command": "ls -l"}},
    )
    ran = {
        "type": "bash_code_execution_result",
        "stdout": "\n".join(f"f{i}" for i in range(50)),
        "stderr": "",
        "return_code": 0,
        "content": [],
    }
    view.block(3, {"type": "bash_code_execution_tool_result", "tool_use_id": "b1", "content": ran})
    text = view.text
    assert "⌘ Ran code" in text and "print('hi')" in text and "# [red]not markup[/red]" in text
    assert (
        text.index("print('hi')")
        < text.index("  hi\n")
        < text.index("  SystemExit: 2")
        < text.index("  exit code 2")
    )
    assert "  wrote file file_1" in text
    assert "⌘ Ran a command" in text and "$ ls -l" in text and "  exit code 0" in text
    assert "  f39\n" in text and "  f40\n" not in text and "  … 10 more lines" in text
    assert "\x1b" not in view.raw


def test_text_editor_tool_search_mcp_compaction_and_unknown_blocks(loop: Any) -> None:
    view = View(width=60)
    view.block(
        0,
        {
            "type": "server_tool_use",
            "id": "e1",
            "name": "text_editor_code_execution",
            "input": {"command": "create", "path": "/tmp/a.py", "file_text": "x = 1\n"},
        },
    )
    view.block(
        1,
        {
            "type": "text_editor_code_execution_tool_result",
            "tool_use_id": "e1",
            "content": {"type": "text_editor_code_execution_create_result", "is_file_update": False},
        },
    )
    view.block(
        2,
        {
            "type": "server_tool_use",
            "id": "t1",
            "name": "tool_search_tool_regex",
            "input": {"pattern": "weather"},
        },
    )
    refs = [
        {"type": "tool_reference", "tool_name": "get_weather"},
        {"type": "tool_reference", "tool_name": "get_forecast"},
    ]
    view.block(
        3,
        {
            "type": "tool_search_tool_result",
            "tool_use_id": "t1",
            "content": {"type": "tool_search_tool_search_result", "tool_references": refs},
        },
    )
    view.block(
        4,
        {
            "type": "mcp_tool_use",
            "id": "m1",
            "server_name": "github",
            "name": "list_issues",
            "input": {"repo": "a/b", "limit": 3},
        },
    )
    view.block(
        5,
        {
            "type": "mcp_tool_result",
            "tool_use_id": "m1",
            "is_error": True,
            "content": [{"type": "text", "text": "rate limited " + HOSTILE}],
        },
    )
    view.block(6, {"type": "container_upload", "file_id": "file_9"})
    view.block(7, {"type": "compaction", "content": "Earlier, the person asked…"})
    view.block(8, {"type": "advisor_2027", "whatever": [1, 2]})
    view.block(9, {"type": "[bold]x\x1b[2J", "data": 1})
    view.block(10, {"type": "server_tool_use", "id": "z1", "name": "memory_2030", "input": {"op": "view"}})
    text = view.text
    assert "✎ create /tmp/a.py" in text and "x = 1" in text and "  ✓ file created" in text
    assert "⌕ Searched the tools: weather\n  found: get_weather, get_forecast" in text
    assert "⚙ github/list_issues · repo: a/b, limit: 3 (MCP)" in text
    assert "  ✗ github/list_issues → rate limited [bold]loud[/bold]" in text
    assert "· uploaded file_9 to the code container" in text
    assert re.search(r"─+ earlier conversation summarized ─+", text)
    assert "\nadvisor_2027 block\n" in text and "\n[bold]x[2J block\n" in text
    assert "⚙ memory_2030 · op: view (server tool)" in text
    assert_inert(view)


# -- citations ------------------------------------------------------------------------------------


def test_citations_are_numbered_markers_with_the_sources_after_the_reply(loop: Any) -> None:
    view = View(terminal=True)
    tokio = {
        "type": "web_search_result_location",
        "url": "https://tokio.rs/",
        "title": "Tokio " + HOSTILE,
        "cited_text": "…",
        "encrypted_index": "x",
    }
    smol = {
        "type": "web_search_result_location",
        "url": "https://github.com/smol-rs/smol",
        "title": "smol",
        "cited_text": "…",
        "encrypted_index": "y",
    }
    doc = {
        "type": "char_location",
        "document_index": 0,
        "document_title": "Notes.pdf",
        "cited_text": "…",
        "start_char_index": 0,
        "end_char_index": 4,
    }
    blocks = [
        {"type": "text", "text": "Most programs use Tokio", "citations": [tokio]},
        {"type": "text", "text": "; smol is smaller", "citations": [smol, tokio, smol]},
        {"type": "text", "text": ", as your notes say", "citations": [doc]},
        {"type": "text", "text": "."},
    ]
    for index, block in enumerate(blocks):
        view.publish(TextDelta(text=block["text"], request=1, index=index))
        view.block(index, block)
    view.publish(MessageEvent(index=1, message={"role": "assistant", "content": blocks}))
    assert view.lines()[:5] == [
        "Most programs use Tokio[1]; smol is smaller[2][1], as your notes say[3].",
        "Sources",
        "  [1] Tokio [bold]loud[/bold] [2J]8;;https://evil.example/forged]8;; gnp.exe1m — tokio.rs",
        "  [2] smol — github.com",
        "  [3] Notes.pdf",
    ]
    assert OSC8.findall(view.raw) == ["https://tokio.rs/", "", "https://github.com/smol-rs/smol", ""]
    assert_inert(view)
    view.publish(
        TextDelta(text="Next reply.", request=2, index=0),
        MessageEvent(index=3, message={"role": "assistant", "content": []}),
    )
    assert view.text.count("Sources") == 1, "each reply lists only its own sources"


# -- turn notices, /continue ------------------------------------------------------------------------


def test_a_refusal_says_why_and_that_the_next_message_starts_fresh(loop: Any) -> None:
    view = View()
    view.publish(
        TurnNotice(
            stop_reason="refusal",
            title="Claude declined to answer.",
            detail="This request may violate the usage policy. " + HOSTILE,
            advice="Rephrase the request.",
            stop_details={"type": "refusal", "category": "cyber", "explanation": "…"},
        )
    )
    view.chat.reply.turn_ended("refusal")
    text = view.text
    for said in (
        "─ refused ─",
        "Claude declined to answer.",
        "category: cyber",
        "This request may violate the usage policy. [bold]loud[/bold]",
        "Rephrase the request.",
        "set aside: your next message starts fresh",
    ):
        assert said in text, said
    assert "the turn ended" not in text, "the notice says it once"
    assert_inert(view)


def test_a_cut_off_reply_advises_raising_max_tokens_and_offers_continue(loop: Any) -> None:
    view = View()
    view.publish(
        TurnNotice(
            stop_reason="max_tokens",
            title="The reply reached max_tokens (1,024) and was cut off.",
            advice="Raise max_tokens (nt.Agent(max_tokens=...)).",
            actions=["continue"],
        )
    )
    text = view.text
    assert (
        "─ cut off ─" in text
        and "Raise max_tokens" in text
        and "/continue carries on from where it stopped" in text
    )
    assert "set aside" not in text
    assert parse_slash("/continue").kind == "continue"  # type: ignore[union-attr]
    assert parse_slash("/continue now").kind == "error"  # type: ignore[union-attr]


def test_continue_with_nothing_to_continue_says_so_without_a_request() -> None:
    script = t.ScriptedTransport(t.reply("Done."))
    agent = nt.Agent(client=script.client())
    out = io.StringIO()
    console = Console(file=out, color_system=None, width=200, highlight=False, emoji=False)
    chat = TerminalChat(agent, console=console, input=["hello", "/continue", "/exit"])
    assert asyncio.run(asyncio.wait_for(chat.run(), 60)) == 0
    assert "nothing to continue: the last reply ended by itself" in out.getvalue()
    assert len(script.requests) == 1
    assert "/continue" in out.getvalue()  # echoed, and listed in /help
    from notebook_tools.terminal._commands import HELP

    assert "/continue" in HELP


# -- usage ------------------------------------------------------------------------------------------


def usage(**fields: Any) -> Usage:
    return Usage(**fields)


def test_after_a_turn_its_tokens_and_cost_and_the_sessions_and_the_window(loop: Any) -> None:
    view = View()
    session = usage(
        input_tokens=900,
        output_tokens=700,
        cache_read_input_tokens=40_000,
        cache_creation_input_tokens=2_000,
        server_tool_use={"web_search_requests": 3, "web_fetch_requests": 1},
        requests=5,
        cost_usd=0.0421,
    )
    turn = usage(
        input_tokens=300,
        output_tokens=200,
        cache_read_input_tokens=20_000,
        server_tool_use={"web_search_requests": 1},
        requests=2,
        cost_usd=0.0123,
    )
    uuid = view.agent.agent_uuid
    view.publish(
        UsageEvent(agent_uuid=uuid, usage=session, turn=turn, context_tokens=21_000, context_window=200_000)
    )
    view.chat.reply.turn_ended("end_turn")
    assert view.lines()[0] == (
        "· this turn 20,300 in (20,000 from cache) / 200 out, 1 web search, ≈ $0.0123"
        " · session 42,900 in (40,000 from cache) / 700 out, 3 web searches, 1 web fetch, ≈ $0.0421"
        " · context 21,000 of 200,000 tokens (10%)"
    )
    view.chat.reply.turn_ended("end_turn")
    assert view.text.count("this turn") == 1, "a turn without a new response adds no line"
    toolbar = view.chat.reply.toolbar(view.agent.agent_uuid)
    assert (
        toolbar
        == "session 42,900 in / 700 out tokens · ≈ $0.0421 · 3 web searches, 1 web fetch · context 21,000 of 200,000 tokens (10%)"
    )
    assert view.chat.reply.toolbar("another-session") is None, "/clear: a new session has no usage yet"


def test_a_scripted_models_usage_says_it_is_scripted_and_costs_nothing() -> None:
    scripted = usage(input_tokens=879, output_tokens=88, requests=1, scripted_requests=1)
    assert cost_text(scripted) == "scripted model: estimated tokens, no cost"
    event = UsageEvent(usage=scripted, turn=scripted, context_tokens=879, context_window=200_000)
    assert turn_line(event) == (
        "this turn 879 in / 88 out, scripted model: estimated tokens, no cost · context 879 of 200,000 tokens (0%)"
    )
    mixed = usage(input_tokens=900, output_tokens=100, requests=2, scripted_requests=1, cost_usd=0.0042)
    assert cost_text(mixed) == "≈ $0.0042", "a real model's cost stays as it is"


def test_cost_and_context_when_the_prices_file_does_not_know_the_model() -> None:
    unknown = usage(input_tokens=10, output_tokens=5, requests=2, unpriced_requests=2)
    partly = usage(input_tokens=10, output_tokens=5, requests=3, unpriced_requests=1, cost_usd=1.5)
    assert cost_text(unknown) == "cost unknown (model not in the prices file)"
    assert cost_text(partly) == "at least ≈ $1.50"
    event = UsageEvent(usage=unknown, turn=unknown, context_tokens=15, context_window=None)
    assert (
        turn_line(event)
        == "this turn 10 in / 5 out · context 15 tokens · cost unknown (model not in the prices file)"
    )
    assert toolbar_text(event).endswith("· context 15 tokens")


# -- tool calls as a person reads them, and the pieces -------------------------------------------------


def test_a_tool_call_reads_as_its_name_and_arguments_not_json(loop: Any) -> None:
    view = View()
    view.publish(
        ToolStarted(
            tool_use_id="c1",
            name="clean_table",
            input={
                "table": "sales",
                "drop_duplicates": True,
                "columns": ["a", "b"],
                "note": "two\n  lines " + HOSTILE,
            },
            executor="backend",
        )
    )
    view.publish(ToolStarted(tool_use_id="c2", name="profile", input={}, executor="backend"))
    lines = view.lines()
    assert lines[0].startswith(
        '⚙ clean_table · table: sales, drop_duplicates: true, columns: ["a","b"], note: two lines [bold]loud[/bold]'
    )
    assert len(lines[0]) <= len("⚙ clean_table · ") + 120
    assert lines[1] == "⚙ profile"
    assert "({" not in view.text
    assert_inert(view)


def test_clean_host_and_links() -> None:
    assert clean("a\x1b[31mb\x07c\x9bd\u202ee\u2066f\r\ng\th") == "a[31mbcdef\ng\th"
    assert clean("line\u2028next") == "line\nnext"
    assert host("https://www.Example.com:8080/x?q") == "example.com"
    assert host("not a url") == "" and host(None) == ""
    assert web_link("https://tokio.rs/a?b=c#d") == "https://tokio.rs/a?b=c#d"
    for bad in (
        "javascript:alert(1)",
        "file:///etc/passwd",
        "https://a.test/\x1b\\",
        "https://a.test/ b",
        "http://",
        42,
        "data:text/html,x",
    ):
        assert web_link(bad) is None, bad
    assert (
        arguments_text({"path": "x" * 300}, 40).endswith("…")
        and len(arguments_text({"path": "x" * 300}, 40)) == 40
    )
    assert arguments_text({}) == "" and arguments_text(None) == ""


def test_a_loaded_session_shows_its_thinking_server_tools_and_sources(loop: Any) -> None:
    cited = {
        "type": "web_search_result_location",
        "url": "https://tokio.rs/",
        "title": "Tokio",
        "cited_text": "…",
        "encrypted_index": "x",
    }
    messages = [
        {"role": "user", "content": "Which runtime?"},
        {
            "role": "assistant",
            "content": [
                {"type": "thinking", "thinking": "Search first.", "signature": "s"},
                {
                    "type": "server_tool_use",
                    "id": "srv1",
                    "name": "web_search",
                    "input": {"query": "rust runtime"},
                },
                {"type": "web_search_tool_result", "tool_use_id": "srv1", "content": SEARCH_RESULTS[:1]},
                {"type": "text", "text": "Tokio", "citations": [cited]},
                {"type": "text", "text": " is the usual one."},
            ],
        },
    ]
    view = View()
    view.chat.screen.history(messages, assistant=view.chat.reply.replay)
    assert view.lines()[:9] == [
        "you> Which runtime?",
        "╭─ Thinking",
        "│ Search first.",
        "⌕ Searched the web: rust runtime",
        view.lines()[4],
        "Tokio[1] is the usual one.",
        "Sources",
        "  [1] Tokio — tokio.rs",
        "",
    ]
    assert view.lines()[4].startswith("  · Tokio [bold]loud[/bold]")


def test_tables_show_descriptions_as_text() -> None:
    @nt.tool
    def odd() -> str:
        """Reads [bold]files[/bold] [link=https://evil.example]here[/link]\x1b[2J fast."""
        return ""

    out = io.StringIO()
    console = Console(file=out, force_terminal=True, color_system="standard", width=200, highlight=False)
    chat = TerminalChat(
        nt.Agent(client=t.ScriptedTransport().client(), tools=[odd]),
        console=console,
        input=["/tools", "/exit"],
    )
    assert asyncio.run(asyncio.wait_for(chat.run(), 60)) == 0
    assert "Reads [bold]files[/bold] [link=https://evil.example]here[/link][2J fast." in SGR.sub(
        "", out.getvalue()
    )
    assert "evil.example" not in "".join(OSC8.findall(out.getvalue())) and "\x1b[2J" not in out.getvalue()


def test_the_bottom_toolbar_at_the_message_prompt_shows_the_sessions_usage() -> None:
    from prompt_toolkit.input import create_pipe_input

    from tests.terminal.test_terminal import converse

    script = t.ScriptedTransport(t.reply("Hello."))
    agent = nt.Agent(client=script.client(), model="claude-sonnet-4-6")
    out = io.StringIO()
    console = Console(file=out, color_system=None, width=200, highlight=False, emoji=False)
    with create_pipe_input() as pipe:
        chat = TerminalChat(agent, console=console, input=pipe)
        session = chat.reader._chat  # type: ignore[attr-defined]
        assert asyncio.run(converse(chat, out, [("Ctrl+D leaves]", "hi\r"), ("· this turn", "/exit\r")])) == 0
    toolbar = session.bottom_toolbar
    assert toolbar.startswith("session ") and " in / " in toolbar, toolbar
    assert "scripted model: estimated tokens, no cost" in toolbar and "$" not in toolbar, toolbar
    assert toolbar.endswith(" of 200,000 tokens (0%)"), toolbar
