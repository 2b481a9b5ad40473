"""What the widget shows of thinking, server tools, citations, turn notices and usage (issue 27).

The projection is fed the display events the agent publishes (ThinkingDelta, TextDelta,
AssistantBlock, TurnNotice, UsageEvent) and the test reads the items it sent to views, the synced
traits, the transcript rebuilt from the saved history, and the static copy.
"""

import asyncio

import pytest
from pydantic import TypeAdapter

import notebook_tools as nt
from notebook_tools.events import (
    AssistantBlock,
    MessageEvent,
    Status,
    TextDelta,
    ThinkingDelta,
    TurnNotice,
    UsageEvent,
)
from notebook_tools.session import Usage
from notebook_tools.session._turns import CONTINUE_NOTE
from notebook_tools.widgets._export import to_html, to_markdown
from notebook_tools.widgets._transcript import items_from_history
from notebook_tools.widgets._wire import Item, Traits, kernel_message
from tests.support.browser_double import FakeView

SEARCH_ID = "srvtoolu_01"
QUERY = "when is high tide in Brest"
RESULTS = [
    {"type": "web_search_result", "url": "https://maree.info/brest", "title": "Marées <b>Brest</b>",
     "page_age": "2 days ago", "encrypted_content": "x"},
    {"type": "web_search_result", "url": "javascript:alert(1)", "title": "evil", "encrypted_content": "y"},
]  # fmt: skip
CITE = {
    "type": "web_search_result_location",
    "url": "https://maree.info/brest",
    "title": "Marées <b>Brest</b>",
    "cited_text": "Pleine mer à 06:12 <script>",
    "encrypted_index": "e",
}
REPLY = [
    {"type": "thinking", "thinking": "The person wants tides.", "signature": "sig"},
    {"type": "text", "text": "Let me search."},
    {"type": "server_tool_use", "id": SEARCH_ID, "name": "web_search", "input": {"query": QUERY}},
    {"type": "web_search_tool_result", "tool_use_id": SEARCH_ID, "content": RESULTS},
    {"type": "text", "text": "High tide is at 06:12", "citations": [CITE]},
    {"type": "text", "text": ", and again in the evening", "citations": [CITE]},
    {"type": "text", "text": "."},
]


@pytest.fixture
def chat(make_agent):
    agent, _ = make_agent()
    chat = nt.Chat(agent)
    chat.fake = FakeView(chat)
    return chat


def stream(chat, content, request=1):
    """The events a streamed response publishes: each block's deltas, then the block, then the message."""
    for index, block in enumerate(content):
        if block["type"] == "text":
            for k in range(0, len(block["text"]), 5):
                chat._on_event(TextDelta(text=block["text"][k : k + 5], request=request, index=index))
        elif block["type"] == "thinking":
            for k in range(0, len(block["thinking"]), 7):
                chat._on_event(ThinkingDelta(text=block["thinking"][k : k + 7], request=request, index=index))
        chat._on_event(AssistantBlock(request=request, index=index, block=block))
    chat._on_event(MessageEvent(index=1, message={"role": "assistant", "content": content}))


def shown(chat):
    """The transcript as a view that received every message has it (items merged, deltas appended)."""
    items = {}
    for message, _ in chat.fake.sent:
        kernel_message(message)  # every message fits the wire protocol
        if message["type"] == "items":
            for item in message["items"]:
                items[item["id"]] = {**items.get(item["id"], {}), **item}
        elif message["type"] == "delta":
            items[message["id"]]["text"] += message["text"]
    return items


def test_thinking_streams_into_a_folded_section_before_the_text_it_led_to(chat):
    chat._on_event(ThinkingDelta(text="Hmm, ", request=1, index=0))
    chat.transcript.flush()
    assert shown(chat)["k1.0"] == {"id": "k1.0", "kind": "thinking", "status": "running", "text": "Hmm, "}
    chat._on_event(ThinkingDelta(text="tides.", request=1, index=0))
    chat._on_event(AssistantBlock(request=1, index=0, block={"type": "thinking", "thinking": "Hmm, tides."}))
    chat._on_event(TextDelta(text="Answer", request=1, index=1))
    chat._on_event(AssistantBlock(request=1, index=2, block={"type": "redacted_thinking", "data": "EnC"}))
    items = shown(chat)
    assert list(items) == ["k1.0", "r1", "k1.2"]
    assert items["k1.0"] == {"id": "k1.0", "kind": "thinking", "status": "done", "text": "Hmm, tides."}
    assert items["r1"]["text"] == "Answer"
    assert items["k1.2"] == {"id": "k1.2", "kind": "thinking", "status": "done", "redacted": True, "text": ""}


