"""Long content in real JupyterLab: answered cards, wide tables, long paths, a 50-field form, error cards.

One JupyterLab, one notebook of four chats (each a scripted model), measured with real layout
(getBoundingClientRect, scrollWidth) in Debian's Chromium. The module also writes the screenshots in
docs/screenshots/ (light and dark): four prompts open, a long answered approval, a wide table in a
reply, and the widget after Stop.
"""

import json
from pathlib import Path

import pytest

from tests.support.lab import (
    CHROMIUM_ARGS,
    PATIENT,
    Lab,
    chromium_path,
    open_notebook,
    run_all,
    set_theme,
    write_notebook,
)

pytestmark = pytest.mark.browser

SCREENSHOTS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"

# 300 characters with no space, hyphen or other break opportunity.
LONG = (
    "/mnt/warehouse/"
    + "".join(f"Segment{i:02d}_QuarterlySalesExport" for i in range(9))
    + "_final_v2.parquet"
)
assert len(LONG) == 302 and " " not in LONG and "-" not in LONG

SETUP = f"""
import notebook_tools as nt
from notebook_tools import testing as t

LONG = {LONG!r}
"""

PROMPTS = """
prompts_script = t.ScriptedTransport(
    t.turn(
        "Four questions before I start:",
        t.tool_use("user_confirm", {
            "message": f"Overwrite **every** file under `{LONG}`?",
            "confirm_label": "Yes, overwrite every file in the export folder and rebuild the quarterly report",
            "deny_label": "No, keep them",
        }, id="p_confirm"),
        t.tool_use("ask_text", {"prompt": "Name of the **cleaned** table?", "placeholder": "e.g. sales_clean"}, id="p_text"),
        t.tool_use("select_option", {
            "prompt": "Columns to convert to `float`?", "options": ["price", "qty", "discount"], "multiple": True,
        }, id="p_select"),
        t.tool_use("pick_file", {"prompt": "Pick the price list (a `.csv` file)", "accept": ".csv"}, id="p_file"),
    ),
    t.reply("Thanks, starting now."),
)
prompts_chat = nt.Chat(
    nt.Agent(client=prompts_script.client(), frontend_tools=[nt.user_confirm, nt.ask_text, nt.select_option, nt.pick_file]),
    root="empty",
)
prompts_chat
"""

N_FIELDS = 50
APPROVAL = f"""
N_FIELDS = {N_FIELDS}
def _field(i):
    kind = ("string", "integer", "number", "boolean", "enum")[i % 5]
    if kind == "enum":
        return {{"type": "string", "enum": ["fast", "balanced", "thorough"], "description": "How hard to try."}}
    prop = {{"type": kind}}
    if i % 3 == 0:
        prop["description"] = f"Option {{i}} of the export job."
    return prop

def _initial(i):
    kind = ("string", "integer", "number", "boolean", "enum")[i % 5]
    return {{"string": f"value_{{i}}", "integer": i * 10, "number": i / 4, "boolean": i % 2 == 0, "enum": "balanced"}}[kind]

NAMES = [f"option_{{i:02d}}" + ("_with_a_rather_long_name" if i % 7 == 0 else "") for i in range(N_FIELDS)]
ARGS = {{name: _initial(i) for i, name in enumerate(NAMES)}}
configure_export = nt.tool(
    lambda **options: f"configured {{len(options)}} options",
    name="configure_export",
    description="Configure the nightly export job.",
    needs_approval=True,
    input_schema={{
        "type": "object",
        "properties": {{name: _field(i) for i, name in enumerate(NAMES)}},
        "required": NAMES,
    }},
)
approval_script = t.ScriptedTransport(
    t.turn("This needs your approval:", t.tool_use("configure_export", ARGS, id="a_big")),
    t.reply("Configured."),
)
approval_chat = nt.Chat(nt.Agent(client=approval_script.client(), tools=[configure_export]))
approval_chat
"""

