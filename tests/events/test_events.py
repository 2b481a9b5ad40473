"""Events: every display and action event round-trips through JSON, and a subscriber that fails
never stops the agent that publishes."""

import asyncio

import notebook_tools as nt
from notebook_tools import testing as t
from notebook_tools.events import _events as ev


def test_every_event_round_trips_through_json():
    pending = nt.PendingFrontendTool(tool_use_id="u", name="ask_text", input={"prompt": "?"}, timeout=None)
    result = nt.ToolResult(tool_use_id="u", content=[{"type": "text", "text": "hi"}], is_error=True)
    events = [
        ev.TextDelta(text="hi", request=1),
        ev.MessageEvent(index=0, message={"role": "user", "content": "hi"}),
        ev.ToolStarted(tool_use_id="u", name="add", input={"a": 1}, executor="backend"),
        ev.ToolProgress(tool_use_id="u", progress=0.5, message="half"),
        ev.ToolStep(tool_use_id="u", step="load"),
        ev.ToolResultPreview(tool_use_id="u", preview="…"),
        ev.ToolCompleted(tool_use_id="u", name="add", result=result, duration=0.1),
        ev.ToolErrorEvent(tool_use_id="u", name="add", error="boom"),
        ev.AwaitingFrontendTools(pending=[pending]),
        ev.ApprovalRequired(tool_use_id="u", name="add", input={}),
        ev.Status(state="running"),
        ev.UsageEvent(usage=nt.Usage(input_tokens=3)),
        ev.UserInput(text="hello"),
        ev.ToolResults(results=[result]),
        ev.ApprovalResponse(tool_use_id="u", approved=False, reason="no"),
        ev.Interrupt(),
        ev.ManualToolInvoke(name="add", input={"a": 1}, request_id="r1"),
    ]
    recorder = nt.EventRecorder()
    for event in events:
        recorder(event)
    replayed = nt.EventRecorder.from_json(recorder.to_json())
    assert replayed.events == events
    assert len({e.type for e in events}) == len(events)


def test_a_failing_subscriber_never_stops_the_loop(make_agent, caplog):
    agent, _ = make_agent(t.reply("still fine"))

    def broken(event):
        raise RuntimeError("ui bug")

    seen = []

    async def async_sub(event):
        seen.append(event.type)

    agent.events.subscribe(broken)
    unsubscribe = agent.events.subscribe(async_sub)
    assert asyncio.run(agent.run("x")).text == "still fine"
    assert "text_delta" in seen and "ui bug" in caplog.text
    unsubscribe()
    count = len(seen)
    agent2_events = agent.events
    asyncio.run(agent2_events.publish(ev.Interrupt()))
    assert len(seen) == count
