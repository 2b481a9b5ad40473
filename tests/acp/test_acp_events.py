"""`AcpEvents`: an ACP agent's session updates as display events (pure: built from the protocol's own models)."""

from acp import schema as S
from hypothesis import given, settings
from hypothesis import strategies as st

from notebook_tools.events import (
    AssistantBlock,
    MessageEvent,
    TextDelta,
    ThinkingDelta,
    ToolCompleted,
    ToolResultPreview,
    ToolStarted,
)
from notebook_tools.external._acp_events import AcpEvents, plan_text


def chunk(text, kind="agent_message_chunk", message_id=None):
    model = S.AgentMessageChunk if kind == "agent_message_chunk" else S.AgentThoughtChunk
    return model(
        session_update=kind, content=S.TextContentBlock(type="text", text=text), message_id=message_id
    )


def started(call_id, **kw):
    return S.ToolCallStart(
        session_update="tool_call", tool_call_id=call_id, title=kw.pop("title", "Run"), **kw
    )


def progress(call_id, **kw):
    return S.ToolCallProgress(session_update="tool_call_update", tool_call_id=call_id, **kw)


def names(events):
    return [type(e).__name__ for e in events]


def test_text_streams_as_deltas_and_closes_into_one_block_of_one_request():
    shown = AcpEvents()
    shown.prompt("hi")
    events = shown(chunk("Hel", message_id="m1")) + shown(chunk("lo", message_id="m1"))
    assert [e.text for e in events if isinstance(e, TextDelta)] == ["Hel", "lo"]
    assert {e.request for e in events} == {1}
    end = shown.end("end_turn")
    [block] = [e for e in end if isinstance(e, AssistantBlock)]
    assert block.block == {"type": "text", "text": "Hello"}
    [message] = [e for e in end if isinstance(e, MessageEvent)]
    assert message.message == {"role": "assistant", "content": [{"type": "text", "text": "Hello"}]}
    assert shown.turn_text == "Hello" and names(end)[-1] == "Status"


def test_thinking_then_text_are_two_blocks_and_a_new_message_id_a_new_request():
    shown = AcpEvents()
    shown.prompt("hi")
    first = shown(chunk("hmm", "agent_thought_chunk", "m1")) + shown(chunk("yes", message_id="m1"))
    assert names(first) == ["ThinkingDelta", "AssistantBlock", "TextDelta"]
    assert isinstance(first[0], ThinkingDelta)
    later = shown(chunk("again", message_id="m2"))
    assert [e.request for e in later if isinstance(e, TextDelta)] == [2]
    assert any(isinstance(e, MessageEvent) for e in later)  # the first reply closed


def test_a_tool_call_is_a_card_its_diff_shown_and_its_result_kept_for_a_restart():
    shown = AcpEvents()
    shown.prompt("write")
    meta = {"claudeCode": {"toolName": "Write"}}
    events = shown(started("t1", kind="edit", raw_input={"file_path": "a.txt"}, field_meta=meta))
    [card] = [e for e in events if isinstance(e, ToolStarted)]
    assert (card.name, card.input) == ("Write", {"file_path": "a.txt"})
    diff = S.FileEditToolCallContent(type="diff", path="a.txt", old_text=None, new_text="x\n")
    done = shown(progress("t1", status="completed", content=[diff]))
    [completed] = [e for e in done if isinstance(e, ToolCompleted)]
    assert not completed.result.is_error and completed.shown.kind == "diff"
    assert shown.history[-1]["content"][0]["tool_use_id"] == "t1"


def test_output_as_it_comes_then_a_failure_and_a_stop_closes_what_is_open():
    shown = AcpEvents()
    shown.prompt("run")
    shown(started("t1", kind="execute"))
    text = S.ContentToolCallContent(type="content", content=S.TextContentBlock(type="text", text="line 1"))
    [preview] = shown(progress("t1", status="in_progress", content=[text]))
    assert isinstance(preview, ToolResultPreview) and preview.preview == "line 1"
    [failed] = shown(progress("t1", status="failed"))
    assert failed.result.is_error and failed.result.content == "line 1"
    shown(started("t2", kind="execute"))
    [stopped] = shown.stopped()
    assert stopped.tool_use_id == "t2" and stopped.result.is_error


