"""The kernel toolset in real JupyterLab and Chromium: approve, edit, deny, consent with a masked
column, Stop during a long run, Undo from a run's card, and a reload while a consent card waits.

The model is scripted (no key, no network); the data is the real Palmer penguins table. The page
is driven as a person does: buttons, the edit form, the consent form's choices.
"""

import pytest

from tests.support.lab import PATIENT, open_notebook, run_all, wait_for_file, write_notebook

pytestmark = pytest.mark.browser

SETUP = """
import asyncio, json, pathlib, time
import palmerpenguins
import notebook_tools as nt
from notebook_tools import testing as t

df = palmerpenguins.load_penguins()
script = t.ScriptedTransport(
    t.turn(t.tool_use("run_code", {"code": "df = df.dropna()", "purpose": "drop gaps"}, id="k_edit")),
    t.turn(t.tool_use("run_code", {"code": "df_clean[['species', 'island']].head(3)", "purpose": "peek"}, id="k_peek")),
    t.turn(t.tool_use("run_code", {"code": "import os\\nos.remove('penguins.csv')", "purpose": "tidy"}, id="k_deny")),
    t.reply("Cleaned."),
    t.turn(t.tool_use("run_code", {"code": "import time\\ntime.sleep(300)", "purpose": "wait"}, id="k_sleep")),
    t.reply("After the stop."),
)
kernel = nt.KernelTools()
agent = nt.Agent(client=script.client(), plugins=[kernel])
stops = []
agent.events.subscribe(lambda e: stops.append(time.perf_counter()) if e.type == "interrupt" else None)
chat = nt.Chat(agent)
chat
"""
FIRST = """
first = await chat.send("Clean df.")
results = {b["tool_use_id"]: b for m in script.requests[-1]["messages"] for b in (m["content"] if isinstance(m["content"], list) else []) if b.get("type") == "tool_result"}
pathlib.Path("first.json").write_text(json.dumps({
    "stop": first.stop_reason,
    "df": list(df.shape),
    "df_clean": list(df_clean.shape),
    "results": {k: v["content"] for k, v in results.items()},
    "ledger": [[e.call, e.how, e.masked] for e in kernel.ledger.entries],
}))
"""
SECOND = """
ended = []
task = chat.send_nowait("Wait a while.")
task.add_done_callback(lambda _: ended.append(time.perf_counter()))
"""
AFTER = """
while not task.done():
    await asyncio.sleep(0.05)
pathlib.Path("stopped.json").write_text(json.dumps({"stop": task.result().stop_reason, "took": kernel.ran[-1]["stop_took"], "turn": ended[0] - stops[-1]}))
while "df_clean" in globals():  # until the person's Undo on the first run's card
    await asyncio.sleep(0.05)
pathlib.Path("undone.json").write_text(json.dumps({"df": list(df.shape), "history": [c.id for c in kernel.checkpoints.history]}))
"""


def card(page, tool_use_id):
    return page.locator(f'section.nt-prompt[data-tool-use-id="{tool_use_id}"]')


def code_field(prompt, code):
    """The edit form's field that holds `code` (a textarea or a text input)."""
    for field in prompt.locator("textarea, input[type=text]").all():
        if field.input_value() == code:
            return field
    raise AssertionError(f"no field holds {code!r}")