def test_a_search_with_citations_reads_in_order_with_numbered_sources(chat):
    stream(chat, REPLY)
    items = shown(chat)
    assert list(items) == ["k1.0", "r1", SEARCH_ID, "r1.4"]
    card = items[SEARCH_ID]
    assert (card["kind"], card["status"], card["text"]) == (
        "server_tool",
        "done",
        f"Searched the web: {QUERY}",
    )
    assert card["links"] == [
        {"title": "Marées <b>Brest</b>", "url": "https://maree.info/brest", "detail": "2 days ago"},
        {"title": "evil", "url": "javascript:alert(1)", "detail": ""},
    ]
    bubble = items["r1.4"]
    # the streamed bubble ends up with the whole text of its blocks, and a mark after each cited part
    assert bubble["text"] == "High tide is at 06:12, and again in the evening."
    assert bubble["marks"] == [
        {"at": 21, "n": 1, "quote": "Pleine mer à 06:12 <script>"},
        {"at": 47, "n": 1, "quote": "Pleine mer à 06:12 <script>"},
    ]
    assert bubble["sources"] == [
        {
            "n": 1,
            "title": "Marées <b>Brest</b>",
            "url": "https://maree.info/brest",
            "quote": CITE["cited_text"],
        }
    ]
    assert chat.transcript.items["r1.4"] == {**bubble, "kind": "assistant"}


def test_a_reply_not_streamed_shows_its_blocks_whole(chat):
    for index, block in enumerate(REPLY):  # no deltas at all: a replayed or non-streamed response
        chat._on_event(AssistantBlock(request=1, index=index, block=block))
    items = shown(chat)
    assert list(items) == ["k1.0", "r1", SEARCH_ID, "r1.4"]
    assert items["k1.0"]["text"] == "The person wants tides."
    assert items["r1"]["text"] == "Let me search."
    assert items["r1.4"]["text"] == "High tide is at 06:12, and again in the evening."


def test_the_transcript_rebuilt_from_the_history_shows_the_same(chat):
    stream(chat, REPLY)
    live = shown(chat)
    rebuilt = items_from_history(
        [{"role": "user", "content": "tides?"}, {"role": "assistant", "content": REPLY}]
    )
    kinds = [
        (i["kind"], i.get("text"), i.get("marks"), i.get("sources"), i.get("links")) for i in rebuilt[1:]
    ]
    assert kinds == [
        (i.get("kind", "assistant"), i.get("text"), i.get("marks"), i.get("sources"), i.get("links"))
        for i in live.values()
    ]


CODE_ID, BASH_ID, FETCH_ID, TOOLS_ID, MCP_ID = (
    "srvtoolu_c",
    "srvtoolu_b",
    "srvtoolu_f",
    "srvtoolu_t",
    "mcptoolu_1",
)
SERVER_BLOCKS = [
    {"type": "server_tool_use", "id": CODE_ID, "name": "code_execution", "input": {"code": "print(6*7)"}},
    {"type": "code_execution_tool_result", "tool_use_id": CODE_ID,
     "content": {"type": "code_execution_result", "stdout": "42\n", "stderr": "", "return_code": 0, "content": []}},
    {"type": "server_tool_use", "id": BASH_ID, "name": "bash_code_execution", "input": {"command": "ls /nope"}},
    {"type": "bash_code_execution_tool_result", "tool_use_id": BASH_ID,
     "content": {"type": "bash_code_execution_result", "stdout": "", "stderr": "ls: no such file",
                 "return_code": 2, "content": []}},
    {"type": "server_tool_use", "id": FETCH_ID, "name": "web_fetch", "input": {"url": "https://example.com/a"}},
    {"type": "web_fetch_tool_result", "tool_use_id": FETCH_ID,
     "content": {"type": "web_fetch_result", "url": "https://example.com/a",
                 "content": {"type": "document", "title": "Page A", "source": {"type": "text", "data": "..."}}}},
    {"type": "server_tool_use", "id": TOOLS_ID, "name": "tool_search_tool_regex", "input": {"query": "weather"}},
    {"type": "tool_search_tool_result", "tool_use_id": TOOLS_ID,
     "content": {"type": "tool_search_tool_search_result",
                 "tool_references": [{"type": "tool_reference", "tool_name": "get_weather"}]}},
    {"type": "mcp_tool_use", "id": MCP_ID, "name": "echo", "server_name": "everything", "input": {"m": "hi"}},
    {"type": "mcp_tool_result", "tool_use_id": MCP_ID, "is_error": False, "content": [{"type": "text", "text": "hi"}]},
    {"type": "server_tool_use", "id": "srvtoolu_x", "name": "web_search", "input": {"query": "q"}},
    {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_x",
     "content": {"type": "web_search_tool_result_error", "error_code": "max_uses_exceeded"}},
    {"type": "compaction", "content": "We looked at tides."},
    {"type": "container_upload", "file_id": "file_1"},
    {"type": "advisor", "content": "<img src=x onerror=alert(1)>"},
]  # fmt: skip


