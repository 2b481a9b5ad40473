"""Layout and uploads as a person meets them in real JupyterLab (issue 26, items 8 and 11).

One JupyterLab serves the module; each test opens its own notebook with one chat on a scripted model.
A tool card's header says what the call does in a line (`delete_rows · table: sales, n_rows: 12`), its
body holds the full arguments; a DataFrame result scrolls in one container, not inside another; opening
the edit form does not raise the "New messages" pill (new items below the fold do); one click on the remove
button of a just-added list item removes it; optional fields the person left show "not set"; and an upload the
kernel refuses (a file named `.csv`) leaves the chooser usable, so `prices.csv` can be sent next, and
only the accepted file is in `chat.files`, with nothing left on disk from the refused one.
"""

import json

import pytest

from tests.support.lab import PATIENT, open_notebook, run_all, wait_for_file, write_notebook

pytestmark = pytest.mark.browser

TOOLS = """
import json
import pandas as pd
import notebook_tools as nt
from notebook_tools import testing as t

def record(**arguments):
    json.dump(arguments, open("deleted.json", "w"))
    return "deleted"

delete_rows = nt.tool(record, name="delete_rows", description="Delete rows of a table.", needs_approval=True,
    input_schema={"type": "object", "properties": {
        "table": {"type": "string"}, "n_rows": {"type": "integer"},
        "tags": {"type": "array", "items": {"type": "string"}},
        "keep_ids": {"type": "array", "items": {"type": "integer"}, "default": []},
        "dry_run": {"type": "boolean"},
    }, "required": ["table", "n_rows"]})

@nt.tool
def load_sales() -> object:
    '''The sales table.'''
    frame = pd.DataFrame({"order": range(200), "region": [["north", "south"][i % 2] for i in range(200)]})
    for q in range(12):  # wider than the chat
        frame[f"quarterly_price_{q:02d}"] = [round(1.5 * i + q, 2) for i in range(200)]
    return frame

intro = "\\n\\n".join(f"Line {i} of the plan: look at the sales table first." for i in range(14))
script = t.ScriptedTransport(
    t.turn(intro, t.tool_use("load_sales", {}, id="l_load")),
    t.turn("Now the cleanup.", t.tool_use("delete_rows", {"table": "sales", "n_rows": 12}, id="l_delete")),
    t.reply("\\n\\n".join(f"Done, paragraph {i}." for i in range(12))),
)
chat = nt.Chat(nt.Agent(client=script.client(), tools=[load_sales, delete_rows]))
chat
"""

UPLOAD = """
import json, os, pathlib
import notebook_tools as nt
from notebook_tools import testing as t

UPLOADS = pathlib.Path("uploads")

def finish(request):
    state = {"files": sorted(pathlib.Path(p).name for p in chat.files),
             "on_disk": sorted(os.listdir(UPLOADS)), "answers": t.answers_in(request)}
    json.dump(state, open("files.json", "w"))
    return t.reply("Thanks, I have the price list.")

script = t.ScriptedTransport(
    t.turn("I need the prices.", t.tool_use("pick_file", {"prompt": "Upload the price list", "accept": ".csv"}, id="u_file")),
    finish,
)
chat = nt.Chat(nt.Agent(client=script.client(), frontend_tools=[nt.pick_file]), upload_dir=UPLOADS)
chat
"""

# Scroll containers from a node up to the page: elements whose overflow lets them scroll and whose
# content is larger than their box, with the axes they scroll on.
SCROLLERS = """
(node) => {
  const found = [];
  for (let el = node; el; el = el.parentElement) {
    const style = getComputedStyle(el);
    const y = /(auto|scroll)/.test(style.overflowY) && el.scrollHeight > el.clientHeight + 1;
    const x = /(auto|scroll)/.test(style.overflowX) && el.scrollWidth > el.clientWidth + 1;
    if (y || x) found.push({ name: String(el.className).split(' ')[0] || el.tagName, y, x });
  }
  return found;
}
"""


