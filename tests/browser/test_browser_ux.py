"""The chat as a person uses it in real JupyterLab: keys stay in the widget, focus, the log follows.

One JupyterLab server and one Chromium serve the whole module; each test opens its own notebook.
The model is scripted (`notebook_tools.testing`), and no test answers with the real API.
"""

import pytest

from tests.support.lab import PATIENT, command, open_notebook, run_all, write_notebook

pytestmark = pytest.mark.browser


@pytest.fixture
def page(browser):
    page = browser.new_page(viewport={"width": 1100, "height": 900})
    yield page
    page.close()


def card(page, tool_use_id):
    return page.locator(f'section.nt-prompt[data-tool-use-id="{tool_use_id}"]')


NOTEBOOK_STATE = """() => {
    const nb = window.jupyterapp.shell.currentWidget.content;
    return {
        types: nb.widgets.map((cell) => cell.model.type),
        sources: nb.widgets.map((cell) => cell.model.sharedModel.getSource()),
        active: nb.activeCellIndex,
    };
}"""
LOG = """() => {
    const log = document.querySelector('.nt-log');
    return {top: log.scrollTop, bottom: log.scrollHeight - log.clientHeight, overflow: log.scrollHeight > log.clientHeight + 100};
}"""
SETTLED = """() => new Promise((done) => {
    const log = document.querySelector('.nt-log');
    let last = log.scrollTop;
    const check = () => (log.scrollTop === last ? done() : ((last = log.scrollTop), setTimeout(check, 150)));
    setTimeout(check, 150);
})"""


def settle(page):
    """Waits until the log stops scrolling: a wheel scroll is animated and Playwright does not wait for it."""
    page.evaluate(SETTLED)


FOCUS_IN_CHAT = "() => !!document.activeElement?.closest('.nt-chat')"

KEYS = """
import notebook_tools as nt
from notebook_tools import testing as t

@nt.tool(mode="both")
def refresh(source: str = "disk") -> str:
    '''Refresh the working data.

    Args:
        source: Where to read from.
    '''
    return f"refreshed from {source}"

idle = nt.Chat(nt.Agent(client=t.ScriptedTransport().client(), tools=[refresh]))
script = t.ScriptedTransport(t.turn(
    "A few questions.",
    t.tool_use("user_confirm", {"message": "Drop the rows?", "confirm_label": "Drop", "deny_label": "Keep"}, id="k_confirm"),
    t.tool_use("select_option", {"prompt": "Which region?", "options": ["north", "south", "east"]}, id="k_radio"),
    t.tool_use("select_option", {"prompt": "Which columns?", "options": ["price", "qty"], "multiple": True}, id="k_check"),
    t.tool_use("ask_text", {"prompt": "Name of the table?"}, id="k_text"),
))
chat = nt.Chat(nt.Agent(client=script.client(), frontend_tools=[nt.user_confirm, nt.select_option, nt.ask_text]))
display(idle)
chat
"""


