"""`nt.ToolBench` without a browser: the view's messages injected as the front end sends them.

Execute runs one `BenchRun` and forwards its events (bounded) to the view; Cancel stops it; hostile
or malformed messages are refused with a message to the view and never raise into the kernel.
"""

import asyncio
import base64
import json

import pytest

import notebook_tools as nt
from notebook_tools.widgets._bench_events import MAX_ITEMS, MAX_REPORTS, MAX_STRING, bounded


@nt.tool(category="web", tags=["scrape"], icon="globe", version="1.2.0", timeout=30)
async def scrape(urls: list[str], depth: int = 1) -> str:
    """Scrape some pages.

    Args:
        urls: The pages.
        depth: How deep.
    """
    report = nt.reporter()
    report.step("scraping", urls_scraped=len(urls), urls_total=len(urls))
    report.preview("partial")
    return f"scraped {len(urls)} at depth {depth}"


@nt.tool(output_schema={"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]})
def count(text: str) -> dict:
    """Count characters (claims an integer, returns a string when asked to lie).

    Args:
        text: Any text.
    """
    return {"n": "many"} if text == "lie" else {"n": len(text)}


@nt.tool
async def slow() -> str:
    """Take a long time."""
    await asyncio.sleep(30)
    return "never"


@nt.tool
def huge() -> str:
    """Return a very long text."""
    return "x" * (MAX_STRING * 3)


def bench_in_loop(*tools, **kwargs):
    bench = nt.ToolBench(list(tools), **kwargs)
    sent: list[dict] = []
    bench.view.send = lambda content, buffers=None: sent.append(json.loads(json.dumps(content)))
    return bench, sent


def inject(bench, content):
    bench.view._handle_custom_msg(content, [])


async def settle(bench):
    if bench._task is not None:
        await bench._task


def kinds(sent):
    return [m["event"]["event"] for m in sent if m["type"] == "event"]


def test_tools_of_an_agent_a_plugin_and_a_list():
    plugin = nt.Plugin("web", "Web tools", tools=[scrape])
    agent = nt.Agent(client=object(), tools=[count], plugins=[plugin])
    assert set(nt.ToolBench(agent).tools) >= {"count", "scrape"}
    assert list(nt.ToolBench(plugin).tools) == ["scrape"]
    bench = nt.ToolBench([scrape, count])
    meta = {m["name"]: m for m in bench.view.tools}
    assert meta["scrape"]["category"] == "web"
    assert meta["scrape"]["tags"] == ["scrape"]
    assert meta["scrape"]["version"] == "1.2.0"
    assert meta["scrape"]["timeout"] == 30.0
    assert meta["count"]["output_schema"]["required"] == ["n"]
    assert repr(bench) == "<notebook_tools.ToolBench: 2 tools, 0 runs, idle>"


def test_execute_forwards_every_event_and_keeps_the_payload():
    async def main():
        bench, sent = bench_in_loop(scrape, count)
        inject(bench, {"type": "execute", "name": "scrape", "arguments": {"urls": ["a", "b"]}})
        await settle(bench)
        return bench, sent

    bench, sent = asyncio.run(main())
    starts = ["status_update", "status_update"]
    assert kinds(sent) == [*starts, "tool_event", "tool_event", "tool_event", "tool_event", "data", "end"]
    tool_events = [m["event"]["data"]["type"] for m in sent if m["event"]["event"] == "tool_event"]
    assert tool_events == ["tool_started", "tool_step", "tool_result_preview", "tool_completed"]
    assert len({m["call_id"] for m in sent}) == 1
    assert len(bench.runs) == 1
    payload = bench.runs[0]
    assert payload["model_facing_result"]["content"] == "scraped 2 at depth 1"
    assert payload["validation"] == {"status": "none", "message": "no output schema registered"}
    assert bench.view.running == ""


def test_run_from_python_returns_the_payload_and_validation_fails_with_paths():
    async def main():
        bench, sent = bench_in_loop(count)
        good = await bench.run("count", {"text": "abc"})
        bad = await bench.run("count", {"text": "lie"})
        return bench, sent, good, bad

    bench, sent, good, bad = asyncio.run(main())
    assert good["validation"] == {"status": "pass"}
    assert bad["validation"]["status"] == "fail"
    assert bad["validation"]["errors"][0]["path"] == "/n"
    assert bench.runs == [good, bad]
    assert kinds(sent).count("end") == 2
    with pytest.raises(nt.WidgetError, match="no tool named 'nope'"):
        asyncio.run(bench.run("nope", {}))


def test_cancel_stops_the_run_and_the_stream_ends():
    async def main():
        bench, sent = bench_in_loop(slow)
        inject(bench, {"type": "execute", "name": "slow", "arguments": {}})
        for _ in range(500):
            if "tool_event" in kinds(sent):
                break
            await asyncio.sleep(0.01)
        assert bench.view.running == "slow"
        inject(bench, {"type": "execute", "name": "slow", "arguments": {}})  # one run at a time
        inject(bench, {"type": "cancel"})
        await settle(bench)
        return bench, sent

    bench, sent = asyncio.run(main())
    assert any(m["type"] == "refused" and "under way" in m["message"] for m in sent)
    events = [m["event"] for m in sent if m["type"] == "event"]
    assert events[-1]["event"] == "end"
    assert events[-2]["data"]["status"] == "cancelled"
    assert bench.runs == []
    assert bench.view.running == ""


def test_huge_output_is_cut_on_the_wire_but_kept_whole_in_runs():
    async def main():
        bench, sent = bench_in_loop(huge)
        inject(bench, {"type": "execute", "name": "huge", "arguments": {}})
        await settle(bench)
        return bench, sent

    bench, sent = asyncio.run(main())
    data = next(m["event"]["data"] for m in sent if m["type"] == "event" and m["event"]["event"] == "data")
    assert len(data["full_result"]["output"]) < MAX_STRING + 100
    assert data["full_result"]["output"].endswith("more characters)")
    assert len(bench.runs[0]["full_result"]["output"]) == MAX_STRING * 3


def test_bounded_shortens_lists_objects_and_deep_nesting():
    assert len(bounded(list(range(MAX_ITEMS * 2)))) == MAX_ITEMS + 1
    assert bounded({"k": 1, "v": [None, True, 1.5]}) == {"k": 1, "v": [None, True, 1.5]}
    deep: list = []
    for _ in range(50):
        deep = [deep]
    assert "nested too deep" in json.dumps(bounded(deep))
    assert bounded(object)  # anything else becomes its text
    assert len(bounded({str(i): i for i in range(MAX_ITEMS + 5)})) == MAX_ITEMS + 1


HOSTILE = [
    None,
    "execute",
    [],
    {},
    {"type": "nope"},
    {"type": "execute"},
    {"type": "execute", "name": "scrape"},
    {"type": "execute", "name": "scrape", "arguments": "urls"},
    {"type": "execute", "name": "scrape", "arguments": [], "extra": 1},
    {"type": "execute", "name": 7, "arguments": {}},
    {"type": "execute", "name": "x" * 10_000, "arguments": {}},
    {"type": "execute", "name": "missing_tool", "arguments": {}},
    {"type": "execute", "name": "__class__", "arguments": {}},
    {"type": "cancel", "now": True},
    {"type": "hello", "x": "<img src=x onerror=alert(1)>"},
]


@pytest.mark.parametrize("content", HOSTILE, ids=range(len(HOSTILE)))
def test_hostile_messages_are_refused_never_raised(content):
    async def main():
        bench, sent = bench_in_loop(scrape)
        inject(bench, content)
        await settle(bench)
        return bench, sent

    bench, sent = asyncio.run(main())
    assert [m["type"] for m in sent] == ["refused"]
    assert len(sent[0]["message"]) <= 2000
    assert bench.runs == []


def test_bad_arguments_run_and_the_tool_error_reaches_the_view():
    async def main():
        bench, sent = bench_in_loop(scrape)
        inject(bench, {"type": "execute", "name": "scrape", "arguments": {"urls": "not a list", "zzz": 1}})
        await settle(bench)
        return bench, sent

    bench, sent = asyncio.run(main())
    types = [m["event"]["data"].get("type") for m in sent if m["event"]["event"] == "tool_event"]
    assert types[-1] == "tool_error"
    assert bench.runs[0]["model_facing_result"]["is_error"] is True
    assert kinds(sent)[-1] == "end"


def test_hello_and_cancel_when_idle():
    async def main():
        bench, sent = bench_in_loop(scrape)
        inject(bench, {"type": "hello"})
        inject(bench, {"type": "cancel"})
        return sent

    assert asyncio.run(main()) == [{"type": "state", "running": "", "approval": None}]


def test_execute_without_a_loop_is_refused():
    bench, sent = bench_in_loop(scrape)  # built outside any running loop
    inject(bench, {"type": "execute", "name": "scrape", "arguments": {"urls": []}})
    assert sent[-1]["type"] == "refused"
    assert "no event loop" in sent[-1]["message"]


@nt.tool
async def chatty(n: int) -> str:
    """Report progress in a tight loop.

    Args:
        n: How many reports.
    """
    for k in range(n):
        nt.reporter().progress(k / n, "busy")
    return "done"


def test_a_tool_reporting_in_a_tight_loop_does_not_flood_the_view():
    async def main():
        bench, sent = bench_in_loop(chatty)
        await bench.run("chatty", {"n": MAX_REPORTS + 40})
        return sent

    sent = asyncio.run(main())
    progress = [
        m
        for m in sent
        if m["event"]["event"] == "tool_event" and m["event"]["data"]["type"] == "tool_progress"
    ]
    assert len(progress) == MAX_REPORTS
    completed = next(
        m
        for m in sent
        if m["event"]["event"] == "tool_event" and m["event"]["data"]["type"] == "tool_completed"
    )
    assert completed["skipped"] == 40
    assert kinds(sent)[-1] == "end"


ran: list[int] = []


@nt.tool(needs_approval=True)
def drop_rows(n: int) -> str:
    """Drop rows (needs a person's yes).

    Args:
        n: How many.
    """
    ran.append(n)
    return f"dropped {n} rows"


@nt.tool
def plot() -> object:
    """A matplotlib figure big enough that its PNG is longer than MAX_STRING in base64."""
    from matplotlib.figure import Figure

    figure = Figure(figsize=(8, 6), dpi=100)
    axes = figure.add_subplot()
    for k in range(40):
        axes.plot([(k * j * 7919) % 97 for j in range(60)])
    return figure


async def until_sent(sent, predicate, timeout=5.0):
    for _ in range(int(timeout / 0.01)):
        if any(predicate(m) for m in sent):
            return
        await asyncio.sleep(0.01)
    raise TimeoutError("the view never got that message")


def asked(message):
    return message["type"] == "event" and message["event"]["data"].get("type") == "approval_required"


def tool_types(sent):
    return [
        m["event"]["data"]["type"]
        for m in sent
        if m["type"] == "event" and m["event"]["event"] == "tool_event"
    ]


def test_a_figure_reaches_the_view_as_whole_png_data_once():
    async def main():
        bench, sent = bench_in_loop(plot)
        inject(bench, {"type": "execute", "name": "plot", "arguments": {}})
        await settle(bench)
        return bench, sent

    bench, sent = asyncio.run(main())
    data = next(m["event"]["data"] for m in sent if m["type"] == "event" and m["event"]["event"] == "data")
    image = data["model_facing_result"]["content"][1]
    whole = bench.runs[0]["model_facing_result"]["content"][1]["source"]["data"]
    assert len(whole) > MAX_STRING  # bounded() alone would have cut it into broken base64
    assert image["source"] == {"type": "base64", "media_type": "image/png", "data": whole}
    assert base64.b64decode(whole).startswith(b"\x89PNG")
    completed = next(
        m for m in sent if m["type"] == "event" and m["event"]["data"].get("type") == "tool_completed"
    )
    assert whole not in json.dumps(completed)  # the picture crosses the comm once, with the result
    assert bench.runs[0]["model_facing_result"]["content"][1]["source"]["data"] == whole  # runs untouched


def test_an_svg_or_oversized_picture_is_not_sent_whole():
    from notebook_tools.widgets._bench_events import outbound

    svg = {
        "type": "image",
        "source": {"type": "base64", "media_type": "image/svg+xml", "data": "A" * (MAX_STRING + 8)},
    }
    event = {"event": "data", "data": {"model_facing_result": {"content": [svg]}}}
    sent = outbound(event)["data"]["model_facing_result"]["content"][0]["source"]["data"]
    assert len(sent) < MAX_STRING + 100 and "more characters" in sent


def test_a_tool_that_needs_approval_waits_for_the_view_and_a_denial_never_runs_it():
    ran.clear()

    async def main():
        bench, sent = bench_in_loop(drop_rows)
        inject(bench, {"type": "execute", "name": "drop_rows", "arguments": {"n": 3}})
        await until_sent(sent, asked)
        await asyncio.sleep(0.05)
        assert ran == [] and "tool_started" not in tool_types(sent)  # asked, not run
        call_id = next(m for m in sent if asked(m))["call_id"]
        inject(bench, {"type": "hello"})  # a view shown again sees the question
        state = [m for m in sent if m["type"] == "state"][-1]
        assert state["approval"] == {"call_id": call_id, "name": "drop_rows", "arguments": {"n": 3}}
        inject(bench, {"type": "approve", "call_id": "toolu_bench_other", "approved": True})
        assert sent[-1]["type"] == "refused" and ran == []
        inject(bench, {"type": "approve", "call_id": call_id, "approved": False})
        await settle(bench)
        inject(bench, {"type": "approve", "call_id": call_id, "approved": True})  # too late: refused
        return bench, sent

    bench, sent = asyncio.run(main())
    assert ran == []
    # the question went out again to the view that said hello (the run's events so far are replayed)
    assert tool_types(sent) == ["approval_required", "approval_required", "denied", "tool_error"]
    assert sent[-1]["type"] == "refused"
    payload = bench.runs[-1]
    assert payload["model_facing_result"]["content"] == "The user denied this call."
    assert payload["model_facing_result"]["is_error"] is True
    assert payload["full_result"]["error"]["error_type"] == "denied"


def test_an_approved_call_runs_and_cancel_while_asking_runs_nothing():
    ran.clear()

    async def main():
        bench, sent = bench_in_loop(drop_rows)
        inject(bench, {"type": "execute", "name": "drop_rows", "arguments": {"n": 2}})
        await until_sent(sent, asked)
        call_id = next(m for m in sent if asked(m))["call_id"]
        inject(bench, {"type": "approve", "call_id": call_id, "approved": True})
        await settle(bench)
        assert ran == [2]
        assert tool_types(sent) == ["approval_required", "approved", "tool_started", "tool_completed"]
        sent.clear()
        task = asyncio.ensure_future(bench.run("drop_rows", {"n": 9}))  # from Python: asks the view too
        await until_sent(sent, asked)
        inject(bench, {"type": "cancel"})
        return bench, sent, await task

    bench, sent, payload = asyncio.run(main())
    assert payload is None and ran == [2]
    assert sent[-1]["event"]["event"] == "end"
    assert any(m["event"]["data"].get("status") == "cancelled" for m in sent if m["type"] == "event")
    assert bench._asking is None and bench.view.running == ""


def test_a_view_rendered_after_a_run_gets_its_events_again():
    # Run All: the cell after `bench` runs a tool before the browser has rendered the view.
    async def main():
        bench, sent = bench_in_loop(scrape)
        await bench.run("scrape", {"urls": ["a"]})
        run = list(sent)
        sent.clear()
        inject(bench, {"type": "hello"})
        return run, sent

    run, greeted = asyncio.run(main())
    assert greeted[0] == {"type": "state", "running": "", "approval": None}
    assert greeted[1:] == run and kinds(run)[-2:] == ["data", "end"]


def test_the_benchs_output_is_the_widget_with_a_stable_summary():
    bench = nt.ToolBench([scrape, count])
    data, _ = bench._repr_mimebundle_()
    assert data["application/vnd.jupyter.widget-view+json"]["model_id"] == bench.view.model_id
    assert data["text/plain"] == "<notebook_tools.ToolBench: 2 tools, 0 runs, idle>"  # no memory address
