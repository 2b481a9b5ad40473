"""Timeouts in real JupyterLab: a prompt without one waits an hour, one with a timeout counts down visibly.

Time is moved on both sides: Playwright's `page.clock` (installed before the page loads, flowing
like real time) fast-forwards the browser, whose view keeps pinging on its own fake timers; the
kernel's prompts run on an `nt.testing.FakeClock` that a cell moves on, a minute at a time, each
step only once a ping from the view has arrived (so the kernel sees a live view throughout, as it
would with a person reading for an hour). The model is scripted; no test uses the real API.
"""

import json
import re
import time

import pytest

from tests.support.lab import (
    ARTIFACTS,
    PATIENT,
    open_notebook,
    run_all,
    wait_for_file,
    wait_for_path,
    write_notebook,
)

pytestmark = pytest.mark.browser


@pytest.fixture
def page(browser, lab):
    # Fast-forwarding the page's clock makes JupyterLab autosave, then ask whether to overwrite the
    # notebook "changed on disk": no autosave here (its dialog would cover the prompt).
    settings = lab.root / ".jupyter" / "lab" / "user-settings" / "@jupyterlab" / "docmanager-extension"
    settings.mkdir(parents=True, exist_ok=True)
    (settings / "plugin.jupyterlab-settings").write_text(json.dumps({"autosave": False}))
    context = browser.new_context(viewport={"width": 1100, "height": 900})
    page = context.new_page()
    page.clock.install()  # fake timers that flow like real time until fast-forwarded
    yield page
    context.close()


def card(page, tool_use_id):
    return page.locator(f'section.nt-prompt[data-tool-use-id="{tool_use_id}"]')


HOUR_SETUP = """
import asyncio, json, pathlib
import notebook_tools as nt
from notebook_tools import testing as t

clock = t.FakeClock()
script = t.ScriptedTransport(
    t.turn("One question.", t.tool_use("user_confirm", {"message": "Drop the rows?"}, id="w_hour")),
    t.reply("Dropped."),
)
chat = nt.Chat(nt.Agent(client=script.client(), frontend_tools=[nt.user_confirm]), clock=clock)
chat
"""
HOUR_START = "task = chat.send_nowait('go')"
HOUR_PASSES = """
while not (chat.attached and [k for k, p in chat.prompts.items() if p["status"] == "pending"]):
    await asyncio.sleep(0.02)  # the prompt is open and the view has said hello
pathlib.Path("hour_started.json").write_text("{}")
steps = 0
for steps in range(1, 61):  # an hour, a minute at a time
    clock.advance(60)
    while not chat.attached:  # until the view's next ping (the browser's clock moved on too)
        await asyncio.sleep(0.02)
pending = [k for k, p in chat.prompts.items() if p["status"] == "pending"]
pathlib.Path("hour.json").write_text(json.dumps({"offset": clock.offset, "steps": steps, "pending": pending}))
"""
HOUR_END = """
result = await task
answers = [b for m in script.requests[-1]["messages"] for b in (m["content"] if isinstance(m["content"], list) else [])]
pathlib.Path("hour_done.json").write_text(json.dumps({
    "stop": result.stop_reason,
    "content": [b.get("content") for b in answers if b.get("type") == "tool_result"],
    "acks": {k: a.status for k, a in chat.acks.items()},
}))
"""


def test_a_prompt_without_a_timeout_shows_no_countdown_and_waits_an_hour(page, lab):
    root = lab.root
    write_notebook(root / "hour.ipynb", [HOUR_SETUP, HOUR_START, HOUR_PASSES, HOUR_END])
    open_notebook(page, lab, "hour.ipynb")
    run_all(page)
    prompt = card(page, "w_hour")
    prompt.get_by_role("button", name="Yes").wait_for(timeout=PATIENT)
    assert prompt.locator(".nt-timer").count() == 0  # no timeout: nothing counts down
    assert page.get_by_role("timer").count() == 0
    wait_for_path(root / "hour_started.json")
    started = time.monotonic()
    while not (root / "hour.json").exists():  # the browser's hour: its view pings at every jump
        page.clock.fast_forward(60_000)
        page.wait_for_timeout(50)
        assert time.monotonic() - started < 240, "the kernel stopped seeing the view"
    hour = wait_for_file(root / "hour.json")
    assert hour["steps"] == 60 and hour["offset"] >= 3600 and hour["pending"] == ["w_hour"]
    # after an hour the card is still open, still without a countdown, and answerable
    assert prompt.get_by_role("button", name="Yes").is_enabled()
    assert prompt.locator(".nt-timer").count() == 0
    prompt.get_by_role("button", name="Yes").click()
    done = wait_for_file(root / "hour_done.json")
    assert done == {"stop": "end_turn", "content": ["yes"], "acks": {"w_hour": "success"}}


