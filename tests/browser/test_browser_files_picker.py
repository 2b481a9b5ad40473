"""The file prompt's "pick a file the kernel can already see", as a person uses it in JupyterLab.

The notebook sits in a folder of its own beside a CSV (and files the filter or the rules leave out);
the person opens the picker with "Browse working directory", sees the CSV, picks it, and the waiting
cell gets the answer. One JupyterLab serves the module; the model is scripted.
"""

import os

import pytest

from tests.support.lab import PATIENT, open_notebook, run_all, wait_for_file, write_notebook

pytestmark = pytest.mark.browser
HOSTILE = "<img src=x onerror=alert(1)>"

SETUP = """
import json, pathlib
import notebook_tools as nt
from notebook_tools import testing as t

script = t.ScriptedTransport(t.turn(
    "Two files, please.",
    t.tool_use("pick_file", {"prompt": "The price list", "accept": ".csv"}, id="f_csv"),
    t.tool_use("pick_file", {"prompt": "A picture", "accept": "image/*"}, id="f_image"),
    t.tool_use("pick_file", {"prompt": "A spreadsheet export", "accept": "text/csv"}, id="f_mime"),
), t.reply("Thanks."))
chat = nt.Chat(nt.Agent(client=script.client(), frontend_tools=[nt.pick_file]))
chat
"""
SEND = """
result = await chat.send("Look at my data")
pathlib.Path("picked.json").write_text(json.dumps(sorted(pathlib.Path(p).name for p in chat.files)))
"""


@pytest.fixture
def page(browser):
    page = browser.new_page(viewport={"width": 1100, "height": 900})
    yield page
    page.close()


def card(page, tool_use_id):
    return page.locator(f'section.nt-prompt[data-tool-use-id="{tool_use_id}"]')


def shown_files(picker):
    return picker.locator(".nt-entry.nt-file").evaluate_all(
        "(rows) => rows.map((row) => row.firstChild.textContent)"
    )


def test_a_csv_beside_the_notebook_is_listed_and_picking_it_answers(page, lab):
    project = lab.root / "project"
    (project / "data").mkdir(parents=True)
    (project / "data" / "readme.md").write_text("not a table")
    (project / "prices.csv").write_text("item,price\napple,1\n")
    (project / "Q3 EXPORT.CSV").write_text("a,b\n1,2\n")
    (project / "notes.txt").write_text("not a table")
    (project / "swatch.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    (project / ".hidden.csv").write_text("x\n")
    (project / f"{HOSTILE}.csv").write_text("x\n")  # a name, shown as text, never as markup
    (lab.root / "outside.csv").write_text("secret\n")
    os.symlink(lab.root / "outside.csv", project / "escape.csv")  # a link out of the folder
    write_notebook(project / "files.ipynb", [SETUP, SEND])
    open_notebook(page, lab, "project/files.ipynb")
    run_all(page)

    picker = card(page, "f_csv")
    picker.get_by_role("button", name="Browse working directory").click()
    # the button opens the list itself, and says which folder and which filter it shows
    picker.locator(".nt-entry.nt-file").first.wait_for(timeout=PATIENT)
    assert picker.locator("details.nt-browse").evaluate("(el) => el.open")
    assert shown_files(picker) == [f"{HOSTILE}.csv", "prices.csv", "Q3 EXPORT.CSV"]
    assert picker.locator(".nt-entry img").count() == 0
    assert picker.locator(".nt-entry.nt-dir", has_text="data/").count() == 1
    where = picker.locator(".nt-where").inner_text()
    assert str(project) in where and ".csv" in where
    assert "3 other files" in picker.locator(".nt-empty").inner_text()  # notes.txt, swatch.png, files.ipynb

    # a folder with nothing that matches says which folder and which filter
    picker.locator(".nt-entry.nt-dir", has_text="data/").click()
    empty = picker.locator(".nt-empty")
    empty.filter(has_text="No .csv file").wait_for()
    assert f"{project}{os.sep}data" in empty.inner_text()
    # "Browse working directory" goes back to the working directory, visibly
    picker.get_by_role("button", name="Browse working directory").click()
    picker.locator(".nt-entry.nt-file", has_text="prices.csv").click()
    picker.get_by_role("button", name="Use selected").click()
    picker.locator(".nt-answered").wait_for(timeout=PATIENT)

    # a MIME filter matches by the file's type, which the kernel knows from its name
    image = card(page, "f_image")
    image.get_by_role("button", name="Browse working directory").click()
    image.locator(".nt-entry.nt-file").first.wait_for(timeout=PATIENT)
    assert shown_files(image) == ["swatch.png"]
    image.locator(".nt-entry.nt-file").first.dblclick()
    image.locator(".nt-answered").wait_for(timeout=PATIENT)

    mime = card(page, "f_mime")
    mime.locator("details.nt-browse > summary").click()  # opening the fold lists too
    mime.locator(".nt-entry.nt-file").first.wait_for(timeout=PATIENT)
    assert shown_files(mime) == [f"{HOSTILE}.csv", "prices.csv", "Q3 EXPORT.CSV"]
    mime.locator(".nt-entry.nt-file", has_text="Q3 EXPORT.CSV").click()
    mime.get_by_role("button", name="Use selected").click()

    assert wait_for_file(project / "picked.json", timeout=120) == [
        "Q3 EXPORT.CSV",
        "prices.csv",
        "swatch.png",
    ]