def test_keys_on_every_control_stay_in_the_widget(page, lab):
    write_notebook(lab.root / "keys.ipynb", [KEYS, "await chat.send('go')", "x = 1", "y = 2"])
    open_notebook(page, lab, "keys.ipynb")
    run_all(page)
    card(page, "k_text").locator("input").wait_for(timeout=PATIENT)
    idle = page.locator(".nt-chat").first
    before = page.evaluate(NOTEBOOK_STATE)
    assert before["types"] == ["code"] * 4

    def keys_stay(control, name, *, radio_moves=False):
        control.focus()
        # Focus in an output puts the notebook in command mode, where `d d`, `m`, `b`, `a` and the
        # arrows are bound: the keys below would delete, convert, insert and move cells.
        assert page.evaluate("() => window.jupyterapp.shell.currentWidget.content.mode") == "command", name
        state = page.evaluate(NOTEBOOK_STATE)
        for key in ["d", "d", "m", "b", "a", "y", "ArrowDown"]:
            page.keyboard.press(key)
        page.wait_for_timeout(150)
        after = page.evaluate(NOTEBOOK_STATE)
        assert after["types"] == before["types"], name
        assert after["sources"] == before["sources"], name
        assert after["active"] == state["active"], name
        assert page.evaluate(FOCUS_IN_CHAT), name

    radios = card(page, "k_radio").locator("input[type=radio]")
    radios.nth(0).check()
    keys_stay(radios.nth(0), "radio")
    # ArrowDown on a radio group moves to the next option, as it does outside JupyterLab
    assert radios.nth(1).is_checked() and not radios.nth(0).is_checked()
    assert page.evaluate("() => document.activeElement.value") == "south"
    keys_stay(card(page, "k_confirm").get_by_role("button", name="Drop"), "prompt button")
    keys_stay(card(page, "k_check").get_by_label("price"), "checkbox")
    keys_stay(card(page, "k_text").locator("input"), "text input")
    keys_stay(card(page, "k_text").get_by_role("button", name="Skip"), "skip button")
    keys_stay(idle.get_by_label("Message", exact=True), "composer")
    tools = idle.get_by_role("button", name="Tools")
    keys_stay(tools, "Tools button")
    tools.click()
    keys_stay(idle.locator(".nt-tool-choice", has_text="refresh"), "Tools panel button")
    idle.locator(".nt-tool-choice", has_text="refresh").click()
    keys_stay(idle.locator("#nt-run-refresh-source"), "Tools panel field")
    # every prompt is still open: none of those keys answered anything
    assert page.locator("section.nt-prompt.nt-pending").count() == 4
    # Escape closes the Tools panel and gives focus back to the Tools button
    page.keyboard.press("Escape")
    assert idle.locator(".nt-tools-panel").is_hidden()
    assert page.evaluate("() => document.activeElement.textContent") == "Tools"
    assert tools.get_attribute("aria-expanded") == "false"
    # Saving is the one JupyterLab shortcut that still works from inside the widget
    page.wait_for_function("() => window.jupyterapp.shell.currentWidget.context.model.dirty")
    page.keyboard.press("Control+s")
    page.wait_for_function(
        "() => !window.jupyterapp.shell.currentWidget.context.model.dirty", timeout=PATIENT
    )


FOUR = """
import notebook_tools as nt
from notebook_tools import testing as t

context = "\\n\\n".join(f"Paragraph {i} of what I found in the sales table." for i in range(30))
script = t.ScriptedTransport(t.turn(
    context,
    t.tool_use("user_confirm", {"message": "Drop the 12 duplicate rows?", "confirm_label": "Drop"}, id="f_confirm"),
    t.tool_use("select_option", {"prompt": "Columns to convert?", "options": ["price", "qty"], "multiple": True}, id="f_select"),
    t.tool_use("ask_text", {"prompt": "Name of the cleaned table?", "default": "sales_clean"}, id="f_text"),
    t.tool_use("pick_file", {"prompt": "Upload the price list", "accept": ".csv"}, id="f_file"),
), t.reply("Done. " + context))
chat = nt.Chat(nt.Agent(client=script.client(), frontend_tools=[nt.user_confirm, nt.ask_text, nt.select_option, nt.pick_file]))
chat
"""
FOCUS_CARD = "() => document.activeElement?.closest('section.nt-prompt')?.dataset.toolUseId ?? null"


def gated(name, code):
    """`code` run once the test creates the file `name`."""
    return f"import asyncio, os\nwhile not os.path.exists({name!r}):\n    await asyncio.sleep(0.05)\n{code}"


def focus_nowhere(page, gate):
    """Once Run All has shown the chat (and JupyterLab focused a cell), the person clicks outside the
    notebook: the focus is nowhere, the one place besides the chat a prompt may take it from (never
    a cell: tests/browser/test_browser_focus.py). Then the turn starts and its prompts open."""
    page.locator(".nt-chat").wait_for(timeout=PATIENT)
    assert page.evaluate(
        "() => { document.activeElement?.blur(); return document.activeElement === document.body; }"
    )
    gate.write_text("")


