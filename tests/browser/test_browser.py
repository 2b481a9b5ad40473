"""Real JupyterLab in headless Chromium: a person clicks, types, picks and uploads; the loop finishes."""

import json

import pytest
from playwright.sync_api import expect

from tests.support.lab import (
    ARTIFACTS,
    PATIENT,
    command,
    open_notebook,
    run_all,
    wait_for_file,
    write_notebook,
)

pytestmark = pytest.mark.browser

SETUP = """
import json
import notebook_tools as nt
from notebook_tools import testing as t

script = t.ScriptedTransport(
    t.turn(
        "The **sales** table has 12 duplicate rows. A few questions:",
        t.tool_use("user_confirm", {"message": "Drop the 12 duplicate rows?", "confirm_label": "Drop", "deny_label": "Keep"}, id="b_confirm"),
        t.tool_use("ask_text", {"prompt": "Name of the cleaned table?", "placeholder": "e.g. sales_clean"}, id="b_text"),
        t.tool_use("select_option", {"prompt": "Columns to convert?", "options": ["price", "qty", "region"], "multiple": True}, id="b_select"),
        t.tool_use("pick_file", {"prompt": "Upload the price list", "accept": ".csv"}, id="b_file"),
    ),
    t.reply("Done: dropped the duplicates and converted the columns."),
)
agent = nt.Agent(client=script.client(), frontend_tools=[nt.user_confirm, nt.ask_text, nt.select_option, nt.pick_file])
chat = nt.Chat(agent, notice="Scripted model: no API key, answers come from a script.")
chat
"""
RUN = "result = await chat.send('Clean the sales table')"
REPORT = (
    "json.dump({'last': script.requests[-1]['messages'][-1], 'text': result.text}, open('result.json', 'w'))"
)


@pytest.fixture
def lab(lab):
    """The session's JupyterLab server, as fresh for each test here (`Lab.reset`)."""
    yield lab
    lab.reset()


def prompt(page, tool_use_id, view=0):
    return page.locator(f'section.nt-prompt[data-tool-use-id="{tool_use_id}"]').nth(view)


def answer_all(page, csv_path, skip_confirm=False):
    if not skip_confirm:
        prompt(page, "b_confirm").get_by_role("button", name="Drop").click()
    box = prompt(page, "b_text").get_by_role("textbox")
    box.fill("sales_clean")
    box.press("Enter")
    select = prompt(page, "b_select")
    select.get_by_label("price").check()
    select.get_by_label("region").check()
    select.get_by_role("button", name="Submit").click()
    upload = prompt(page, "b_file")
    upload.locator("input[type=file]").set_input_files(str(csv_path))
    upload.get_by_role("button", name="Upload", exact=True).click()


def check_result(result):
    blocks = {b["tool_use_id"]: b for b in result["last"]["content"]}
    assert blocks["b_confirm"]["content"] == "yes"
    assert blocks["b_text"]["content"] == "sales_clean"
    assert json.loads(blocks["b_select"]["content"]) == ["price", "region"]
    file_blocks = blocks["b_file"]["content"]
    assert json.loads(file_blocks[0]["text"])[0]["name"] == "prices.csv"
    assert "sku,price" in file_blocks[1]["text"]
    assert result["text"] == "Done: dropped the duplicates and converted the columns."


def _csv(root):
    path = root / "upload-src" / "prices.csv"
    path.parent.mkdir()
    path.write_text("sku,price\n" + "".join(f"A{i},{i}.50\n" for i in range(30)))
    return path