def test_the_plan_is_one_card_whose_checklist_follows_the_updates():
    shown = AcpEvents()
    shown.prompt("plan")

    def plan(*steps):
        entries = [S.PlanEntry(content=c, priority="medium", status=s) for c, s in steps]
        return S.AgentPlanUpdate(session_update="plan", entries=entries)

    first = shown(plan(("Read", "in_progress"), ("Fix", "pending")))
    second = shown(plan(("Read", "completed"), ("Fix", "in_progress")))
    assert names(first) == ["ToolStarted", "ToolResultPreview"] and names(second) == ["ToolResultPreview"]
    assert second[0].preview == "[x] Read\n[~] Fix"
    [done] = [e for e in shown.end("end_turn") if isinstance(e, ToolCompleted)]
    assert done.result.content == "[x] Read\n[~] Fix"


def test_a_plan_stopped_midway_leaves_no_result_without_its_call_in_the_history():
    shown = AcpEvents()
    shown.prompt("plan")
    entries = [S.PlanEntry(content="Read", priority="medium", status="in_progress")]
    shown(S.AgentPlanUpdate(session_update="plan", entries=entries))
    [closed] = shown.stopped()
    assert closed.name == "plan"  # its card stops spinning
    calls = {
        b["id"]
        for m in shown.history
        if m["role"] == "assistant"
        for b in m["content"]
        if b["type"] == "tool_use"
    }
    results = {
        b["tool_use_id"]
        for m in shown.history
        if isinstance(m["content"], list)
        for b in m["content"]
        if b.get("type") == "tool_result"
    }
    assert results <= calls


def test_usage_and_cost_come_from_the_agents_updates_and_answer():
    shown = AcpEvents()
    shown.prompt("hi")
    cost = S.Cost(amount=0.25, currency="USD")
    shown(S.UsageUpdate(session_update="usage_update", used=1200, size=200000, cost=cost))
    usage = S.Usage(total_tokens=30, input_tokens=10, output_tokens=20)
    [event] = [e for e in shown.end("end_turn", usage) if type(e).__name__ == "UsageEvent"]
    assert event.turn.cost_usd == 0.25 and event.turn.output_tokens == 20
    assert (event.context_tokens, event.context_window) == (1200, 200000)
    assert shown.usage.requests == 1


def test_plan_text_marks_each_state():
    entries = [
        S.PlanEntry(content=c, priority="low", status=s) for c, s in [("a", "completed"), ("b", "pending")]
    ]
    assert plan_text(entries) == "[x] a\n[ ] b"


junk = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=10,
)


class Thing:
    def __init__(self, **attributes):
        self.__dict__.update(attributes)


@settings(max_examples=150, deadline=None)
@given(
    st.lists(
        st.builds(
            Thing,
            session_update=st.sampled_from(
                [
                    "agent_message_chunk",
                    "agent_thought_chunk",
                    "tool_call",
                    "tool_call_update",
                    "plan",
                    "usage_update",
                    "x",
                ]
            ),
            content=junk,
            tool_call_id=st.sampled_from(["a", "b", None, 3]),
            status=st.sampled_from(["completed", "failed", "in_progress", None, 7]),
            entries=junk,
            used=junk,
            size=junk,
            raw_input=junk,
            field_meta=junk,
            message_id=junk,
        ),
        max_size=12,
    )
)
def test_malformed_updates_never_raise_and_every_started_card_closes(updates):
    shown = AcpEvents()
    shown.prompt("go")
    events = []
    for update in updates:
        events += shown(update)
    events += shown.stopped() + shown.end("cancelled")
    opened = {e.tool_use_id for e in events if isinstance(e, ToolStarted)}
    closed = {e.tool_use_id for e in events if isinstance(e, ToolCompleted)}
    assert opened == closed