IN_VIEW = """(id) => {
    const card = document.querySelector(`section.nt-prompt[data-tool-use-id="${id}"]`).getBoundingClientRect();
    const log = document.querySelector('.nt-log').getBoundingClientRect();
    return card.top >= log.top - 1 && card.top + 30 <= log.bottom && card.top >= 0 && card.top + 30 <= innerHeight;
}"""


def test_focus_goes_to_the_first_open_prompt_and_never_from_a_cell_after_a_reload(page, lab):
    (lab.root / "go_four").unlink(missing_ok=True)
    write_notebook(
        lab.root / "four.ipynb", [FOUR, gated("go_four", "await chat.send('Clean the sales table')")]
    )
    open_notebook(page, lab, "four.ipynb")
    run_all(page)
    focus_nowhere(page, lab.root / "go_four")
    page.wait_for_function(f"({FOCUS_CARD})() !== null", timeout=PATIENT)
    page.wait_for_timeout(300)  # every card has been drawn and had its chance to take focus
    assert page.evaluate(FOCUS_CARD) == "f_confirm"
    assert page.evaluate(IN_VIEW, "f_confirm")
    # a stray Enter right after focus arrives answers nothing, least of all with the text box's default
    page.keyboard.press("Enter")
    page.wait_for_timeout(1000)
    assert page.locator("section.nt-prompt.nt-pending").count() == 4
    # answering one moves focus to the next open prompt
    card(page, "f_confirm").get_by_role("button", name="Drop").click()
    page.wait_for_function(f"({FOCUS_CARD})() === 'f_select'", timeout=PATIENT)
    assert page.evaluate(IN_VIEW, "f_select")

    command(page, "docmanager:save")
    page.wait_for_function(
        "() => !window.jupyterapp.shell.currentWidget.context.model.dirty", timeout=PATIENT
    )
    page.reload()
    page.wait_for_function(
        "() => window.jupyterapp && window.jupyterapp.shell.currentWidget", timeout=PATIENT
    )
    card(page, "f_select").locator("input").first.wait_for(timeout=PATIENT)
    # JupyterLab, restoring its layout, focused a cell: the prompts that came back leave it there
    page.wait_for_timeout(1000)  # the view has its transcript and had its chance to take the focus
    assert page.evaluate(FOCUS_CARD) is None
    assert page.evaluate(
        "() => !!document.activeElement?.closest('.jp-Cell') && !document.activeElement.closest('.nt-chat')"
    )
    card(page, "f_select").locator(".nt-question").click()  # the person clicks the prompt
    assert page.evaluate(FOCUS_CARD) == "f_select"
    assert page.evaluate(IN_VIEW, "f_select")
    select = card(page, "f_select")
    select.get_by_label("price").check()
    select.get_by_role("button", name="Submit").click()
    page.wait_for_function(f"({FOCUS_CARD})() === 'f_text'", timeout=PATIENT)
    # typing while the text prompt's card has focus goes into its box, replacing the default;
    # then Enter, pressed on purpose, answers
    page.keyboard.type("sales_v2")
    assert card(page, "f_text").locator("input").input_value() == "sales_v2"
    page.keyboard.press("Enter")
    card(page, "f_text").locator(".nt-answered", has_text="sales_v2").wait_for(timeout=PATIENT)
    # Escape on the last card answers nothing (it leaves edit mode in JupyterLab); its Skip button
    # skips it; the reply that follows is followed to its end, although placing focus on the
    # prompts had scrolled the log up
    page.wait_for_function(f"({FOCUS_CARD})() === 'f_file'", timeout=PATIENT)
    page.keyboard.press("Escape")
    page.wait_for_timeout(500)
    assert page.locator("section.nt-prompt.nt-pending").count() == 1
    card(page, "f_file").get_by_role("button", name="Skip").click()
    page.locator(".nt-assistant", has_text="Done.").wait_for(timeout=PATIENT)
    page.wait_for_timeout(300)
    log = page.evaluate(LOG)
    assert log["overflow"] and log["top"] >= log["bottom"] - 2


