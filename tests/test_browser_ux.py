"""The chat as a person uses it in real JupyterLab: keys pressed in the widget stay in it.

One JupyterLab server and one Chromium serve the whole module; each test opens its own notebook.
The model is scripted (`notebook_tools.testing`), and no test answers with the real API.
"""

import pytest

from tests.lab import CHROMIUM_ARGS, Lab, chromium_path, open_notebook, run_all, write_notebook

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS, headless=True)
        yield b
        b.close()


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    server = Lab(tmp_path_factory.mktemp("lab"))
    yield server
    server.close()


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
    card(page, "k_text").locator("input").wait_for(timeout=60_000)
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
    page.wait_for_function("() => !window.jupyterapp.shell.currentWidget.context.model.dirty", timeout=10_000)