# What the log holds, item by item, for a failure's message.
LOG_ITEMS = """
(log) => Array.from(log.children, (item) => `${item.className} ${item.dataset.toolUseId ?? ""} ${
  item.textContent.slice(0, 50)}`).join("\\n") + `\\nfocus: ${document.activeElement?.className}`
"""


@pytest.fixture
def page(browser):
    page = browser.new_page(viewport={"width": 900, "height": 1000})
    yield page
    page.close()


def pill(chat):
    return chat.locator(".nt-new-pill")


def test_tool_cards_tables_forms_and_the_pill(page, lab):
    write_notebook(lab.root / "layout2.ipynb", [TOOLS])
    open_notebook(page, lab, "layout2.ipynb")
    run_all(page)
    chat = page.locator(".nt-chat")
    box = chat.get_by_label("Message", exact=True)
    box.fill("Clean the sales table")
    box.press("Enter")
    # The prompts trait and the items are separate messages, in either order: until both came, the
    # card waits below the log. The test goes on once the card is in its call's card, in the log.
    log = chat.locator(".nt-log")
    approval = log.locator('.nt-tool section.nt-prompt.nt-pending[data-tool-use-id="l_delete"]')
    approval.wait_for(timeout=PATIENT)

    # the header says what the call does, in a line of text; the full arguments are in the body
    tool = chat.locator('.nt-tool[data-tool-use-id="l_delete"]')
    head = tool.locator(".nt-tool-head")
    assert " ".join(head.inner_text().split()) == "delete_rows · table: sales, n_rows: 12"
    assert head.locator(".nt-args-summary").evaluate("(el) => el.children.length") == 0  # text only
    plain = chat.locator('.nt-tool[data-tool-use-id="l_load"] .nt-tool-head')
    assert plain.locator(".nt-tool-name").inner_text() == "load_sales"
    assert plain.locator(".nt-args-summary").count() == 0 and "{" not in plain.inner_text()  # no "{}"
    # while the approval waits, its card shows the arguments (one copy on screen); after, the body does
    assert tool.locator(".nt-tool-args").count() == 0
    assert "sales" in approval.locator(".nt-approval-args").inner_text()

    # a DataFrame scrolls in one container inside the log, not in boxes inside boxes
    cell = chat.locator('.nt-tool[data-tool-use-id="l_load"] td').first
    scrollers = cell.evaluate(SCROLLERS)
    vertical = [s["name"] for s in scrollers if s["y"]]
    assert vertical[:1] == ["nt-log"] and "nt-table-scroll" not in vertical, scrollers  # rows: the log's
    assert [s["name"] for s in scrollers if s["x"]] == ["nt-table-scroll"], scrollers  # wide: its own box
    table = chat.locator('.nt-tool[data-tool-use-id="l_load"] .nt-table-view')
    assert table.get_by_role("button", name="Next page").is_visible()  # the pager is above the rows

    # the log follows to the approval card; opening its form (focus moves into it) is no news
    page.wait_for_function(
        "(log) => log.scrollHeight - log.clientHeight - log.scrollTop < 20", arg=log.element_handle()
    )
    approval.get_by_role("button", name="Edit arguments").click()
    form = approval.locator(".nt-form")
    form.wait_for()
    page.wait_for_timeout(300)  # the observer reports on the next task: give it the chance to be wrong
    assert pill(chat).is_hidden(), log.evaluate(LOG_ITEMS)

    # a list item just added is removed by one click on its remove button (an empty number is not yet an error)
    ids = approval.locator("[aria-labelledby='nt-edit-l_delete-keep_ids-label']")
    ids.get_by_role("button", name="Add an item to keep_ids").click()
    item = ids.locator(".nt-form-list .nt-form-row")
    assert item.count() == 1
    remove = ids.get_by_role("button", name="Remove item from keep_ids")
    before = remove.bounding_box()
    page.mouse.move(before["x"] + before["width"] / 2, before["y"] + before["height"] / 2)
    page.mouse.down()  # focus leaves the new, untouched item: no message for it, nothing moves
    page.wait_for_timeout(200)  # what the focus change draws is drawn by now
    assert all(text == "" for text in ids.locator(".nt-field-error").all_inner_texts())
    assert remove.bounding_box() == before
    page.mouse.up()
    assert item.count() == 0
    assert pill(chat).is_hidden()
    tags = approval.locator("[aria-labelledby='nt-edit-l_delete-tags-label']")
    assert tags.locator(".nt-list-state-text").inner_text().startswith("Not set")
    tags.get_by_role("button", name="Add an item to tags").click()
    tags.get_by_role("button", name="Remove item from tags").click()

    # optional fields the person has not set say so; what is shown is what is sent
    dry_run = approval.locator("#nt-edit-l_delete-dry_run")
    assert dry_run.evaluate("(el) => el.tagName") == "SELECT"
    assert dry_run.locator("option:checked").inner_text() == "not set"
    dry_run.select_option(label="false")
    state = tags.locator(".nt-list-state-text")
    assert state.inner_text().startswith("Empty list")  # added and removed: the person made it []

    # new items below the fold while the person reads further up: now the pill shows
    log.evaluate("(el) => { el.scrollTop = 0; el.dispatchEvent(new Event('scroll')); }")
    approval.get_by_role("button", name="Approve with these arguments").evaluate("(el) => el.click()")
    chat.locator(".nt-assistant", has_text="Done, paragraph 11.").wait_for(timeout=PATIENT)
    pill(chat).wait_for(state="visible", timeout=PATIENT)
    assert wait_for_file(lab.root / "deleted.json") == {
        "table": "sales",
        "n_rows": 12,
        "tags": [],
        "keep_ids": [],
        "dry_run": False,
    }
    pill(chat).click()
    assert pill(chat).is_hidden()
    body_args = tool.locator(".nt-tool-args")
    body_args.locator("summary").click()
    shown = json.loads(body_args.locator("pre").inner_text())
    assert shown == {"table": "sales", "n_rows": 12, "tags": [], "keep_ids": [], "dry_run": False}  # as run


