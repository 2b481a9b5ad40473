"""Plugins in real JupyterLab: the container call as an event row, the Tools menu, expand/collapse by hand.

One notebook, one chat, three requests to the scripted model (the real `anthropic` client on
`notebook_tools.testing`): the model expands a plugin, the person collapses it by keyboard and
expands another by click from the Tools menu, and the next request carries the changed tools and
the note about them.
"""

import pytest
from playwright.sync_api import expect

from tests.support.lab import ARTIFACTS, PATIENT, open_notebook, run_all, wait_for_file, write_notebook

pytestmark = pytest.mark.browser

SETUP = """
import json
import notebook_tools as nt
from notebook_tools import testing as t

@nt.tool
def drop_nulls(column: str) -> str:
    '''Drop rows whose `column` is null.

    Args:
        column: Name of the column.
    '''
    return "dropped"

@nt.tool(mode="manual")
def fill_gaps(column: str = "price") -> str:
    '''Fill the gaps of a column by hand.

    Args:
        column: Name of the column.
    '''
    return "filled"

@nt.tool(mode="both")
def plot(column: str = "price") -> str:
    '''Plot a column.

    Args:
        column: Name of the column.
    '''
    return "plotted"

@nt.tool(mode="manual")
def refresh() -> str:
    '''Refresh the working data.'''
    return "refreshed"

def last_request(body):
    json.dump(body, open("request.json", "w"))
    return t.reply("Noted.")

cleaning = nt.Plugin(
    "cleaning", "Clean a DataFrame", tools=[drop_nulls, fill_gaps],
    skills=[nt.Skill("quick_clean", "Drop nulls, fast", tools=["drop_nulls"])],
)
plotting = nt.Plugin("plotting", "Plot columns", tools=[plot])
script = t.ScriptedTransport(
    t.turn("Let me open the cleaning tools.", t.tool_use("cleaning", {}, id="x_clean")),
    t.reply("Cleaned."),
    last_request,
)
chat = nt.Chat(nt.Agent(client=script.client(), tools=[refresh], plugins=[cleaning, plotting]))
chat
"""

ACTIVE_LABEL = (
    "() => document.activeElement?.getAttribute('aria-label') ?? document.activeElement?.textContent"
)


@pytest.fixture
def page(browser):
    page = browser.new_page(viewport={"width": 1100, "height": 900})
    yield page
    page.close()


def test_plugins_in_the_chat_and_its_tools_menu(page, lab):
    (lab.root / "request.json").unlink(missing_ok=True)
    write_notebook(lab.root / "plugins.ipynb", [SETUP, "await chat.send('clean the data')"])
    open_notebook(page, lab, "plugins.ipynb")
    run_all(page)
    chat = page.locator(".nt-chat")

    # the model's container call is a one-line event row, never a tool card
    chat.locator(".nt-assistant", has_text="Cleaned.").wait_for(timeout=PATIENT)
    row = chat.locator(".nt-event")
    # (a view that started listening mid-turn gets the earlier row in its snapshot, after the reply)
    expect(row).to_have_text(["cleaning expanded · 1 tool: drop_nulls"], timeout=PATIENT)
    assert chat.locator(".nt-tool").count() == 0
    assert chat.locator('[data-tool-use-id="x_clean"]').count() == 0

    # the Tools menu, opened by keyboard, groups the by-hand tools under their plugins
    tools = chat.get_by_role("button", name="Tools")
    page.wait_for_function("() => !document.querySelector('.nt-chat .nt-stop').matches(':enabled')")
    tools.focus()
    page.keyboard.press("Enter")
    menu = chat.locator(".nt-tools-panel")
    cleaning = menu.locator('section[data-plugin="cleaning"]')
    plotting = menu.locator('section[data-plugin="plotting"]')
    assert cleaning.locator(".nt-plugin-state").text_content() == "expanded · 2 tools"
    assert "Skills: quick_clean" in cleaning.text_content()
    assert cleaning.locator(".nt-tool-choice").all_text_contents() == ["fill_gaps"]
    assert plotting.locator(".nt-plugin-state").text_content() == "collapsed · 1 tool"
    assert plotting.locator(".nt-tool-choice").all_text_contents() == ["plot"]
    assert menu.locator(".nt-tool-choice").last.text_content() == "refresh"  # in no plugin: last, as before
    # focus went into the menu, on its first control: Enter collapses cleaning, and focus stays there
    assert page.evaluate(ACTIVE_LABEL) == "Collapse cleaning"
    page.keyboard.press("Enter")
    cleaning.locator(".nt-plugin-state", has_text="collapsed").wait_for(timeout=PATIENT)
    assert page.evaluate(ACTIVE_LABEL) == "Expand cleaning"
    # a click expands plotting
    plotting.get_by_role("button", name="Expand plotting").click()
    plotting.locator(".nt-plugin-state", has_text="expanded").wait_for(timeout=PATIENT)
    assert row.all_text_contents() == [
        "cleaning expanded · 1 tool: drop_nulls",
        "You collapsed cleaning",
        "You expanded plotting",
    ]
    ARTIFACTS.mkdir(exist_ok=True)  # a look at the menu and the event rows (git-ignored)
    chat.screenshot(path=ARTIFACTS / "plugins-menu.png")
    page.keyboard.press("Escape")
    assert menu.is_hidden()

    # the next request carries the changed tools, and the model is told with the person's message
    composer = chat.get_by_label("Message", exact=True)
    composer.fill("and now?")
    composer.press("Enter")
    chat.locator(".nt-assistant", has_text="Noted.").wait_for(timeout=PATIENT)
    body = wait_for_file(lab.root / "request.json")
    assert [tool["name"] for tool in body["tools"]] == ["cleaning", "quick_clean", "plot"]
    texts = [block["text"] for block in body["messages"][-1]["content"]]
    assert texts[-1] == "and now?"
    notes = texts[0].split("\n")
    assert notes[0].startswith("[The user collapsed the plugin cleaning")
    assert notes[1].startswith("[The user expanded the plugin plotting. Available functions: plot.")
    # the person's bubble is what they typed, not the notes
    assert chat.locator(".nt-user").all_text_contents() == ["clean the data", "and now?"]
