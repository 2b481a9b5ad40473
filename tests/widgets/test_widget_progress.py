"""A running tool's reports on its Chat card: events to items, the bound on messages, hostile reports."""

import asyncio
import json
import time

import notebook_tools as nt
from notebook_tools import testing as t
from notebook_tools.events import ToolProgress, ToolResultPreview, ToolStep
from notebook_tools.events._activity import PREVIEW_CHARS, STEP_CHARS, fold, step_line
from notebook_tools.widgets._transcript import Transcript
from notebook_tools.widgets._wire import kernel_message
from tests.support.browser_double import FakeView
from tests.support.readiness import until_async, wait_until


def activity_updates(view: FakeView, call_id: str) -> list[dict]:
    """Every item update the view got for `call_id`, in order."""
    return [i for m in view.of_type("items") for i in m["items"] if i["id"] == call_id]


def latest_shown(card: dict, call_id: str) -> dict | None:
    """The activity the card of `call_id` shows now (None before the first update reaches it)."""
    shown = [u["activity"] for u in activity_updates(card["view"], call_id) if u.get("activity")]
    return shown[-1] if shown else None


def run_chat(tool, make_agent, call_id="s1", card=None):
    """Run one turn calling `tool`; `card["view"]` is the view, for a tool that waits on what it shows."""
    agent, _script = make_agent(
        t.turn("Scraping.", t.tool_use(tool.name, {}, id=call_id)), t.reply("Done."), tools=[tool]
    )
    chat = nt.Chat(agent)
    view = FakeView(chat)
    if card is not None:
        card["view"] = view
    started = time.perf_counter()
    asyncio.run(chat.send("go"))
    return view, time.perf_counter() - started


def test_step_lines_read_as_the_card_shows_them():
    assert (
        step_line("scraping", {"urls_scraped": 3, "urls_total": 5})
        == "scraping · urls_scraped 3 / urls_total 5"
    )
    assert step_line("indexing", {}) == "indexing"
    assert step_line("a\nb", {"k\tx": {"nested": [1, 2]}}) == 'a b · k x {"nested": [1, 2]}'
    many = step_line("s", {f"k{i}": i for i in range(20)})
    assert many.endswith("k7 7 / +12 more")


def test_fold_keeps_the_latest_of_each_kind():
    state = fold(None, ToolStep(tool_use_id="x", step="scraping", data={"n": 1}))
    state = fold(state, ToolProgress(tool_use_id="x", progress=0.5, message="half"))
    state = fold(state, ToolResultPreview(tool_use_id="x", preview="rows so far"))
    state = fold(state, ToolStep(tool_use_id="x", step="scraping", data={"n": 2}))
    assert state == {"step": "scraping · n 2", "fraction": 0.5, "message": "half", "preview": "rows so far"}
    assert fold(state, ToolProgress(tool_use_id="x", progress=None))["fraction"] is None


def test_reports_show_on_the_running_card_and_the_result_replaces_them(make_agent):
    card: dict = {}

    @nt.tool
    async def scrape() -> str:
        """Scrape five pages."""
        report = nt.reporter()
        for done in range(1, 6):
            report.step("scraping", urls_scraped=done, urls_total=5)
            report.progress(done / 5, f"page {done}")
            report.preview(f"{done} pages of text")
            # the next page is reported once the card shows this one (never sent: the ceiling fails it)
            await until_async(
                lambda done=done: (latest_shown(card, "s1") or {}).get("message") == f"page {done}",
                f"page {done} on the running card",
            )
        return "five pages"

    view, _ = run_chat(scrape, make_agent, card=card)
    updates = activity_updates(view, "s1")
    shown = [u["activity"] for u in updates if u.get("activity")]
    assert [a["step"] for a in shown] == [f"scraping · urls_scraped {n} / urls_total 5" for n in range(1, 6)]
    assert shown[-1] == {
        "step": "scraping · urls_scraped 5 / urls_total 5",
        "fraction": 1.0,
        "message": "page 5",
        "preview": "5 pages of text",
    }
    final = updates[-1]
    assert (final["status"], final["result"], final["activity"]) == ("done", "five pages", None)
    for message in view.of_type("items"):
        kernel_message(message)  # every update is a valid wire message


