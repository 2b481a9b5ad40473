"""The tool bench's runner: event order, the model-facing result, validation, cost; progress reports."""

import asyncio
import json
import math
import time

import pytest

import notebook_tools as nt
from notebook_tools import testing as t
from notebook_tools.toolbench import CHARS_PER_TOKEN, BenchRun, cost_estimate, prices


@nt.tool
async def scrape(urls: list[str]) -> str:
    """Scrape some pages.

    Args:
        urls: The pages.
    """
    report = nt.reporter()
    for k, url in enumerate(urls, 1):
        report.progress(k / len(urls), f"fetching {url}")
        report.step("scraping", urls_scraped=k, urls_total=len(urls))
        await asyncio.sleep(0)
    report.preview(f"{len(urls)} pages so far")
    return f"scraped {len(urls)} pages"


@nt.tool
def sync_scrape(n: int) -> str:
    """Scrape in a worker thread.

    Args:
        n: How many.
    """
    for k in range(n):
        nt.reporter().step("page", k=k)
        time.sleep(0.01)
    return "ok"


@nt.tool
def flaky() -> str:
    """Fails with a type."""
    raise nt.ToolFailure(
        "the site said 429", error_type="rate_limited", suggested_action="wait a minute", is_retryable=True
    )


@nt.tool
async def slow() -> str:
    """Takes forever."""
    await asyncio.sleep(60)
    return "never"