def test_a_person_answers_every_prompt_in_jupyterlab(browser, lab):
    write_notebook(lab.root / "chat.ipynb", [SETUP, "chat  # a second view of the same chat", RUN, REPORT])
    page = browser.new_page(viewport={"width": 1100, "height": 1300})
    open_notebook(page, lab, "chat.ipynb")
    run_all(page)
    page.wait_for_selector('section.nt-prompt.nt-pending[data-tool-use-id="b_file"]', timeout=PATIENT)
    # both views render; each gets the transcript in the snapshot that answers its hello, which can
    # land after the prompt cards (drawn from the synced state at once)
    expect(page.locator(".nt-chat")).to_have_count(2, timeout=PATIENT)
    # markdown from the model is rendered (and sanitized), the scripted notice is visible
    expect(page.locator(".nt-assistant strong", has_text="sales")).to_have_count(2, timeout=PATIENT)
    assert page.locator(".nt-scripted", has_text="Scripted model: no API key").first.is_visible()
    # the input box is disabled while prompts wait
    assert page.locator(".nt-compose").first.is_disabled()
    ARTIFACTS.mkdir(exist_ok=True)
    chat = page.locator(".nt-chat").first
    chat.screenshot(path=str(ARTIFACTS / "chat-light.png"))
    command(page, "apputils:change-theme", {"theme": "JupyterLab Dark"})
    page.wait_for_function("() => document.body.dataset.jpThemeLight === 'false'", timeout=PATIENT)
    page.wait_for_timeout(500)
    chat.screenshot(path=str(ARTIFACTS / "chat-dark.png"))
    command(page, "apputils:change-theme", {"theme": "JupyterLab Light"})

    answer_all(page, _csv(lab.root))
    check_result(wait_for_file(lab.root / "result.json"))
    # answered prompts stay rendered as answered, with the answer
    answered = prompt(page, "b_confirm")
    answered.locator(".nt-answered").wait_for()
    assert "Drop" in answered.inner_text()
    assert answered.get_by_role("button").count() == 0
    # the second view of the same chat stayed in sync
    assert "sales_clean" in prompt(page, "b_text", view=1).locator(".nt-answered").inner_text()
    page.locator(".nt-assistant", has_text="Done: dropped the duplicates").first.wait_for()
    chat.screenshot(path=str(ARTIFACTS / "chat-answered.png"))


def test_reload_while_a_prompt_is_pending_then_answer(browser, lab):
    write_notebook(lab.root / "reload.ipynb", [SETUP, RUN, REPORT])
    page = browser.new_page(viewport={"width": 1100, "height": 1300})
    open_notebook(page, lab, "reload.ipynb")
    run_all(page)
    prompt(page, "b_confirm").get_by_role("button", name="Drop").click()
    prompt(page, "b_confirm").locator(".nt-answered").wait_for()
    page.wait_for_selector('section.nt-prompt.nt-pending[data-tool-use-id="b_text"]')
    command(page, "docmanager:save")
    page.wait_for_function(
        "() => !window.jupyterapp.shell.currentWidget.context.model.dirty", timeout=PATIENT
    )

    page.reload()
    page.wait_for_function(
        "() => window.jupyterapp && window.jupyterapp.shell.currentWidget", timeout=PATIENT
    )
    # the widget re-renders from the live kernel: the answered prompt as answered, the rest pending
    prompt(page, "b_text").locator("input").wait_for(timeout=PATIENT)
    assert "Drop" in prompt(page, "b_confirm").locator(".nt-answered").inner_text()
    assert page.locator(".nt-assistant", has_text="12 duplicate rows").count() == 1
    answer_all(page, _csv(lab.root), skip_confirm=True)
    check_result(wait_for_file(lab.root / "result.json"))


APPROVALS = """
import json
import notebook_tools as nt
from notebook_tools import testing as t

ran = []

@nt.tool(needs_approval=True)
def delete_rows(table: str, n_rows: int) -> str:
    '''Delete rows from a table.

    Args:
        table: The table.
        n_rows: How many rows to delete.
    '''
    ran.append((table, n_rows))
    return f"deleted {n_rows} rows from {table}"

script = t.ScriptedTransport(
    t.turn("Two deletions need your approval.",
           t.tool_use("delete_rows", {"table": "sales", "n_rows": 5000}, id="d_deny"),
           t.tool_use("delete_rows", {"table": "staging", "n_rows": 900}, id="d_edit")),
    t.reply("Understood."),
)
agent = nt.Agent(client=script.client(), tools=[delete_rows])
chat = nt.Chat(agent)
chat
"""
APPROVALS_REPORT = (
    "json.dump({'last': script.requests[-1]['messages'][-1], 'ran': ran}, open('result.json', 'w'))"
)