def test_server_tools_pair_with_their_results_and_unknown_blocks_become_a_line(chat):
    for index, block in enumerate(SERVER_BLOCKS):
        chat._on_event(AssistantBlock(request=2, index=index, block=block))
    items = shown(chat)
    assert items[CODE_ID]["execution"] == {
        "code": "print(6*7)", "language": "python", "stdout": "42\n", "stderr": "", "return_code": 0
    }  # fmt: skip
    assert items[CODE_ID]["text"] == "Ran code" and items[CODE_ID]["status"] == "done"
    assert (
        items[BASH_ID]["execution"]["code"] == "ls /nope" and items[BASH_ID]["execution"]["return_code"] == 2
    )
    assert items[FETCH_ID]["text"] == "Fetched https://example.com/a"
    assert items[FETCH_ID]["links"] == [{"title": "Page A", "url": "https://example.com/a", "detail": ""}]
    assert items[TOOLS_ID]["found"] == ["get_weather"]
    assert (items[MCP_ID]["text"], items[MCP_ID]["result"]) == ("everything: echo", "hi")
    failed = items["srvtoolu_x"]
    assert (failed["status"], failed["is_error"]) == ("error", True)
    assert failed["result"] == "Searched the web: q failed: max_uses_exceeded"
    assert items["b2.12"] == {"id": "b2.12", "kind": "compaction", "text": "We looked at tides."}
    assert items["b2.13"]["kind"] == "event"
    assert items["b2.14"] == {"id": "b2.14", "kind": "event", "text": "advisor block"}  # never its content


def test_a_retried_request_hides_what_it_showed_and_keeps_earlier_replies(chat):
    stream(chat, [{"type": "text", "text": "First reply."}], request=1)
    chat._on_event(ThinkingDelta(text="half a thought", request=2, index=0))
    chat._on_event(TextDelta(text="half a rep", request=2, index=1))
    chat._on_event(Status(state="retrying", detail="overloaded"))
    items = shown(chat)
    assert not items["r1"].get("discarded")
    assert items["k2.0"]["discarded"] and items["r2"]["discarded"]


def test_a_refusal_notice_and_the_next_message_gets_its_own_bubble(chat):
    chat._on_event(MessageEvent(index=0, message={"role": "user", "content": "something refused"}))
    notice = TurnNotice(
        stop_reason="refusal",
        title="Claude declined to answer this request.",
        detail="cyber: The request asks for malware.",
        advice="Your message was set aside; rephrase it and send again.",
        stop_details={"category": "cyber", "explanation": "The request asks for malware."},
    )
    chat._on_event(notice)
    chat._on_event(MessageEvent(index=0, message={"role": "user", "content": "something else"}))
    items = shown(chat)
    note = next(i for i in items.values() if i["kind"] == "notice")
    assert note["level"] == "warning" and note["text"] == notice.title
    assert (note["explanation"], note["advice"], note["can_continue"]) == (
        notice.detail,
        notice.advice,
        False,
    )
    users = [i["text"] for i in items.values() if i["kind"] == "user"]
    assert users == ["something refused", "something else"]  # the refused one is not overwritten
    assert list(items).index(note["id"]) == 1


