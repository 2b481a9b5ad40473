"""Focus and keys as a person uses them in real JupyterLab: prompts never take the focus from a cell
being typed in, Escape never answers a prompt, arrows move among a select card's options.

One JupyterLab server and one Chromium serve the module; each test opens its own notebook. The
model is scripted (`notebook_tools.testing`); no test calls the real API.
"""

import pytest

from tests.support.lab import PATIENT, open_notebook, run_all, wait_for_file, write_notebook

pytestmark = pytest.mark.browser


@pytest.fixture
def page(browser):
    page = browser.new_page(viewport={"width": 1100, "height": 900})
    yield page
    page.close()


def card(page, tool_use_id):
    return page.locator(f'section.nt-prompt[data-tool-use-id="{tool_use_id}"]')


PENDING = "section.nt-prompt.nt-pending"
CELLS = """() => window.jupyterapp.shell.currentWidget.content.widgets.map(
    (cell) => [cell.model.type, cell.model.sharedModel.getSource()])"""
FOCUS_CARD = "() => document.activeElement?.closest('section.nt-prompt')?.dataset.toolUseId ?? null"
IN_CELL = """() => {
    const cells = [...document.querySelectorAll('.jp-Notebook .jp-Cell')];
    return document.activeElement?.closest('.nt-chat') ? -1 : cells.indexOf(document.activeElement?.closest('.jp-Cell'));
}"""

# Prompts arrive one after another: each asks with a 2.5 s timeout, and when it times out the
# scripted model asks the next one (text, confirm, select in turn), so a new card opens every few
# seconds while the person types elsewhere.
ARRIVING = """
import notebook_tools as nt
from notebook_tools import testing as t

@nt.tool(executor="frontend", timeout=2.5, display={"prompt": "text"})
def quick_text(prompt: str, default: str = "") -> str:
    '''Ask for a piece of text.

    Args:
        prompt: What to ask for.
        default: Text the box starts with.
    '''

@nt.tool(executor="frontend", timeout=2.5, display={"prompt": "confirm"})
def quick_confirm(message: str) -> str:
    '''Ask a yes/no question.

    Args:
        message: The question.
    '''

@nt.tool(executor="frontend", timeout=2.5, display={"prompt": "select"})
def quick_select(prompt: str, options: list[str]) -> str:
    '''Ask to choose.

    Args:
        prompt: The choice.
        options: The options.
    '''

asks = [
    ("quick_text", {"prompt": "Name of the table?", "default": "sales"}),
    ("quick_confirm", {"message": "Drop the duplicates?"}),
    ("quick_select", {"prompt": "Which region?", "options": ["north", "south"]}),
]
steps = [t.turn(f"Question {i}.", t.tool_use(*asks[i % 3], id=f"arrive_{i}")) for i in range(24)]
script = t.ScriptedTransport(*steps, t.reply("Done asking."))
chat = nt.Chat(nt.Agent(client=script.client(), frontend_tools=[quick_text, quick_confirm, quick_select]))
chat
"""
# Every pending card seen while the person types, and every element that received focus.
WATCH = """() => {
    window.__seen = new Set();
    window.__focus = [];
    const look = () => document.querySelectorAll('.nt-chat:not(.nt-gone) section.nt-prompt.nt-pending')
        .forEach((el) => window.__seen.add(el.dataset.toolUseId));
    window.__watch = setInterval(look, 50);
    if (!window.__listening) document.addEventListener('focusin', (event) => window.__focus.push(
        (event.target.closest('section.nt-prompt')?.dataset.toolUseId ?? '') + ' ' + event.target.tagName
        + '.' + String(event.target.className).slice(0, 40)), true);
    window.__listening = true;
    look();
}"""
TYPED = (
    "# the quick brown fox jumps over the lazy dog while a bad mood dims all the amber bulbs "
    "and Mamma bakes a dozen damp buns by the yard mmm aaa bbb ddd yyy zzz "
) * 3