THREE = """
import notebook_tools as nt
from notebook_tools import testing as t

@nt.tool(needs_approval=True)
def delete_rows(table: str, n_rows: int, options: dict | None = None) -> str:
    '''Delete rows from a table.

    Args:
        table: The table.
        n_rows: How many rows to delete.
        options: Anything else.
    '''
    return "deleted"

script = t.ScriptedTransport(t.turn(
    "Three deletions need your approval.",
    t.tool_use("delete_rows", {"table": "sales", "n_rows": 5}, id="a_one"),
    t.tool_use("delete_rows", {"table": "staging", "n_rows": 9}, id="a_two"),
    t.tool_use("delete_rows", {"table": "archive", "n_rows": 1, "options": {f"arg{i}": i for i in range(50)}}, id="a_three"),
))
chat = nt.Chat(nt.Agent(client=script.client(), tools=[delete_rows]))
chat
"""


def test_approval_focus_is_on_the_first_card_never_on_approve(page, lab):
    (lab.root / "go_three").unlink(missing_ok=True)
    write_notebook(lab.root / "three.ipynb", [THREE, gated("go_three", "await chat.send('Tidy up')")])
    open_notebook(page, lab, "three.ipynb")
    run_all(page)
    focus_nowhere(page, lab.root / "go_three")
    page.wait_for_function(f"({FOCUS_CARD})() !== null", timeout=PATIENT)
    page.wait_for_timeout(300)
    assert page.evaluate(FOCUS_CARD) == "a_one"
    assert page.evaluate("() => document.activeElement.textContent") != "Approve"
    assert page.evaluate("() => document.activeElement.tagName") != "BUTTON"
    assert page.evaluate(IN_VIEW, "a_one")
    page.keyboard.press("Enter")
    page.wait_for_timeout(500)
    assert page.locator("section.nt-prompt.nt-pending").count() == 3


LONG = """
import asyncio, os
import notebook_tools as nt
from notebook_tools import testing as t

long = "\\n\\n".join(f"Paragraph {i}: the sales table, column by column." for i in range(80))
script = t.ScriptedTransport(t.reply(long), t.reply("The last word: " + "more detail. " * 40))
chat = nt.Chat(nt.Agent(client=script.client()))
chat
"""
WAIT_FOR_GO = """
await chat.send('Describe the table')
while not os.path.exists('go'):
    await asyncio.sleep(0.05)
await chat.send('And then?')
"""


def test_the_log_follows_new_content_until_the_person_scrolls_up(page, lab):
    write_notebook(lab.root / "long.ipynb", [LONG, WAIT_FOR_GO])
    (lab.root / "go").unlink(missing_ok=True)
    open_notebook(page, lab, "long.ipynb")
    run_all(page)
    page.locator(".nt-assistant", has_text="Paragraph 79:").wait_for(timeout=PATIENT)
    settle(page)
    log = page.evaluate(LOG)
    assert log["overflow"]
    assert log["top"] >= log["bottom"] - 2  # the end of the reply is in sight
    pill = page.get_by_role("button", name="New messages")
    assert pill.is_hidden()

    page.locator(".nt-log").hover()
    page.mouse.wheel(0, -1500)
    settle(page)
    scrolled = page.evaluate(LOG)["top"]
    assert scrolled < log["bottom"] - 500
    (lab.root / "go").write_text("")
    page.locator(".nt-assistant", has_text="The last word").wait_for(timeout=PATIENT)
    settle(page)
    assert page.evaluate(LOG)["top"] == scrolled  # the person reads on undisturbed
    pill.wait_for(state="visible", timeout=PATIENT)
    pill.click()
    settle(page)
    log = page.evaluate(LOG)
    assert log["top"] >= log["bottom"] - 2
    assert pill.is_hidden()