def test_a_tool_reporting_thousands_of_times_sends_about_ten_updates_a_second(make_agent):
    card: dict = {}

    @nt.tool
    async def busy() -> str:
        """Report a lot."""
        report = nt.reporter()
        for i in range(5_000):
            report.progress(i / 5_000, f"item {i}")
            report.step("crunching", item=i)
            if i % 250 == 0:
                await asyncio.sleep(0.01)
        report.step("finishing", item=5_000)
        report.progress(1.0, "all items")
        # the latest state arrives while the call still runs: it returns once the card shows it
        await until_async(
            lambda: (latest_shown(card, "b1") or {}).get("message") == "all items",
            "the final report on the card",
        )
        return "crunched"

    view, seconds = run_chat(busy, make_agent, call_id="b1", card=card)
    updates = [u for u in activity_updates(view, "b1") if u.get("activity")]
    assert 1 <= len(updates) <= seconds * 10 + 2, (len(updates), seconds)
    assert updates[-1]["activity"]["step"] == "finishing · item 5000"
    assert updates[-1]["activity"]["fraction"] == 1.0
    assert activity_updates(view, "b1")[-1]["activity"] is None


def test_a_sync_tool_reports_from_its_worker_thread(make_agent):
    card: dict = {}

    @nt.tool
    def slow() -> str:
        """A sync tool."""
        nt.reporter().step("working", part=1)
        # the thread returns once the loop has shown its report (a report lost on the way fails here)
        wait_until(lambda: latest_shown(card, "w1"), "the worker thread's report on the card")
        return "ok"

    view, _ = run_chat(slow, make_agent, call_id="w1", card=card)
    steps = [u["activity"]["step"] for u in activity_updates(view, "w1") if u.get("activity")]
    assert steps == ["working · part 1"]


def test_hostile_reports_stay_bounded_text_on_the_wire(make_agent):
    card: dict = {}
    evil = '<img src=x onerror="alert(1)">\u202e\n' * 2_000

    @nt.tool
    async def hostile() -> str:
        """Report junk."""
        report = nt.reporter()
        report.step(evil, **{evil[:90] + str(i): evil for i in range(60)}, nested={"a": [evil] * 50})
        report.progress(float("nan"), evil)
        report.preview(evil * 10)
        report.progress(7.5)  # clamped to 1.0
        report.preview(object())  # its repr
        await until_async(  # the call ends once the card shows its last report
            lambda: (latest_shown(card, "h1") or {}).get("preview", "").startswith("<object object at"),
            "the last hostile report on the card",
        )
        return "survived"

    view, _ = run_chat(hostile, make_agent, call_id="h1", card=card)
    shown = [u["activity"] for u in activity_updates(view, "h1") if u.get("activity")]
    assert shown, "the reports showed"
    for activity in shown:
        assert len(activity["step"]) <= STEP_CHARS
        assert len(activity["preview"]) <= PREVIEW_CHARS
        assert "\n" not in activity["step"] and "\n" not in activity["message"]
        assert activity["fraction"] is None or 0.0 <= activity["fraction"] <= 1.0
    assert shown[-1]["fraction"] == 1.0
    assert shown[-1]["preview"].startswith("<object object at")
    assert len(json.dumps(view.of_type("items"))) < 40_000  # kilobytes, not the megabytes reported
    assert activity_updates(view, "h1")[-1]["result"] == "survived"


def test_reports_of_an_ended_or_unknown_call_are_dropped_and_a_snapshot_has_the_latest():
    sent: list[dict] = []
    transcript = Transcript(sent.append)
    transcript.upsert({"id": "c1", "kind": "tool", "name": "x", "status": "running"})
    activity = {"step": "one", "fraction": 0.25, "message": "", "preview": ""}
    transcript.set_activity("c1", activity)  # no event loop: sent at once
    assert sent[-1] == {"type": "items", "items": [{"id": "c1", "activity": activity}]}
    assert transcript.snapshot_pages()[0][0]["activity"] == activity  # a view that reloads sees it
    transcript.upsert({"id": "c1", "status": "done", "result": "r", "activity": None})
    count = len(sent)
    transcript.set_activity("c1", {**activity, "step": "late"})
    transcript.set_activity("nope", activity)
    assert len(sent) == count and transcript.items["c1"]["activity"] is None


def test_the_ended_call_wins_over_a_buffered_report():
    sent: list[dict] = []

    async def main():
        transcript = Transcript(sent.append, activity_interval=0.05)
        transcript.upsert({"id": "c1", "kind": "tool", "name": "x", "status": "running"})
        transcript.set_activity("c1", {"step": "last", "fraction": None, "message": "", "preview": ""})
        transcript.upsert({"id": "c1", "status": "done", "activity": None})
        await asyncio.sleep(0.1)

    asyncio.run(main())
    assert [m["items"][0].get("activity", "-") for m in sent] == ["-", None]