TIMED = """
import json, pathlib
import notebook_tools as nt
from notebook_tools import testing as t

@nt.tool(executor="frontend", timeout=600, display={"prompt": "confirm"})
def timed_confirm(message: str) -> str:
    '''Ask a yes/no question the author gave ten minutes.

    Args:
        message: The question.
    '''

script = t.ScriptedTransport(
    t.turn("One question.", t.tool_use("timed_confirm", {"message": "Keep going?"}, id="w_timed")),
    t.reply("Thanks."),
)
chat = nt.Chat(nt.Agent(client=script.client(), frontend_tools=[timed_confirm]))
chat
"""
TIMED_WAIT = """
result = await chat.send("go")
pathlib.Path("timed_done.json").write_text(json.dumps({"stop": result.stop_reason, "acks": {k: a.status for k, a in chat.acks.items()}}))
"""
TIMER_STATE = """(el) => ({
    text: el.querySelector('.nt-timer-text').textContent,
    label: el.getAttribute('aria-label'),
    urgent: el.classList.contains('nt-timer-urgent'),
    color: getComputedStyle(el).color,
    size: parseFloat(getComputedStyle(el).fontSize),
    weight: Number(getComputedStyle(el).fontWeight),
    fill: el.querySelector('.nt-timer-fill').getBoundingClientRect().width,
    bar: el.querySelector('.nt-timer-bar').getBoundingClientRect().width,
})"""


def seconds_left(text):
    found = re.fullmatch(r"(?:(\d+):)?(\d+):(\d\d) left|(\d+) s left", text)
    assert found, text
    if found.group(4):
        return int(found.group(4))
    return int(found.group(1) or 0) * 3600 + int(found.group(2)) * 60 + int(found.group(3))


def test_a_prompt_with_a_timeout_shows_a_visible_countdown_that_decreases(page, lab):
    root = lab.root
    write_notebook(root / "timed.ipynb", [TIMED, TIMED_WAIT])
    open_notebook(page, lab, "timed.ipynb")
    run_all(page)
    prompt = card(page, "w_timed")
    prompt.get_by_role("button", name="Yes").wait_for(timeout=PATIENT)
    timer = prompt.get_by_role("timer")
    assert timer.is_visible()
    first = timer.evaluate(TIMER_STATE)
    left = seconds_left(first["text"])
    assert 590 <= left <= 600 and first["label"] == f"{first['text']} to answer"
    assert first["size"] >= 12 and first["weight"] >= 600 and not first["urgent"]  # not small grey text
    assert first["fill"] > 0.95 * first["bar"]
    ARTIFACTS.mkdir(exist_ok=True)
    prompt.screenshot(path=str(ARTIFACTS / "prompt-countdown.png"))
    page.clock.fast_forward(120_000)
    page.wait_for_function(
        "([el, before]) => el.querySelector('.nt-timer-text').textContent !== before",
        arg=[timer.element_handle(), first["text"]],
    )
    later = timer.evaluate(TIMER_STATE)
    assert left - 125 <= seconds_left(later["text"]) <= left - 119  # two minutes less
    assert later["fill"] < first["fill"]
    page.clock.fast_forward((seconds_left(later["text"]) - 20) * 1000)  # near the end
    page.wait_for_function("(el) => el.classList.contains('nt-timer-urgent')", arg=timer.element_handle())
    urgent = timer.evaluate(TIMER_STATE)
    assert seconds_left(urgent["text"]) <= 20 and urgent["color"] != first["color"]  # the warning colour
    prompt.screenshot(path=str(ARTIFACTS / "prompt-countdown-urgent.png"))
    prompt.get_by_role("button", name="Yes").click()  # the kernel's real clock: well within 600 s
    done = wait_for_file(root / "timed_done.json")
    assert done == {"stop": "end_turn", "acks": {"w_timed": "success"}}
