"""A person reloads the page while prompts wait, with the shell busy in `await chat.send(...)`.

What broke before: a reloaded page asks the kernel `kernel_info` and, for a notebook that holds saved
widget state, `comm_info` before it draws any widget; both queue behind the awaiting cell, so the
page showed "Loading widget..." and the kernel as "Unknown" until someone interrupted the kernel.
JupyterLab saves widget state into the notebook when its "Save widget state automatically" setting
is on, so these tests turn it on, as a person who keeps widgets in saved notebooks does.
"""

import json
import time

import pytest

from tests.support.lab import (
    KERNEL,
    PATIENT,
    command,
    open_notebook,
    run_all,
    save_widget_state,
    wait_for_file,
    write_notebook,
)

pytestmark = pytest.mark.browser

QUICKSTART = json.loads(
    (
        __import__("pathlib").Path(__file__).resolve().parents[2] / "notebooks" / "01_quickstart.ipynb"
    ).read_text()
)
BACK_WITHIN_MS = 10_000


@pytest.fixture(scope="module")
def saving_lab(lab):
    """The module's JupyterLab with "Save widget state automatically" on (read when a page loads)."""
    save_widget_state(lab)
    return lab


def save_and_reload(page):
    command(page, "docmanager:save")
    page.wait_for_function(
        "() => !window.jupyterapp.shell.currentWidget.context.model.dirty", timeout=PATIENT
    )
    page.reload()
    started = time.monotonic()
    page.wait_for_function(
        "() => window.jupyterapp && window.jupyterapp.shell.currentWidget", timeout=PATIENT
    )
    return started


def prompt(page, tool_use_id):
    return page.locator(f'section.nt-prompt[data-tool-use-id="{tool_use_id}"]')


def test_the_quickstart_reloaded_mid_prompt_shows_every_prompt_and_the_turn_finishes(
    browser, saving_lab, tmp_path
):
    cells = ["".join(cell["source"]) for cell in QUICKSTART["cells"] if cell["cell_type"] == "code"]
    run_at = next(i for i, source in enumerate(cells) if "await chat.send(" in source)
    cells.insert(run_at + 1, "import json; json.dump({'text': result.text}, open('quickstart.json', 'w'))")
    write_notebook(saving_lab.root / "quickstart.ipynb", cells)
    page = browser.new_page(viewport={"width": 1100, "height": 1300})
    open_notebook(page, saving_lab, "quickstart.ipynb")
    run_all(page)
    confirm = page.locator("section.nt-prompt.nt-pending", has_text="Shall I clean the sales data?")
    confirm.get_by_role("button", name="Go ahead").click(timeout=PATIENT)
    page.locator("section.nt-prompt.nt-pending", has_text="Which region first?").wait_for()

    started = save_and_reload(page)
    assert "application/vnd.jupyter.widget-state+json" in (saving_lab.root / "quickstart.ipynb").read_text()
    select = page.locator("section.nt-prompt.nt-pending", has_text="Which region first?")
    select.wait_for(timeout=BACK_WITHIN_MS)
    text = page.locator("section.nt-prompt.nt-pending", has_text="Name for the report?")
    upload = page.locator("section.nt-prompt.nt-pending", has_text="Upload the sales CSV")
    text.wait_for(timeout=BACK_WITHIN_MS)
    upload.wait_for(timeout=BACK_WITHIN_MS)
    back_after = time.monotonic() - started
    # the answered prompt is back as answered, and the kernel's status is known again, not "Unknown"
    # (JupyterLab then shows the status of the last request any subshell answered: often "idle")
    assert (
        "Go ahead"
        in page.locator("section.nt-prompt", has_text="Shall I clean").locator(".nt-answered").inner_text()
    )
    page.wait_for_function(f"() => ['busy', 'idle'].includes({KERNEL}?.status)", timeout=BACK_WITHIN_MS)
    assert page.locator(".jp-OutputArea-output", has_text="Loading widget...").count() == 0

    select.get_by_text("south").click()
    select.get_by_role("button", name="Submit").click()
    box = text.get_by_role("textbox")
    box.fill("weekly-south")
    box.press("Enter")
    csv = tmp_path / "sales.csv"
    csv.write_text("region,price\nnorth,12.5\nsouth,9.0\n")
    upload.locator("input[type=file]").set_input_files(str(csv))
    upload.get_by_role("button", name="Upload", exact=True).click()
    result = wait_for_file(saving_lab.root / "quickstart.json")
    assert "south" in result["text"] and "weekly-south" in result["text"]
    page.wait_for_function(f"() => {KERNEL}?.status === 'idle'", timeout=PATIENT)
    print(f"quickstart: every prompt back {back_after:.1f} s after the reload")
    page.close()


CHATS = 25
MAKE = """
import json
import notebook_tools as nt
from notebook_tools import testing as t

def make(i):
    script = t.ScriptedTransport(
        t.turn(f"Question {i}", t.tool_use("user_confirm", {"message": f"Go on with {i}?", "confirm_label": "Go"}, id=f"c{i}")),
        t.reply(f"done {i}"),
    )
    return nt.Chat(nt.Agent(client=script.client(), frontend_tools=[nt.user_confirm]))
"""


def test_twenty_five_waiting_chats_come_back_after_a_reload_and_each_answers(browser, saving_lab):
    cells = [MAKE]
    for i in range(CHATS - 1):
        cells.append(f"chat{i} = make({i}); task{i} = chat{i}.send_nowait('hi'); chat{i}")
    last = CHATS - 1
    cells.append(f"chat{last} = make({last}); display(chat{last}); r = await chat{last}.send('hi')")
    cells.append(
        "import asyncio; rest = await asyncio.gather("
        + ", ".join(f"task{i}" for i in range(CHATS - 1))
        + ")\n"
        "json.dump([x.text for x in rest] + [r.text], open('many.json', 'w'))"
    )
    write_notebook(saving_lab.root / "many.ipynb", cells)
    page = browser.new_page(viewport={"width": 1100, "height": 1300})
    open_notebook(page, saving_lab, "many.ipynb")
    run_all(page)
    page.wait_for_function(
        f"() => document.querySelectorAll('section.nt-prompt.nt-pending').length === {CHATS}", timeout=PATIENT
    )

    started = save_and_reload(page)
    page.wait_for_function(
        f"() => document.querySelectorAll('section.nt-prompt.nt-pending').length === {CHATS}",
        timeout=BACK_WITHIN_MS,
    )
    back_after = time.monotonic() - started
    assert page.locator(".jp-OutputArea-output", has_text="Loading widget...").count() == 0
    assert page.locator(".jp-OutputArea-output", has_text="model not found").count() == 0
    for i in range(CHATS):
        prompt(page, f"c{i}").get_by_role("button", name="Go").click()
    texts = wait_for_file(saving_lab.root / "many.json")
    assert texts == [f"done {i}" for i in range(CHATS)]
    print(f"{CHATS} chats: every prompt back {back_after:.1f} s after the reload")
    page.close()
