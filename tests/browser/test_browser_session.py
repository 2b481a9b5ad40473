"""The widget when the kernel goes away or the page reloads without saving, in real JupyterLab.

One JupyterLab server and one Chromium serve the module; each test opens its own notebook.
The model is scripted (`notebook_tools.testing`); no test calls the real API.
"""

import re

import pytest
from playwright.sync_api import expect

from tests.support.lab import KERNEL, PATIENT, open_notebook, run_all, wait_for_file, write_notebook

pytestmark = pytest.mark.browser


SETUP = """
import json
import notebook_tools as nt
from notebook_tools import testing as t

@nt.tool(executor="frontend", timeout=600, display={"prompt": "confirm"})
def timed_confirm(message: str) -> str:
    '''A yes/no question the author gave ten minutes (so its card counts down).

    Args:
        message: The question.
    '''

script = t.ScriptedTransport(
    t.turn("One question first.", t.tool_use("timed_confirm", {"message": "Drop the 12 duplicate rows?"}, id="q1")),
    t.reply("Understood: you stopped me. Nothing was dropped."),
)
chat = nt.Chat(nt.Agent(client=script.client(), frontend_tools=[timed_confirm]))
chat
"""
RUN = "result = await chat.send('Clean the table')"


def open_with_pending_prompt(page, lab, name):
    write_notebook(lab.root / name, [SETUP, RUN])
    open_notebook(page, lab, name)
    run_all(page)
    page.locator('section.nt-prompt.nt-pending[data-tool-use-id="q1"] .nt-timer').wait_for(timeout=PATIENT)


def test_after_a_kernel_restart_the_old_widget_says_so_and_takes_no_input(browser, lab):
    page = browser.new_page(viewport={"width": 1100, "height": 900})
    console = []
    page.on("console", lambda message: console.append(message.text))
    open_with_pending_prompt(page, lab, "restart.ipynb")
    timer = page.locator(".nt-timer")
    assert timer.inner_text().endswith("left")  # "10:00 left"

    page.evaluate(f"() => {KERNEL}.restart()")
    banner = page.locator(".nt-gone-banner")
    banner.wait_for(timeout=PATIENT)
    assert "kernel restarted" in banner.inner_text()
    page.wait_for_timeout(2_500)  # the timer would have ticked twice
    assert timer.count() == 0  # nothing counts down any more: the countdown is taken away
    # every control is inert: no click, no typing reaches it, and nothing is sent
    live = page.evaluate(
        """() => [...document.querySelectorAll('.nt-chat button, .nt-chat textarea, .nt-chat input')]
            .filter((el) => el.closest('[inert]') === null).map((el) => el.outerHTML.slice(0, 80))"""
    )
    assert live == []
    assert page.locator(".nt-status").inner_text() == "disconnected from the kernel"
    focused = page.evaluate(
        "() => { const box = document.querySelector('.nt-compose'); box.focus(); return document.activeElement === box; }"
    )
    assert not focused  # an inert message box cannot even take focus
    assert not [text for text in console if "Cannot send" in text]

    # the new kernel runs the same cells again, and the new widget works
    run_all(page)
    page.locator('section.nt-prompt.nt-pending[data-tool-use-id="q1"]').wait_for(timeout=PATIENT)
    assert page.locator(".nt-gone-banner:visible").count() == 0
    page.close()


def test_a_reload_without_saving_then_interrupt_and_show_the_chat_again(browser, lab):
    """What the README says to do when the page reloads while a cell awaits, followed step by step."""
    page = browser.new_page(viewport={"width": 1100, "height": 900})
    page.on("dialog", lambda dialog: dialog.accept())  # "leave the page with unsaved changes?"
    open_with_pending_prompt(page, lab, "reload.ipynb")

    page.reload()
    page.wait_for_function(
        "() => window.jupyterapp && window.jupyterapp.shell.currentWidget", timeout=PATIENT
    )
    page.wait_for_selector(".jp-Notebook", timeout=PATIENT)
    # The page is connected to the kernel again (an interrupt sent before that went nowhere, and on a
    # loaded machine the connection came after a guessed second).
    page.wait_for_function(f"() => ['busy', 'idle'].includes({KERNEL}?.status)", timeout=PATIENT)
    # a widget that would come back has had time to (a negative: no guess can fail it)
    page.wait_for_timeout(1_000)
    assert page.locator(".nt-chat").count() == 0  # outputs were never saved: no widget comes back
    # The kernel still awaits the old cell: interrupt it (the toolbar's ■), which stops the turn.
    page.evaluate("() => window.jupyterapp.commands.execute('notebook:interrupt-kernel')")
    page.wait_for_function(f"() => {KERNEL}?.status === 'idle'", timeout=PATIENT)
    # Then `chat` in a new cell shows the conversation, and the next message carries on.
    page.evaluate(
        """() => {
            const panel = window.jupyterapp.shell.currentWidget;
            panel.content.activeCellIndex = panel.content.widgets.length - 1;
            return window.jupyterapp.commands.execute('notebook:insert-cell-below');
        }"""
    )
    page.evaluate(
        """() => {
            const nb = window.jupyterapp.shell.currentWidget.content;
            nb.activeCell.model.sharedModel.setSource("json.dump(result.stop_reason, open('stopped.json', 'w'))\\nchat");
            return window.jupyterapp.commands.execute('notebook:run-cell');
        }"""
    )
    assert wait_for_file(lab.root / "stopped.json") == "stopped"
    chat = page.locator(".nt-chat")
    chat.wait_for(timeout=PATIENT)
    chat.locator(".nt-assistant", has_text="One question first.").wait_for(timeout=PATIENT)  # the snapshot
    assert "stopped" in chat.locator(".nt-status").inner_text()
    box = chat.locator(".nt-compose")
    box.fill("Why did you stop?")
    box.press("Enter")
    chat.locator(".nt-assistant", has_text="Nothing was dropped.").wait_for(timeout=PATIENT)
    assert chat.locator(".nt-user").all_inner_texts()[-1] == "Why did you stop?"
    page.close()