def test_prompts_arriving_after_restart_and_run_all_never_take_the_cell_being_typed_in(page, lab):
    write_notebook(lab.root / "arriving.ipynb", [ARRIVING, "await chat.send('Ask me things')", ""])
    open_notebook(page, lab, "arriving.ipynb")
    run_all(page)
    page.locator(f"{PENDING}").first.wait_for(timeout=PATIENT)

    # Restart & Run All with the chat showing, as from the Kernel menu (its dialog accepted)
    # (not awaited: the command resolves only when every cell has run)
    page.evaluate("() => { window.jupyterapp.commands.execute('notebook:restart-run-all'); }")
    page.locator(".jp-Dialog .jp-mod-accept").click()
    page.locator(".nt-gone-banner").wait_for(state="attached", timeout=PATIENT)
    page.locator(f".nt-chat:not(.nt-gone) {PENDING}").first.wait_for(timeout=PATIENT)

    # the person clicks into the empty third cell and types a long line, key by key
    editor = page.locator(".jp-Notebook .jp-Cell").nth(2).locator(".cm-content")
    editor.click()
    page.wait_for_function("() => window.jupyterapp.shell.currentWidget.content.mode === 'edit'")
    page.evaluate(WATCH)
    before = set(page.evaluate("() => [...window.__seen]"))
    page.keyboard.type(TYPED, delay=25)
    seen = set(page.evaluate("() => { clearInterval(window.__watch); return [...window.__seen]; }"))
    focus_log = page.evaluate("() => window.__focus")

    cells = page.evaluate(CELLS)
    assert len(cells) == 3, (len(cells), focus_log)  # no `a`/`b` inserted a cell, no `dd` deleted one
    assert [kind for kind, _ in cells] == ["code"] * 3
    assert cells[2][1] == TYPED, focus_log  # every keystroke landed in that cell, in order
    assert len(seen - before) >= 2, (before, seen)  # prompts kept arriving while the person typed
    assert focus_log == [], focus_log  # the editor kept the focus throughout, not even a blink
    assert page.evaluate(FOCUS_CARD) is None
    assert page.evaluate("() => window.jupyterapp.shell.currentWidget.content.activeCellIndex") == 2

    # Escape leaves edit mode: focus is on the cell, in command mode, and stays there while two
    # more prompts arrive; the next command-mode key is JupyterLab's (b: a new cell below)
    page.keyboard.press("Escape")
    page.wait_for_function("() => window.jupyterapp.shell.currentWidget.content.mode === 'command'")
    page.evaluate(WATCH)
    page.wait_for_function("() => window.__seen.size >= 3", timeout=PATIENT)
    focus_log = page.evaluate("() => { clearInterval(window.__watch); return window.__focus; }")
    assert focus_log == [], focus_log  # nothing took the focus, not even for a moment
    assert page.evaluate(IN_CELL) == 2
    page.keyboard.press("b")
    cells = page.evaluate(CELLS)
    assert [source for _, source in cells] == [ARRIVING, "await chat.send('Ask me things')", TYPED, ""]


ALL_KINDS = """
import json
import notebook_tools as nt
from notebook_tools import testing as t

script = t.ScriptedTransport(t.turn(
    "Four questions.",
    t.tool_use("user_confirm", {"message": "Drop the rows?", "confirm_label": "Drop"}, id="e_confirm"),
    t.tool_use("ask_text", {"prompt": "Name of the table?", "default": "sales"}, id="e_text"),
    t.tool_use("select_option", {"prompt": "Which region?", "options": ["north", "south", "east"]}, id="e_select"),
    t.tool_use("pick_file", {"prompt": "Upload the price list", "accept": ".csv"}, id="e_file"),
), t.reply("Thanks."))
chat = nt.Chat(nt.Agent(client=script.client(), frontend_tools=[nt.user_confirm, nt.ask_text, nt.select_option, nt.pick_file]))
chat
"""
WAIT_AND_REPORT = """
result = await chat.send('go')
with open('escape_acks.json', 'w') as f:
    json.dump({key: [ack.status, ack.output, ack.error_text] for key, ack in chat.acks.items()}, f)
"""
# What the page sends the kernel about a prompt: widget messages on the kernel's websocket that name one.
SPY = """(() => {
    window.__sent = [];
    const send = WebSocket.prototype.send;
    WebSocket.prototype.send = function (data) {
        const text = typeof data === 'string' ? data : new TextDecoder().decode(data);
        if (text.includes('"comm_msg"') && text.includes('tool_use_id')) window.__sent.push(text);
        return send.call(this, data);
    };
})();"""


def test_escape_never_answers_a_prompt(page, lab):
    (lab.root / "escape_acks.json").unlink(missing_ok=True)
    write_notebook(lab.root / "escape.ipynb", [ALL_KINDS, WAIT_AND_REPORT])
    page.add_init_script(SPY)
    open_notebook(page, lab, "escape.ipynb")
    run_all(page)
    card(page, "e_file").locator("input[type=file]").wait_for(state="attached", timeout=PATIENT)

    places = {
        "e_confirm": [None, "button >> nth=0"],
        "e_text": [None, "input.nt-input"],
        "e_select": [None, "input[type=radio] >> nth=1"],
        "e_file": [None, "button >> nth=0"],
    }
    for tool_use_id, targets in places.items():
        prompt = card(page, tool_use_id)
        for target in targets:
            if target is None:  # the card itself, as focus places it
                prompt.evaluate("(el) => { el.tabIndex = -1; el.focus(); }")
            else:
                prompt.locator(target).focus()
            assert page.evaluate(FOCUS_CARD) == tool_use_id
            page.keyboard.press("Escape")
    page.wait_for_timeout(500)  # an answer, had one been sent, would be on its way
    assert page.evaluate("() => window.__sent") == []
    assert page.locator(PENDING).count() == 4
    assert page.locator("section.nt-prompt:not(.nt-pending)").count() == 0

    # every prompt is still answerable after all those Escapes
    card(page, "e_confirm").get_by_role("button", name="Drop").click()
    text = card(page, "e_text").locator("input.nt-input")
    text.fill("sales_v2")
    text.press("Enter")
    select = card(page, "e_select")
    select.get_by_label("south").check()
    select.get_by_role("button", name="Submit").click()
    card(page, "e_file").get_by_role("button", name="Skip").click()  # the explicit control still skips
    acks = wait_for_file(lab.root / "escape_acks.json")
    assert {key: status for key, (status, _, _) in acks.items()} == dict.fromkeys(places, "success")
    assert acks["e_text"][1] == "sales_v2" and acks["e_file"][2].startswith("Skipped by the user")
    assert card(page, "e_text").locator(".nt-answered").inner_text().endswith("sales_v2")
    assert "Skipped" in card(page, "e_file").locator(".nt-answered").inner_text()