def test_continue_runs_continue_turn_once_and_only_after_a_cut_off_turn(chat, monkeypatch):
    calls = []

    async def continue_turn():
        calls.append("continue")
        return nt.RunResult(stop_reason="end_turn", agent_uuid=chat.agent.agent_uuid)

    monkeypatch.setattr(chat.agent, "continue_turn", continue_turn)

    async def main():
        chat.fake.custom({"type": "continue"})  # nothing to continue yet
        chat._on_event(
            TurnNotice(stop_reason="max_tokens", title="The reply was cut off.", advice="Raise max_tokens.",
                       actions=["continue"])
        )  # fmt: skip
        chat.fake.custom({"type": "continue"})
        await chat.session._task
        chat.fake.custom({"type": "continue"})  # the button went with the first press

    asyncio.run(main())
    assert calls == ["continue"]
    assert chat.errors == ["there is no cut-off turn to continue"] * 2
    note = next(i for i in shown(chat).values() if i["kind"] == "notice")
    assert note["can_continue"] is False


def test_the_continue_note_is_no_bubble_of_the_person():
    note = CONTINUE_NOTE.format(limit="max_tokens")
    history = [
        {"role": "user", "content": "write a lot"},
        {"role": "assistant", "content": [{"type": "text", "text": "Part one"}]},
        {"role": "user", "content": [{"type": "text", "text": note}]},
    ]
    assert [i["text"] for i in items_from_history(history) if i["kind"] == "user"] == ["write a lot"]


def test_usage_shows_the_turn_the_session_and_the_context_window(chat):
    session = Usage(
        input_tokens=100, output_tokens=340, cache_read_input_tokens=900, requests=2, cost_usd=0.031
    )
    turn = Usage(input_tokens=50, output_tokens=40, cache_read_input_tokens=450, requests=1, cost_usd=0.004)
    chat._on_event(UsageEvent(usage=session, turn=turn, context_tokens=500, context_window=200_000))
    usage = chat.view.usage
    assert usage["cost_usd"] == 0.031 and usage["turn"]["cost_usd"] == 0.004
    assert (usage["context_tokens"], usage["context_window"]) == (500, 200_000)
    traits = {name: getattr(chat.view, name) for name in Traits.__required_keys__}
    TypeAdapter(Traits).validate_python(traits)
    chat._on_event(UsageEvent(usage=session))
    assert chat.view.usage["turn"] is None and chat.view.usage["context_window"] is None


def test_the_static_copy_folds_thinking_and_links_only_safe_sources(chat):
    stream(chat, REPLY)
    chat._on_event(
        TurnNotice(stop_reason="refusal", title="Declined.", detail="cyber: <b>no</b>", advice="Rephrase.")
    )
    page = to_html(chat.transcript.items.values())
    assert "<details><summary>Thinking</summary><pre>The person wants tides.</pre></details>" in page
    assert "<details open" not in page
    assert f"Searched the web: {QUERY}" in page
    safe = 'href="https://maree.info/brest" title="https://maree.info/brest" target="_blank" rel="noopener noreferrer"'
    assert f"<a {safe}>Marées &lt;b&gt;Brest&lt;/b&gt;</a> <i>(maree.info)</i>" in page
    assert "javascript:" not in page and "<b>Brest" not in page and "<script>" not in page
    assert "High tide is at 06:12<sup" in page and ">[1]</sup>, and again in the evening<sup" in page
    assert "<p><b>Sources</b></p><ol><li>" in page
    assert "<p><i>cyber: &lt;b&gt;no&lt;/b&gt;</i></p><p><i>Rephrase.</i></p>" in page
    markdown = to_markdown(chat.transcript.items.values())
    assert "High tide is at 06:12[1], and again in the evening[1]." in markdown
    assert "1. [Marées &lt;b&gt;Brest&lt;/b&gt;](<https://maree.info/brest>) (maree.info)" in markdown


def test_model_text_cannot_forge_a_footnote_mark(chat):
    block = {"type": "text", "text": "fake \ue0009\ue001 mark", "citations": [CITE]}
    stream(chat, [block])
    page = to_html(chat.transcript.items.values())
    assert page.count("<sup") == 1 and "[9]" not in page


def test_every_item_fits_the_wire_protocol(chat):
    stream(chat, REPLY)
    for index, block in enumerate(SERVER_BLOCKS):
        chat._on_event(AssistantBlock(request=2, index=index, block=block))
    TypeAdapter(list[Item]).validate_python(list(chat.transcript.items.values()))