def test_approve_edit_deny_consent_stop_and_undo_in_jupyterlab(browser, lab):
    root = lab.root
    write_notebook(root / "kernel_tools.ipynb", [SETUP, FIRST, SECOND, AFTER])
    page = browser.new_page(viewport={"width": 1100, "height": 1300})
    open_notebook(page, lab, "kernel_tools.ipynb")
    run_all(page)

    # 1. risky code (it reassigns df): the approval card says why; edited, it keeps the person's df
    edit = card(page, "k_edit")
    edit.get_by_role("button", name="Edit arguments").wait_for(timeout=PATIENT)
    assert "reassigns existing variable 'df'" in edit.inner_text()
    edit.get_by_role("button", name="Edit arguments").click()
    code_field(edit, "df = df.dropna()").fill("df_clean = df.dropna()")
    edit.get_by_role("button", name="Approve with these arguments").click()

    # 2. rows would go to Claude: the consent card shows them; sent with island masked
    consent = card(page, "consent_k_peek")
    consent.wait_for(timeout=PATIENT)
    assert "Adelie" in consent.inner_text() and "Torgersen" in consent.inner_text()
    consent.locator("select#nt-answer-consent_k_peek-send").select_option(
        label="Send it with the chosen columns masked"
    )
    columns = consent.get_by_role("group", name="Columns to mask")  # a checkbox per column
    columns.get_by_label("island", exact=True).check()
    consent.get_by_role("button", name="Submit").click()

    # 3. deleting a file: denied with a reason
    deny = card(page, "k_deny")
    deny.get_by_role("button", name="Deny").wait_for(timeout=PATIENT)
    assert "deletes files" in deny.inner_text()
    deny.get_by_label("Reason for denying").fill("keep the raw file")
    deny.get_by_role("button", name="Deny").click()

    first = wait_for_file(root / "first.json")
    assert first["stop"] == "end_turn" and first["df"] == [344, 8] and first["df_clean"] == [333, 8]
    assert (
        "it ran with" in first["results"]["k_edit"] and "df_clean = df.dropna()" in first["results"]["k_edit"]
    )
    peek = first["results"]["k_peek"]
    assert "Adelie" in peek and "Torgersen" not in peek and "Biscoe" not in peek
    assert first["results"]["k_deny"] == "The user denied this call. Reason: keep the raw file"
    assert ["k_peek", "approved_masked", ["island"]] in first["ledger"]

    # 4. Stop during a long run: it ends within a second, the next cell runs
    chat = page.locator(".nt-chat").first
    page.locator('[data-tool-use-id="k_sleep"]').first.wait_for(timeout=PATIENT)
    chat.get_by_role("button", name="Stop the agent").click()
    stopped = wait_for_file(root / "stopped.json")
    assert stopped["stop"] == "stopped" and stopped["took"] < 1.0, stopped  # the stop to the run's end

    # 5. Undo on the first run's card: df_clean (made by that run) is gone again
    run_card = page.locator('[data-tool-use-id="k_edit"] .nt-kernel-run').first
    run_card.get_by_role("button", name="Undo").click()
    undone = wait_for_file(root / "undone.json")
    assert undone == {"df": [344, 8], "history": []}


RELOAD_SETUP = """
import json, pathlib
import palmerpenguins
import notebook_tools as nt
from notebook_tools import testing as t

df = palmerpenguins.load_penguins()
script = t.ScriptedTransport(
    t.turn(t.tool_use("run_code", {"code": "print(df.head(3))", "purpose": "peek"}, id="k_reload")),
    t.reply("Noted."),
)
kernel = nt.KernelTools(approval="auto")
chat = nt.Chat(nt.Agent(client=script.client(), plugins=[kernel]))
chat
"""
RELOAD_RUN = """
result = await chat.send("Show me some rows.")
told = script.requests[-1]["messages"][-1]["content"][0]["content"]
pathlib.Path("reload.json").write_text(json.dumps({"told": told, "ledger": [e.how for e in kernel.ledger.entries]}))
"""


def test_a_consent_card_waits_through_a_reload_and_is_answered_after_it(browser, lab):
    from tests.support.lab import command

    root = lab.root
    write_notebook(root / "kernel_reload.ipynb", [RELOAD_SETUP, RELOAD_RUN])
    page = browser.new_page(viewport={"width": 1100, "height": 1100})
    open_notebook(page, lab, "kernel_reload.ipynb")
    run_all(page)
    card(page, "consent_k_reload").locator("button.nt-primary").wait_for(timeout=PATIENT)
    command(page, "docmanager:save")
    page.wait_for_function(
        "() => !window.jupyterapp.shell.currentWidget.context.model.dirty", timeout=PATIENT
    )
    page.reload()  # the cell still awaits the turn; the card must come back
    consent = card(page, "consent_k_reload")
    consent.locator("button.nt-primary").wait_for(timeout=PATIENT)
    assert "Adelie" in consent.inner_text()
    consent.locator("select#nt-answer-consent_k_reload-send").select_option(label="Send only aggregates")
    consent.get_by_role("button", name="Submit").click()
    done = wait_for_file(root / "reload.json")
    assert "Adelie" not in done["told"] and "withheld" in done["told"]
    assert done["ledger"] == ["withheld"]