@nt.tool(output_schema={"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]})
def counted(n: int) -> str:
    """Returns JSON text.

    Args:
        n: A number (negative: a wrong shape).
    """
    return json.dumps({"n": n} if n >= 0 else {"m": n})


def collect(run):
    async def go():
        return [e async for e in run.events()]

    return asyncio.run(go())


def kinds(events):
    return [e["data"]["type"] if e["event"] == "tool_event" else e["event"] for e in events]


def test_a_successful_run_streams_in_order_and_ends_with_the_payload():
    events = collect(BenchRun(scrape, {"urls": ["a", "b"]}))
    assert kinds(events) == [
        "status_update", "status_update", "tool_started",
        "tool_progress", "tool_step", "tool_progress", "tool_step", "tool_result_preview",
        "tool_completed", "data", "end",
    ]  # fmt: skip
    assert [e["data"]["status"] for e in events[:2]] == ["connected", "starting"]
    started = events[2]["data"]
    assert started["data"] == {"arguments": {"urls": ["a", "b"]}} and started["show_spinner"] is True
    assert {"call_id", "tool_name", "timestamp", "message", "show_spinner", "data"} <= started.keys()
    assert events[4]["data"]["data"] == {"urls_scraped": 1, "urls_total": 2}
    payload = events[-2]["data"]
    assert payload["model_facing_result"] == {
        "tool_use_id": started["call_id"],
        "name": "scrape",
        "content": "scraped 2 pages",
        "is_error": False,
    }
    full = payload["full_result"]
    assert full["success"] is True and full["output"] == "scraped 2 pages" and full["error"] is None
    assert full["duration_ms"] >= 0 and full["child_usages"] == []
    assert payload["validation"] == {"status": "none", "message": "no output schema registered"}


def test_reports_from_a_sync_tool_in_a_worker_thread_arrive():
    events = collect(BenchRun(sync_scrape, {"n": 3}))
    steps = [
        e["data"]["data"] for e in events if e["event"] == "tool_event" and e["data"]["type"] == "tool_step"
    ]
    assert steps == [{"k": 0}, {"k": 1}, {"k": 2}] and kinds(events)[-2:] == ["data", "end"]


def test_a_typed_tool_failure_is_a_tool_error_with_its_fields():
    events = collect(BenchRun(flaky, {}))
    assert kinds(events) == ["status_update", "status_update", "tool_started", "tool_error", "data", "end"]
    assert events[3]["data"]["data"]["error_type"] == "rate_limited"
    payload = events[-2]["data"]
    assert payload["full_result"]["error"] == {
        "error_type": "rate_limited",
        "message": "the site said 429",
        "suggested_action": "wait a minute",
        "is_retryable": True,
    }
    assert payload["model_facing_result"]["is_error"] is True
    assert payload["model_facing_result"]["content"] == (
        "rate_limited: the site said 429\nSuggested action: wait a minute\nTrying again may work."
    )


def test_a_failure_of_the_run_itself_is_an_error_event_and_end_still_comes():
    events = collect(BenchRun(nt.user_confirm, {"message": "?"}))
    assert kinds(events) == ["status_update", "error", "end"]
    assert "frontend tool" in events[1]["data"]["message"]


def test_invalid_arguments_are_the_tools_error_as_the_model_would_see_it():
    events = collect(BenchRun(scrape, {"urls": "not a list"}))
    assert kinds(events)[-3:] == ["tool_error", "data", "end"]
    assert "Invalid input" in events[-2]["data"]["model_facing_result"]["content"]


def test_cancel_stops_the_tools_task_and_the_stream_ends_saying_so():
    async def go():
        run = BenchRun(slow, {})
        seen = []
        async for event in run.events():
            seen.append(event)
            if event["event"] == "tool_event" and event["data"]["type"] == "tool_started":
                asyncio.get_running_loop().call_later(0.05, run.cancel)  # lands mid-call: slow takes 60 s
        return seen, run

    started = time.perf_counter()
    events, run = asyncio.run(go())
    # the cancel ended the stream, not the tool finishing: half the tool's 60 s is margin for any load
    assert time.perf_counter() - started < 30
    assert kinds(events) == ["status_update", "status_update", "tool_started", "status_update", "end"]
    assert events[3]["data"]["status"] == "cancelled" and run._task.cancelled()


def test_the_model_facing_result_is_what_the_agent_sends_for_the_same_call():
    payload = collect(BenchRun(scrape, {"urls": ["a", "b", "c"]}))[-2]["data"]
    script = t.ScriptedTransport(
        t.turn(t.tool_use("scrape", {"urls": ["a", "b", "c"]}, id="s")), t.reply("ok")
    )
    agent = nt.Agent(client=script.client(), model="m", tools=[scrape])
    asyncio.run(agent.run("go"))
    [block] = script.requests[1]["messages"][-1]["content"]
    assert block["content"] == payload["model_facing_result"]["content"]
    assert block.get("is_error", False) == payload["model_facing_result"]["is_error"]


def test_output_schema_validation_pass_and_fail_with_paths():
    ok = collect(BenchRun(counted, {"n": 3}))[-2]["data"]
    assert ok["validation"] == {"status": "pass"} and ok["output_schema"]["required"] == ["n"]
    bad = collect(BenchRun(counted, {"n": -1}))[-2]["data"]
    assert bad["validation"] == {
        "status": "fail",
        "errors": [{"path": "/", "message": "'n' is a required property"}],
    }


def test_the_cost_estimate_arithmetic():
    estimate = cost_estimate("x" * 700)
    assert estimate["char_count"] == 700 and estimate["method"] == "estimate"
    assert estimate["estimated_tokens"] == math.ceil(700 / CHARS_PER_TOKEN) == 200
    table = prices()
    assert table["taken"] and [m["name"] for m in estimate["models"]] == [m["name"] for m in table["models"]]
    for row, price in zip(estimate["models"], table["models"], strict=True):
        assert row["estimated_cost_usd"] == pytest.approx(200 * price["input_per_million"] / 1_000_000)
    exact = cost_estimate("x" * 700, exact_tokens=180)
    assert exact["method"] == "count_tokens" and exact["estimated_tokens"] == 180
    assert exact["chars_per_token"] == pytest.approx(700 / 180, abs=1e-3)


def test_ndjson_lines_are_the_same_events():
    async def go():
        return [line async for line in BenchRun(scrape, {"urls": ["a"]}).ndjson()]

    lines = asyncio.run(go())
    assert all(line.endswith("\n") for line in lines)
    assert [json.loads(line)["event"] for line in lines][-2:] == ["data", "end"]


def test_progress_reports_are_events_of_an_agent_run_and_nothing_outside_a_tool():
    script = t.ScriptedTransport(t.turn(t.tool_use("scrape", {"urls": ["a", "b"]}, id="s")), t.reply("ok"))
    agent = nt.Agent(client=script.client(), model="m", tools=[scrape])
    recorder = nt.EventRecorder()
    agent.events.subscribe(recorder)
    asyncio.run(agent.run("go"))
    types = [e.type for e in recorder.events if e.type.startswith("tool_")]
    assert types[:6] == [
        "tool_started",
        "tool_progress",
        "tool_step",
        "tool_progress",
        "tool_step",
        "tool_result_preview",
    ]
    assert all(
        e.agent_uuid == agent.agent_uuid and e.tool_use_id == "s" for e in recorder.of_type("tool_step")
    )
    nt.reporter().progress(0.5)  # outside a tool: dropped, no error


deleted: list[str] = []


@nt.tool(needs_approval=lambda arguments: arguments["path"] != "scratch.txt")
def delete_file(path: str) -> str:
    """Delete a file (needs approval, except for scratch.txt).

    Args:
        path: The file.
    """
    deleted.append(path)
    return f"deleted {path}"


@nt.tool(needs_approval=nt.Blocked("never on the bench"))
def format_disk() -> str:
    """Never allowed."""
    deleted.append("everything")
    return "formatted"


def test_a_call_that_needs_approval_is_asked_first_and_a_denial_never_runs_it():
    deleted.clear()
    asked = []

    async def deny(request):
        asked.append(request)
        return False

    events = collect(BenchRun(delete_file, {"path": "data.csv"}, approve=deny))
    assert deleted == [] and [r["name"] for r in asked] == ["delete_file"]
    assert asked[0]["arguments"] == {"path": "data.csv"} and asked[0]["call_id"].startswith("toolu_bench_")
    assert kinds(events) == [
        "status_update", "status_update", "approval_required", "denied", "tool_error", "data", "end"
    ]  # fmt: skip
    payload = events[-2]["data"]
    assert payload["model_facing_result"]["content"] == "The user denied this call."
    assert payload["full_result"]["error"]["error_type"] == "denied"
    assert payload["validation"] == {"status": "skipped"}


def test_an_approved_call_runs_and_one_the_rule_lets_through_is_not_asked():
    deleted.clear()
    events = collect(BenchRun(delete_file, {"path": "data.csv"}, approve=True))
    assert kinds(events)[2:5] == ["approval_required", "approved", "tool_started"]
    assert deleted == ["data.csv"]

    async def never(request):
        raise AssertionError("asked for a call that needs no approval")

    events = collect(BenchRun(delete_file, {"path": "scratch.txt"}, approve=never))
    assert "approval_required" not in kinds(events) and deleted == ["data.csv", "scratch.txt"]


def test_without_an_approver_or_when_blocked_the_tool_never_runs():
    deleted.clear()
    events = collect(BenchRun(delete_file, {"path": "data.csv"}))
    assert kinds(events)[-2:] == ["error", "end"] and "needs approval" in events[-2]["data"]["message"]
    events = collect(BenchRun(format_disk, {}, approve=True))  # blocked: not even asked
    assert "approval_required" not in kinds(events)
    assert (
        events[-2]["data"]["model_facing_result"]["content"] == "This call is not allowed: never on the bench"
    )
    assert deleted == []