TABLE_COLUMNS = 16
REPLY = f"""
@nt.tool
def load_table(path: str) -> str:
    '''Load a table.

    Args:
        path: The file.
    '''
    raise FileNotFoundError(f"no such file: {{path}}")

@nt.tool
def describe_table(path: str) -> str:
    '''Describe a table.

    Args:
        path: The file.
    '''
    return "16 columns, 4,000 rows"

header = "| " + " | ".join(f"quarterly_metric_{{i:02d}}" for i in range({TABLE_COLUMNS})) + " |"
rule = "|" + "---|" * {TABLE_COLUMNS}
rows = ["| " + " | ".join(f"{{r * 1000 + c:,}}.00" for c in range({TABLE_COLUMNS})) + " |" for r in range(4)]
code = "result = " + " + ".join(f"frame['quarterly_metric_{{i:02d}}']" for i in range({TABLE_COLUMNS}))
reply_script = t.ScriptedTransport(
    t.turn(
        "Loading it.",
        t.tool_use("load_table", {{"path": LONG}}, id="r_error"),
        t.tool_use("describe_table", {{"path": LONG}}, id="r_ok"),
    ),
    t.reply(
        f"The first path failed; here is the summary of `{{LONG}}`:\\n\\n"
        + "\\n".join([header, rule, *rows])
        + f"\\n\\nThe file lives at {{LONG}} on the shared drive.\\n\\n```python\\n{{code}}\\n```"
    ),
)
reply_chat = nt.Chat(nt.Agent(client=reply_script.client(), tools=[load_table, describe_table]))
reply_chat
"""

STOP = """
essay = " ".join(f"Paragraph {i}: the quarterly export grew steadily, and the report explains why." for i in range(60))
stop_script = t.ScriptedTransport(t.reply(essay), text_chunk=6, event_delay=0.08)
stop_chat = nt.Chat(nt.Agent(client=stop_script.client()))
stop_chat
"""

CELLS = [SETUP, PROMPTS, APPROVAL, REPLY, STOP]
PROMPTS_CELL, APPROVAL_CELL, REPLY_CELL, STOP_CELL = 1, 2, 3, 4

# Layout facts about one chat: whether anything makes the log (or the widget) scroll sideways.
SIDEWAYS = """
(chat) => {
  const log = chat.querySelector('.nt-log');
  return {
    log: [log.scrollWidth, log.clientWidth],
    chat: [chat.scrollWidth, chat.clientWidth],
    // any element inside the log wider than the log (scroll containers excepted: they scroll inside)
    wider: Array.from(log.querySelectorAll('*')).filter((el) => {
      const r = el.getBoundingClientRect(), box = log.getBoundingClientRect();
      return r.width > 0 && (r.right > box.right + 1 || r.left < box.left - 1) && !el.closest('.nt-md-scroll, pre');
    }).map((el) => el.className || el.tagName).slice(0, 5),
  };
}
"""


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        # scrollbars shown, as a person sees them (headless Chromium hides them by default)
        b = p.chromium.launch(
            executable_path=chromium_path(),
            args=CHROMIUM_ARGS,
            headless=True,
            ignore_default_args=["--hide-scrollbars"],
        )
        yield b
        b.close()


@pytest.fixture(scope="module")
def page(browser, tmp_path_factory):
    root = tmp_path_factory.mktemp("layout")
    (root / "empty").mkdir()
    settings = root / ".jupyter" / "lab" / "user-settings" / "@jupyterlab"
    # every cell attached and laid out, so offscreen widgets measure as they look
    (settings / "notebook-extension").mkdir(parents=True)
    (settings / "notebook-extension" / "tracker.jupyterlab-settings").write_text(
        json.dumps({"windowingMode": "none"})
    )
    # no "get notified about Jupyter news?" toast over the screenshots
    (settings / "apputils-extension").mkdir(parents=True)
    (settings / "apputils-extension" / "notification.jupyterlab-settings").write_text(
        json.dumps({"fetchNews": "false"})
    )
    write_notebook(root / "layout.ipynb", CELLS)
    lab = Lab(root)
    page = browser.new_page(viewport={"width": 1100, "height": 1000})
    try:
        open_notebook(page, lab, "layout.ipynb")
        run_all(page)
        page.locator(".jp-CodeCell").nth(STOP_CELL).locator(".nt-chat").wait_for(timeout=PATIENT)
        yield page
    finally:
        page.close()
        lab.close()


