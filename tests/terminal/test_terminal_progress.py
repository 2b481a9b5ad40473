"""The terminal's status line per running tool: its step, share and preview, gone when the call ends."""

import asyncio
import io
import re
import time

from rich.console import Console

import notebook_tools as nt
from notebook_tools import testing as t
from notebook_tools.terminal import TerminalChat
from tests.support.readiness import CEILING, until_async

ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


SCREEN: list[io.StringIO] = []
"""A terminal console's output while `scrape` runs there (empty otherwise)."""


@nt.tool
async def scrape() -> str:
    """Scrape three pages."""
    report = nt.reporter()
    for done in range(1, 4):
        report.step("scraping", urls_scraped=done, urls_total=3)
        report.progress(done / 3, f"page {done}")
        report.preview(f"{done} pages\nof <b>text</b>")
        if SCREEN:  # on a terminal: the next step only once the status line drew this one
            await until_async(
                lambda done=done: f"page {done} · ⟨{done} pages" in ANSI.sub("", SCREEN[-1].getvalue()),
                f"the status line to show page {done}",
            )
        await asyncio.sleep(0.05)
    return "three pages"


@nt.tool
async def busy() -> str:
    """Report thousands of times."""
    report = nt.reporter()
    for i in range(3_000):
        report.progress(i / 3_000)
        report.step("crunching", item=i)
        if i % 300 == 0:
            await asyncio.sleep(0.01)
    return "crunched"


def converse(console: Console, tool) -> None:
    script = t.ScriptedTransport(t.turn(t.tool_use(tool.name, {}, id="c1")), t.reply("Done."))
    agent = nt.Agent(client=script.client(), tools=[tool])
    chat = TerminalChat(agent, console=console, input=["go", "/exit"])
    assert asyncio.run(asyncio.wait_for(chat.run(), CEILING)) == 0
    assert chat.status._calls == {} and chat.status._live is None


def test_on_a_terminal_one_line_updates_in_place_and_goes_with_the_result():
    out = io.StringIO()
    console = Console(
        file=out, force_terminal=True, color_system=None, width=160, highlight=False, emoji=False
    )
    SCREEN.append(out)
    try:
        converse(console, scrape)
    finally:
        SCREEN.clear()
    raw = out.getvalue()
    screen = ANSI.sub("", raw)
    for n in range(1, 4):
        pct = f"{round(n / 3 * 100)}%"
        assert (
            f"scrape · scraping · urls_scraped {n} / urls_total 3 · {pct} · page {n} · ⟨{n} pages of <b>text</b>⟩"
            in screen
        )
    assert "\x1b[2K" in raw or "\x1b[1A" in raw, "the line is redrawn in place, not appended"
    assert screen.index("⟨3 pages") < screen.index("✓ scrape → three pages")
    # Nothing of the status line is left after the result: the Live region was erased.
    tail = screen[screen.index("✓ scrape → three pages") :]
    assert "urls_scraped" not in tail


def test_thousands_of_reports_redraw_at_most_ten_times_a_second():
    out = io.StringIO()
    console = Console(
        file=out, force_terminal=True, color_system=None, width=160, highlight=False, emoji=False
    )
    started = time.perf_counter()
    converse(console, busy)
    seconds = time.perf_counter() - started
    draws = ANSI.sub("", out.getvalue()).count("busy · crunching")
    assert draws <= seconds * 10 + 3, (draws, seconds)
    assert "✓ busy → crunched" in out.getvalue()


def test_without_a_terminal_each_new_step_is_printed_once():
    out = io.StringIO()
    console = Console(file=out, color_system=None, width=200, highlight=False, emoji=False)
    converse(console, scrape)
    screen = out.getvalue()
    assert "\x1b" not in screen
    assert screen.count("… scrape · scraping") == 1
    assert "  … scrape · scraping · urls_scraped 1 / urls_total 3" in screen
    lines = screen.splitlines()
    assert lines.index("⚙ scrape") < next(i for i, s in enumerate(lines) if "… scrape" in s)
    assert "✓ scrape → three pages" in screen
