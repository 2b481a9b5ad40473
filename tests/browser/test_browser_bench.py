"""The tool bench in real JupyterLab: filter the list, fill a form, run, read the panels, cancel.

One notebook, one `nt.ToolBench` over three scripted tools: a search that reports progress, a step
and a preview and matches its output schema; a counter that violates its own; a slow crawl that is
cancelled with Escape. Saves docs/screenshots/bench-{light,dark}.png.
"""

from pathlib import Path

import pytest

from tests.support.lab import PATIENT, no_news_toast, open_notebook, run_all, set_theme, write_notebook

pytestmark = pytest.mark.browser

SCREENSHOTS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"

SETUP = '''
import asyncio
import notebook_tools as nt

RESULTS = {"type": "object", "properties": {"results": {"type": "array", "items": {"type": "string"}}}}

@nt.tool(category="web", tags=["search"], icon="search", version="1.0.0", timeout=60, output_schema=RESULTS)
async def web_search(query: str, count: int = 3) -> dict:
    """Search the web (scripted: no network).

    Args:
        query: What to look for.
        count: How many results.
    """
    report = nt.reporter()
    report.progress(0.5, "searching")
    report.step("scraping", urls_scraped=count, urls_total=count)
    report.preview(f"first result for {query}")
    return {"results": [f"{query} result {i}" for i in range(count)]}

@nt.tool(category="data", output_schema={"type": "object", "properties": {"rows": {"type": "integer"}}})
def count_rows(table: str = "sales") -> dict:
    """Count a table's rows <img src=x onerror="window.pwned=1">.

    Args:
        table: The table.
    """
    return {"rows": "many"}

@nt.tool(category="web")
async def slow_crawl(pages: int = 100) -> str:
    """Crawl slowly, a page a second.

    Args:
        pages: How many pages.
    """
    for k in range(pages):
        nt.reporter().progress(k / pages, f"page {k}")
        await asyncio.sleep(1)
    return "done"

bench = nt.ToolBench([web_search, count_rows, slow_crawl])
bench
'''


@pytest.fixture
def page(browser):
    page = browser.new_page(viewport={"width": 1100, "height": 1600})
    yield page
    page.close()


def test_filter_fill_run_validate_cost_and_cancel(page, lab):
    # no "get notified about Jupyter news?" toast over the screenshots
    no_news_toast(lab)
    write_notebook(lab.root / "bench.ipynb", [SETUP])
    open_notebook(page, lab, "bench.ipynb")
    run_all(page)
    bench = page.locator(".nt-bench")
    bench.wait_for(timeout=PATIENT)
    names = bench.locator(".nt-bench-tool-name")

    # the list: filtered by category, searched by text
    assert bench.locator(".nt-bench-side .nt-bench-note").text_content() == "3 of 3 tools"
    bench.get_by_label("Category").select_option("web")
    assert names.all_text_contents() == ["web_search", "slow_crawl"]
    bench.get_by_label("Search tools").fill("crawl")
    assert names.all_text_contents() == ["slow_crawl"]
    bench.get_by_label("Search tools").fill("")
    bench.get_by_label("Category").select_option("")
    assert names.all_text_contents() == ["web_search", "count_rows", "slow_crawl"]

    # a tool that breaks its output schema; its description stays text
    bench.locator('[data-tool="count_rows"]').click()
    detail = bench.locator(".nt-bench-detail")
    assert detail.locator("h3").text_content() == "count_rows"
    assert "<img" in detail.locator(".nt-bench-desc").text_content()
    assert bench.locator("img").count() == 0
    assert bench.locator("input[id$='-table']").input_value() == "sales"  # the default, pre-filled
    bench.get_by_role("button", name="Execute").click()
    bench.locator(".nt-bench-badge.nt-bench-fail").wait_for(timeout=PATIENT)
    assert bench.locator(".nt-bench-errors li").all_text_contents() == [
        "/rows: 'many' is not of type 'integer'"
    ]
    assert page.evaluate("() => window.pwned") is None

    # fill a form, Enter executes: progress, a step and a preview stream in; badge, cost, full result
    bench.locator('[data-tool="count_rows"]').focus()  # the list by keyboard: arrows move, Enter picks
    page.keyboard.press("ArrowUp")
    page.keyboard.press("Enter")
    assert bench.locator('[data-tool="web_search"]').get_attribute("aria-pressed") == "true"
    count = bench.locator("input[id$='-count']")
    assert count.input_value() == "3"
    count.fill("7")
    bench.get_by_role("button", name="Reset to defaults").click()
    assert count.input_value() == "3"
    query = bench.locator("input[id$='-query']")
    query.fill("jupyter widgets")
    query.press("Enter")
    bench.locator(".nt-bench-badge.nt-bench-pass").wait_for(timeout=PATIENT)
    # `end` is a message of its own, right behind the `data` that set the badge
    bench.locator('.nt-bench-log [data-kind="end"]').wait_for(timeout=PATIENT)
    log = bench.locator(".nt-bench-log li")
    kinds = log.evaluate_all("(rows) => rows.map((r) => r.dataset.kind)")
    assert kinds == [
        "status_update",
        "status_update",
        "tool_started",
        "tool_progress",
        "tool_step",
        "tool_result_preview",
        "tool_completed",
        "data",
        "end",
    ]
    assert "urls_scraped: 3, urls_total: 3" in bench.locator('[data-kind="tool_step"]').text_content()
    assert (
        "first result for jupyter widgets"
        in bench.locator('[data-kind="tool_result_preview"]').text_content()
    )
    assert bench.locator(".nt-bench-spinner").count() == 0
    assert "jupyter widgets result 2" in bench.locator("pre.nt-bench-facing").text_content()
    assert bench.locator(".nt-bench-badge").text_content() == "✓ Output matches the registered schema"
    cost = bench.locator(".nt-bench-cost tbody tr")
    assert cost.count() >= 1
    summary = bench.locator(".nt-bench-outcome .nt-bench-note").nth(1).text_content()
    assert "estimated at" in summary and "prices of 20" in summary
    full = bench.locator(".nt-bench-full")
    assert not full.locator("pre").is_visible()
    full.locator("summary").click()
    assert '"success": true' in full.locator("pre").text_content()

    # light and dark, for docs/screenshots/
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    bench.scroll_into_view_if_needed()
    bench.screenshot(path=str(SCREENSHOTS / "bench-light.png"), animations="disabled")
    set_theme(page, dark=True)
    try:
        bench.screenshot(path=str(SCREENSHOTS / "bench-dark.png"), animations="disabled")
    finally:
        set_theme(page, dark=False)

    # a slow tool: the spinner runs until Escape cancels it, and the stream ends saying so
    bench.locator('[data-tool="slow_crawl"]').click()
    execute = bench.get_by_role("button", name="Execute")
    execute.click()
    bench.locator('[data-kind="tool_progress"] .nt-bench-spinner').first.wait_for(timeout=PATIENT)
    assert bench.get_by_role("button", name="Cancel").is_enabled()
    assert execute.is_disabled()
    bench.locator("input[id$='-pages']").press("Escape")
    bench.locator(".nt-bench-status", has_text="Cancelled").wait_for(timeout=PATIENT)
    bench.locator('.nt-bench-log [data-kind="end"]').wait_for(timeout=PATIENT)
    assert bench.locator(".nt-bench-spinner").count() == 0
    assert bench.locator(".nt-bench-log li").last.get_attribute("data-kind") == "end"
    page.wait_for_function("() => !document.querySelector('.nt-bench-actions button').disabled")