def chat(page, cell):
    return page.locator(".jp-CodeCell").nth(cell).locator(".nt-chat")


def send(page, cell, text):
    box = chat(page, cell).get_by_label("Message", exact=True)
    box.fill(text)
    box.press("Enter")


def card(page, tool_use_id):
    return page.locator(f'section.nt-prompt[data-tool-use-id="{tool_use_id}"]')


def no_sideways_scroll(widget):
    facts = widget.evaluate(SIDEWAYS)
    assert facts["log"][0] <= facts["log"][1], facts
    assert facts["chat"][0] <= facts["chat"][1], facts
    assert facts["wider"] == [], facts


def line_height(locator):
    """The element's line height in pixels (also when it is `normal`)."""
    return locator.evaluate(
        """(el) => {
          const probe = document.createElement('div');
          probe.style.height = '1lh';
          el.append(probe);
          const height = probe.getBoundingClientRect().height;
          probe.remove();
          return height;
        }"""
    )


def error_colour(page):
    """--jp-error-color1 as a computed colour."""
    return page.evaluate(
        """() => {
          const probe = document.createElement('span');
          probe.style.color = 'var(--jp-error-color1)';
          document.body.append(probe);
          const colour = getComputedStyle(probe).color;
          probe.remove();
          return colour;
        }"""
    )


def inside(locator, container):
    a, b = locator.bounding_box(), container.bounding_box()
    return a["y"] >= b["y"] - 1 and a["y"] + a["height"] <= b["y"] + b["height"] + 1