STOP = """
import json
import notebook_tools as nt
from notebook_tools import testing as t

script = t.ScriptedTransport(
    t.reply("word " * 3000),
    t.reply("Sorry, I will keep it short."),
    t.reply("Second answer."),
    # ~95 s of streaming (it was ~4 s, then ~19 s: a loaded page showed the first words after the stream
    # had ended, so the Stop came too late, twice in fresh-clone runs); the Stop cuts it short
    event_delay=0.05,
)
chat = nt.Chat(nt.Agent(client=script.client()))
chat
"""


def test_stop_then_two_messages(browser, lab):
    """Stop: the cell ends with a one-line result, the status says stopped, each message its own bubble."""
    write_notebook(lab.root / "stop.ipynb", [STOP, "await chat.send('Write a long essay')"])
    page = browser.new_page(viewport={"width": 1100, "height": 900})
    open_notebook(page, lab, "stop.ipynb")
    run_all(page)
    chat = page.locator(".nt-chat")
    chat.locator(".nt-assistant", has_text="word word").wait_for(timeout=PATIENT)
    chat.get_by_role("button", name="Stop the agent").click()
    chat.locator(".nt-notice", has_text="Stopped.").wait_for(timeout=PATIENT)
    assert chat.locator(".nt-status").inner_text().startswith("stopped")
    # the awaiting cell shows the turn's result on one line, not a CancelledError traceback
    output = page.locator(".jp-Cell").nth(1).locator(".jp-OutputArea-output")
    output.first.wait_for(timeout=PATIENT)
    text = output.all_inner_texts()
    assert len(text) == 1 and "stop_reason='stopped'" in text[0] and "Error" not in text[0], text
    assert "\n" not in text[0].strip()
    box = chat.locator(".nt-compose")
    for message, reply in (("Why did you stop?", "keep it short"), ("And now?", "Second answer.")):
        page.wait_for_function("() => !document.querySelector('.nt-compose').disabled", timeout=PATIENT)
        box.fill(message)
        box.press("Enter")
        chat.locator(".nt-assistant", has_text=reply).wait_for(timeout=PATIENT)
    bubbles = chat.locator(".nt-user").all_inner_texts()
    assert bubbles == ["Write a long essay", "Why did you stop?", "And now?"]
    order = page.evaluate(
        """() => [...document.querySelectorAll('.nt-log > *')].map((el) =>
            el.classList.contains('nt-user') ? 'user' : el.classList.contains('nt-notice') ? 'notice' : 'other')"""
    )
    assert order.index("notice") < [i for i, kind in enumerate(order) if kind == "user"][1]
    # the status changes when the turn ends, which can come a text batch after the reply shows
    expect(chat.locator(".nt-status")).to_have_text(re.compile(r"^idle"), timeout=PATIENT)
    page.close()


CUSTOM = """
import notebook_tools as nt
from notebook_tools import testing as t

@nt.tool(
    executor="frontend",
    output_schema={"type": "string", "pattern": "^#[0-9a-f]{6}$"},
)
def pick_color(purpose: str) -> str:
    '''Ask the user to pick a colour.

    Args:
        purpose: What the colour is for, shown to the user.

    Returns:
        The colour as "#rrggbb".
    '''

script = t.ScriptedTransport(
    t.turn("Which colour?", t.tool_use("pick_color", {"purpose": "the bar chart"}, id="c1")),
    lambda request: t.reply("Using " + t.answers_in(request)["pick_color"]),
)
chat = nt.Chat(nt.Agent(client=script.client(), frontend_tools=[pick_color]))
chat
"""


def test_a_custom_tool_card_keeps_what_was_typed_when_an_answer_is_refused(browser, lab):
    write_notebook(lab.root / "custom.ipynb", [CUSTOM, "result = await chat.send('Plot it')"])
    page = browser.new_page(viewport={"width": 1100, "height": 900})
    open_notebook(page, lab, "custom.ipynb")
    run_all(page)
    card = page.locator('section.nt-prompt.nt-pending[data-tool-use-id="c1"]')
    card.wait_for(timeout=PATIENT)
    # the person sees the summary and the argument meant for them, not the return contract
    assert card.locator(".nt-question").inner_text() == "Ask the user to pick a colour."
    assert "Returns" not in card.inner_text()
    assert card.locator(".nt-call-args").inner_text().split("\n") == ["Purpose", "the bar chart"]
    box = card.locator("textarea")
    box.fill("blue")
    card.get_by_role("button", name="Submit").click()
    card.locator(".nt-error", has_text="does not match").wait_for(timeout=PATIENT)
    assert box.input_value() == "blue"  # what was typed stays, to be fixed
    assert box.is_enabled()
    assert page.locator(".nt-error-banner:visible").count() == 0  # the card says why; no banner
    box.fill("#1f77b4")
    card.get_by_role("button", name="Submit").click()
    page.locator(".nt-assistant", has_text="Using #1f77b4").wait_for(timeout=PATIENT)
    done = page.locator('section.nt-prompt[data-tool-use-id="c1"]')
    assert "Answered" in done.inner_text() and done.locator(".nt-error").count() == 0
    page.close()