def test_deny_one_call_and_edit_then_approve_another(browser, lab):
    write_notebook(lab.root / "approvals.ipynb", [APPROVALS, RUN, APPROVALS_REPORT])
    page = browser.new_page(viewport={"width": 1100, "height": 1300})
    open_notebook(page, lab, "approvals.ipynb")
    run_all(page)
    deny_card = prompt(page, "d_deny")
    deny_card.get_by_role("button", name="Approve", exact=True).wait_for(timeout=PATIENT)
    deny_card.get_by_label("Reason for denying").fill("never on the sales table")
    deny_card.get_by_role("button", name="Deny").click()
    edit_card = prompt(page, "d_edit")
    edit_card.get_by_role("button", name="Edit arguments").click()
    field = edit_card.locator("input#nt-edit-d_edit-n_rows")
    assert field.input_value() == "900"
    field.fill("90")
    ARTIFACTS.mkdir(exist_ok=True)
    page.locator(".nt-chat").first.screenshot(path=str(ARTIFACTS / "approvals.png"))
    edit_card.get_by_role("button", name="Approve with these arguments").click()
    result = wait_for_file(lab.root / "result.json")
    blocks = {b["tool_use_id"]: b for b in result["last"]["content"]}
    assert (
        blocks["d_deny"]["is_error"]
        and blocks["d_deny"]["content"] == "The user denied this call. Reason: never on the sales table"
    )
    assert 'it ran with {"table": "staging", "n_rows": 90}' in blocks["d_edit"]["content"]
    assert result["ran"] == [["staging", 90]]
    assert "Denied: never on the sales table" in prompt(page, "d_deny").inner_text()


MANUAL = """
import notebook_tools as nt
from notebook_tools import testing as t

@nt.tool(mode="both")
def refresh(source: str = "disk", rows: int = 10) -> str:
    '''Refresh the working data.

    Args:
        source: Where to read from.
        rows: How many rows to load.
    '''
    return f"refreshed {rows} rows from {source}"

chat = nt.Chat(nt.Agent(client=t.ScriptedTransport().client(), tools=[refresh]))
chat
"""


def test_tools_menu_and_slash_commands(browser, lab):
    write_notebook(lab.root / "manual.ipynb", [MANUAL])
    page = browser.new_page(viewport={"width": 1100, "height": 1000})
    open_notebook(page, lab, "manual.ipynb")
    run_all(page)
    box = page.get_by_label("Message", exact=True)
    box.wait_for(timeout=PATIENT)
    box.fill("/help")
    box.press("Enter")
    page.locator(".nt-notice", has_text="/tool NAME --arg value").wait_for()
    box.fill('/refresh --source "s3 bucket" --rows 25')
    box.press("Enter")
    page.locator(".nt-tool", has_text="refreshed 25 rows from s3 bucket").wait_for(timeout=PATIENT)
    box.fill("/refresh --rows many")
    box.press("Enter")
    page.locator(".nt-notice", has_text='rows: "many" is not a whole number').wait_for()
    page.get_by_role("button", name="Tools").click()
    page.locator(".nt-tool-choice", has_text="refresh").click()
    page.locator("#nt-run-refresh-source").fill("warehouse")
    page.get_by_role("button", name="Run refresh").click()
    page.locator(".nt-tool", has_text="refreshed 10 rows from warehouse").wait_for(timeout=PATIENT)


def test_ask_prompts_stay_shown_as_answered_after_a_reload(browser, lab):
    """`nt.ask` cards have no tool card: once answered they live on a transcript item of their own."""
    cells = [
        "import json\nimport notebook_tools as nt",
        "ok = await nt.ask.confirm('Overwrite report.csv?', confirm_label='Overwrite')",
        "name = await nt.ask.text('Name of the backup?')",
        "json.dump([ok, name], open('ask.json', 'w'))",
    ]
    write_notebook(lab.root / "ask.ipynb", cells)
    page = browser.new_page(viewport={"width": 1100, "height": 1000})
    open_notebook(page, lab, "ask.ipynb")
    run_all(page)
    card = page.locator("section.nt-prompt.nt-prompt-confirm")
    card.get_by_role("button", name="Overwrite").click(timeout=PATIENT)
    page.locator("section.nt-prompt.nt-prompt-text.nt-pending input").wait_for(timeout=PATIENT)
    assert "Overwrite" in card.locator(".nt-answered").inner_text()
    assert card.get_by_role("button").count() == 0
    command(page, "docmanager:save")
    page.wait_for_function(
        "() => !window.jupyterapp.shell.currentWidget.context.model.dirty", timeout=PATIENT
    )

    page.reload()
    page.wait_for_function(
        "() => window.jupyterapp && window.jupyterapp.shell.currentWidget", timeout=PATIENT
    )
    box = page.locator("section.nt-prompt.nt-prompt-text.nt-pending input")
    box.wait_for(timeout=PATIENT)
    # the answered card comes back from the kernel's transcript, not from saved widget state
    assert "Overwrite" in page.locator("section.nt-prompt.nt-prompt-confirm .nt-answered").inner_text()
    box.fill("report-old.csv")
    box.press("Enter")
    assert wait_for_file(lab.root / "ask.json") == [True, "report-old.csv"]
    page.locator("section.nt-prompt.nt-prompt-text .nt-answered", has_text="report-old.csv").wait_for()