def screenshots(page, widget, name):
    """`docs/screenshots/{name}-light.png` and `-dark.png` of one chat widget."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    widget.scroll_into_view_if_needed()
    widget.screenshot(path=str(SCREENSHOTS / f"{name}-light.png"), animations="disabled")
    set_theme(page, dark=True)
    try:
        widget.screenshot(path=str(SCREENSHOTS / f"{name}-dark.png"), animations="disabled")
    finally:
        set_theme(page, dark=False)


def test_wide_table_and_long_paths_scroll_inside_the_reply_not_the_log(page):
    widget = chat(page, REPLY_CELL)
    send(page, REPLY_CELL, "Summarize the export")
    reply = widget.locator(".nt-assistant", has_text="on the shared drive")
    reply.wait_for(timeout=PATIENT)
    widget.scroll_into_view_if_needed()
    no_sideways_scroll(widget)
    table = reply.locator("table")
    scroller = table.locator("xpath=..")
    sizes = scroller.evaluate("(el) => [el.scrollWidth, el.clientWidth, getComputedStyle(el).overflowX]")
    assert sizes[0] > sizes[1] and sizes[2] == "auto", sizes  # the table's own wrapper scrolls
    pre = reply.locator("pre", has_text="quarterly_metric_")
    pre.wait_for(timeout=PATIENT)  # it comes after the phrase waited for
    assert pre.evaluate("(el) => el.scrollWidth > el.clientWidth")  # code scrolls inside its block
    # the error card keeps its red status dot
    dot = widget.locator('.nt-tool[data-tool-use-id="r_error"] .nt-dot')
    box = dot.bounding_box()
    assert box is not None and box["width"] >= 6 and box["height"] >= 6
    assert dot.evaluate("(el) => getComputedStyle(el).backgroundColor") == error_colour(page)
    # the 300-character path: one line in the header, cut with an ellipsis (issue 26: a line of text,
    # not JSON); in full in the card's "Arguments", wrapped anywhere, never wider than the log
    ok = widget.locator('.nt-tool[data-tool-use-id="r_ok"]')
    summary = ok.locator(".nt-tool-head .nt-args-summary")
    assert summary.inner_text().startswith("· path: /mnt/warehouse/") and summary.inner_text().endswith("…")
    assert summary.evaluate("(el) => el.getBoundingClientRect().height") <= line_height(summary) + 1
    ok.locator(".nt-tool-args > summary").click()
    args = ok.locator(".nt-tool-args .nt-args")
    assert LONG in args.inner_text()
    assert args.evaluate("(el) => el.getBoundingClientRect().height") > 3 * line_height(args)
    no_sideways_scroll(widget)
    ok.locator(".nt-tool-args > summary").click()
    page.mouse.move(0, 0)
    # the screenshot starts at the error card: its dot, the wrapped paths, the table's own scrollbar
    widget.locator('.nt-tool[data-tool-use-id="r_error"]').evaluate(
        "(el) => el.scrollIntoView({block: 'start'})"
    )
    screenshots(page, widget, "wide-table")


def test_four_prompts_open_with_markdown_questions_then_a_long_label_answered(page):
    widget = chat(page, PROMPTS_CELL)
    send(page, PROMPTS_CELL, "Clean the sales table")
    for tid in ("p_confirm", "p_text", "p_select", "p_file"):
        card(page, tid).and_(page.locator(".nt-pending")).wait_for(timeout=PATIENT)
    # questions are markdown: code and bold, as the model wrote them (sanitized, never raw HTML)
    question = card(page, "p_confirm").locator(".nt-question")
    assert question.locator("strong").inner_text() == "every"
    assert question.locator("code").inner_text() == LONG
    assert card(page, "p_select").locator(".nt-question code").inner_text() == "float"
    widget.scroll_into_view_if_needed()
    no_sideways_scroll(widget)
    # the same view every run: the log from the reply that opened the prompts
    widget.locator(".nt-assistant").first.evaluate("(el) => el.scrollIntoView({block: 'start'})")
    screenshots(page, widget, "four-prompts")

    # the file picker: an empty folder says so; a mistake is an error (role=alert, the error colour)
    picker = card(page, "p_file")
    picker.locator("summary").click()
    picker.locator(".nt-empty", has_text="This folder is empty").wait_for()
    picker.get_by_role("button", name="Use selected").click()
    problem = picker.get_by_role("alert").filter(has_text="Select a file in the list first.")
    problem.wait_for()
    assert problem.evaluate("(el) => getComputedStyle(el).color") == error_colour(page)

    # a long confirm label, answered: one or two lines across the card, not a word per line
    confirm = card(page, "p_confirm")
    confirm.get_by_role("button", name="Yes, overwrite every file").click()
    answered = confirm.locator("div.nt-answered")
    answered.wait_for()
    text = answered.locator(".nt-answer-text")
    assert "rebuild the quarterly report" in text.inner_text()
    assert text.evaluate("(el) => el.getBoundingClientRect().height") <= 2 * line_height(text) + 2
    assert text.evaluate("(el) => el.getBoundingClientRect().width") > 0.6 * confirm.bounding_box()["width"]

    # a long answer: three lines, then "Show more"
    asked = card(page, "p_text")
    box = asked.get_by_role("textbox")
    box.fill("sales_clean, because " * 40 + LONG)
    box.press("Enter")
    long_answer = asked.locator("div.nt-answered .nt-answer-text")
    long_answer.wait_for()
    assert (
        long_answer.evaluate("(el) => el.getBoundingClientRect().height") <= 3 * line_height(long_answer) + 2
    )
    asked.get_by_role("button", name="Show more").click()
    assert long_answer.evaluate("(el) => el.getBoundingClientRect().height") > 6 * line_height(long_answer)
    no_sideways_scroll(widget)


def test_fifty_field_edit_form_is_bounded_aligned_and_revalidates(page):
    widget = chat(page, APPROVAL_CELL)
    send(page, APPROVAL_CELL, "Set up the nightly export")
    approval = card(page, "a_big")
    approval.get_by_role("button", name="Edit arguments").click(timeout=PATIENT)
    grid = approval.locator(".nt-form-grid")
    grid.wait_for()
    approval.scroll_into_view_if_needed()
    # bounded: the form scrolls inside the card, and the card fits in the log
    sizes = grid.evaluate("(el) => [el.scrollHeight, el.clientHeight]")
    assert sizes[0] > 3 * sizes[1] and sizes[1] <= 320, sizes
    log_height = widget.locator(".nt-log").evaluate("(el) => el.clientHeight")
    assert approval.bounding_box()["height"] < log_height, (approval.bounding_box(), log_height)
    # aligned: every field starts at the same x, right of every label
    facts = grid.evaluate(
        """(el) => ({
          fields: Array.from(el.querySelectorAll('.nt-form-row > .nt-input, .nt-form-row > input'))
            .map((f) => Math.round(f.getBoundingClientRect().left)),
          labels: Array.from(el.querySelectorAll('.nt-form-label')).map((l) => l.getBoundingClientRect().right),
        })"""
    )
    assert len(facts["fields"]) == N_FIELDS and len(set(facts["fields"])) == 1, facts["fields"]
    assert max(facts["labels"]) <= facts["fields"][0]
    # the button under the form is in view with it
    button = approval.get_by_role("button", name="Approve with these arguments")
    assert button.is_visible() and inside(button, widget.locator(".nt-log"))
    # a filter finds fields by name
    approval.get_by_label("Filter arguments by name").fill("rather_long")
    assert grid.locator(".nt-form-row:visible").count() == 8
    approval.get_by_label("Filter arguments by name").fill("")

    # a wrong value is marked where it is; fixing it clears the message without another click
    field = approval.locator("#nt-edit-a_big-option_01")
    field.fill("2.5")
    button.click()
    error = approval.locator("#nt-edit-a_big-option_01-error")
    assert error.inner_text() == "Enter a whole number (not 2.5)"
    assert field.get_attribute("aria-invalid") == "true"
    problem = approval.locator(".nt-prompt-body > .nt-error[role=alert]")
    assert "option_01" in problem.inner_text()
    field.fill("12")
    assert error.inner_text() == "" and not error.is_visible()
    assert field.get_attribute("aria-invalid") is None
    assert not problem.is_visible()

    # approved with edits: a compact list, the changed ones first, clamped with "Show all"
    approval.locator("#nt-edit-a_big-option_00_with_a_rather_long_name").fill(LONG)
    approval.locator("#nt-edit-a_big-option_02").fill("9.5")
    approval.locator("#nt-edit-a_big-option_08").uncheck()
    button.click()
    answered = approval.locator("div.nt-answered")
    answered.wait_for(timeout=PATIENT)
    assert "Approved with edits: 4 of 50 arguments changed" in answered.inner_text()
    keys = answered.locator(".nt-kv dt").all_inner_texts()
    assert keys[:4] == ["option_00_with_a_rather_long_name", "option_01", "option_02", "option_08"]
    assert answered.locator(".nt-kv-item.nt-changed").count() == 4
    kv = answered.locator(".nt-kv")
    clamped = kv.evaluate("(el) => el.getBoundingClientRect().height")
    assert clamped <= 3 * line_height(kv) + 2
    show = answered.get_by_role("button", name="Show all 50 arguments")
    show.click()
    assert kv.evaluate("(el) => el.getBoundingClientRect().height") > 3 * clamped
    answered.get_by_role("button", name="Show less").click()
    no_sideways_scroll(widget)
    screenshots(page, widget, "long-approval")


def test_the_widget_after_stop(page):
    widget = chat(page, STOP_CELL)
    send(page, STOP_CELL, "Write the quarterly report")
    widget.locator(".nt-assistant", has_text="Paragraph 2").wait_for(timeout=PATIENT)
    stop = widget.get_by_role("button", name="Stop the agent")
    stop.click()
    page.wait_for_function(
        "(el) => el.querySelector('.nt-stop').disabled", arg=widget.element_handle(), timeout=PATIENT
    )
    no_sideways_scroll(widget)
    screenshots(page, widget, "after-stop")