def test_a_refused_upload_can_be_followed_by_a_good_one(page, lab, tmp_path):
    bad = tmp_path / "bad" / ".csv"
    bad.parent.mkdir()
    bad.write_text("sku,price\nA1,1.50\n")
    good = tmp_path / "good" / "prices.csv"
    good.parent.mkdir()
    good.write_text("sku,price\n" + "".join(f"A{i},{i}.50\n" for i in range(20)))
    write_notebook(lab.root / "upload.ipynb", [UPLOAD, "await chat.send('Here are the prices')"])
    open_notebook(page, lab, "upload.ipynb")
    run_all(page)
    card = page.locator('section.nt-prompt.nt-pending[data-tool-use-id="u_file"]')
    card.wait_for(timeout=PATIENT)
    chooser = card.locator("input[type=file]")
    upload = card.get_by_role("button", name="Upload", exact=True)

    chooser.set_input_files(str(bad))
    upload.click()
    refusal = card.get_by_role("alert").filter(has_text="no name before")
    refusal.wait_for(timeout=PATIENT)
    assert "csv is not an accepted type" not in refusal.inner_text()  # words, not the kernel's check
    assert chooser.is_enabled() and upload.is_enabled()

    chooser.set_input_files(str(good))
    upload.click()
    page.locator(".nt-assistant", has_text="Thanks, I have the price list.").wait_for(timeout=PATIENT)
    state = wait_for_file(lab.root / "files.json")
    assert state["files"] == ["prices.csv"]
    assert state["on_disk"] == ["prices.csv"]  # nothing left of the refused file
    assert json.loads(state["answers"]["pick_file"][0]["text"])[0]["name"] == "prices.csv"