SELECTS = """
import notebook_tools as nt
from notebook_tools import testing as t

script = t.ScriptedTransport(t.turn(
    "Three questions.",
    t.tool_use("user_confirm", {"message": "Go on?"}, id="s_first"),
    t.tool_use("select_option", {"prompt": "Which region?", "options": ["north", "south", "east"]}, id="s_one"),
    t.tool_use("select_option", {"prompt": "Which columns?", "options": ["price", "qty", "date"], "multiple": True}, id="s_many"),
))
chat = nt.Chat(nt.Agent(client=script.client(), frontend_tools=[nt.user_confirm, nt.select_option]))
chat
"""
FOCUSED_OPTION = (
    "() => document.activeElement?.matches('.nt-options input') ? document.activeElement.value : null"
)


def test_arrow_keys_move_among_the_options_of_a_focused_select_card(page, lab):
    write_notebook(lab.root / "arrows.ipynb", [SELECTS, "await chat.send('go')"])
    open_notebook(page, lab, "arrows.ipynb")
    page.locator(".jp-Notebook .jp-Cell").nth(1).locator(".jp-InputPrompt").click()  # the person picks a cell
    run_all(page)
    card(page, "s_many").locator("input").first.wait_for(timeout=PATIENT)
    # the notebook has the focus (a cell, in command mode): no prompt takes it from there
    page.wait_for_timeout(300)  # every card has been drawn and had its chance to take the focus
    assert page.evaluate(FOCUS_CARD) is None
    # the person clicks on the first card's question: the card has the focus
    card(page, "s_first").locator(".nt-question").click()
    assert page.evaluate(FOCUS_CARD) == "s_first"
    # answering it moves the focus to the next open prompt: the select card itself, none of its options
    card(page, "s_first").get_by_role("button", name="Yes").click()
    page.wait_for_function(f"({FOCUS_CARD})() === 's_one'", timeout=PATIENT)
    assert page.evaluate(FOCUSED_OPTION) is None
    one = card(page, "s_one").locator("input[type=radio]")

    page.keyboard.press("ArrowDown")  # into the radio group, on its first option
    assert page.evaluate(FOCUSED_OPTION) == "north"
    page.keyboard.press("ArrowDown")  # then as a radio group: the next option, chosen
    assert page.evaluate(FOCUSED_OPTION) == "south"
    assert one.nth(1).is_checked()
    page.keyboard.press("ArrowUp")
    assert page.evaluate(FOCUSED_OPTION) == "north"
    assert one.nth(0).is_checked()
    assert len(page.evaluate(CELLS)) == 2  # the notebook did not take the arrows
    page.keyboard.press("Enter")  # answers with the option that has the focus
    card(page, "s_one").locator(".nt-answered", has_text="north").wait_for(timeout=PATIENT)

    # a multiple choice: the arrows move the focus among the checkboxes, Space ticks
    page.wait_for_function(f"({FOCUS_CARD})() === 's_many'", timeout=PATIENT)
    many = card(page, "s_many")
    page.keyboard.press("ArrowDown")
    assert page.evaluate(FOCUSED_OPTION) == "price"
    page.keyboard.press("ArrowDown")
    assert page.evaluate(FOCUSED_OPTION) == "qty"
    page.keyboard.press("Space")
    page.keyboard.press("End")
    assert page.evaluate(FOCUSED_OPTION) == "date"
    page.keyboard.press("ArrowDown")  # stays on the last
    assert page.evaluate(FOCUSED_OPTION) == "date"
    page.keyboard.press("Home")
    assert page.evaluate(FOCUSED_OPTION) == "price"
    checked = many.locator("input:checked").evaluate_all("(els) => els.map((el) => el.value)")
    assert checked == ["qty"]  # moving chose nothing; Space did
    assert page.locator(PENDING).count() == 1
    assert len(page.evaluate(CELLS)) == 2
