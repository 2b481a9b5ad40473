"""Rich results in real JupyterLab: every view on its tool card, table pages from the kernel, themes.

One notebook, one chat, one turn of a scripted model (the real `anthropic` client on
`notebook_tools.testing`) that calls nine tools: a 500-row DataFrame, a diff, a file list, JSON,
a file's code, markdown text, a PNG made with PIL, a PDF and a kind the widget does not know. The
table pages by asking the kernel (the rows come from the live frame), the diff shows its hunks,
the unknown kind falls back to the tree view; docs/screenshots/results-{light,dark}.png.
"""

from pathlib import Path

import pytest

from tests.support.lab import PATIENT, no_news_toast, open_notebook, run_all, set_theme, write_notebook

pytestmark = pytest.mark.browser

SCREENSHOTS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"
DASH = "\u2013"  # the pager writes its rows with an en dash: "rows 1{DASH}50"

SETUP = '''
import io
import pandas as pd
from PIL import Image, ImageDraw
import notebook_tools as nt
from notebook_tools import results as r
from notebook_tools import testing as t

BEFORE = "".join(f"total_{i} = {i} * price\\n" for i in range(20))
AFTER = BEFORE.replace("total_2 = 2 * price", "total_2 = 2 * price * (1 - discount)").replace(
    "total_17 = 17 * price\\n", "total_17 = 17 * price\\n# rounded for the report\\ntotal_17 = round(total_17, 2)\\n"
)

@nt.tool
def load_sales() -> object:
    """The sales table."""
    return pd.DataFrame({
        "order": range(500),
        "region": [["north", "south", "east", "west"][i % 4] for i in range(500)],
        "price": [round(9.99 + i * 0.5, 2) for i in range(500)],
        "note": [None if i % 7 == 0 else f"row {i}" for i in range(500)],
    })

@nt.tool
def edit_totals() -> object:
    """Edit totals.py."""
    return r.diff("totals.py", BEFORE, AFTER)

@nt.tool
def list_data() -> object:
    """The data folder."""
    return r.file_list("data", [
        {"name": "raw", "is_dir": True}, {"name": "raw/sales_2024.csv", "size": 182_044},
        {"name": "raw/sales_2025.csv", "size": 96_311}, {"name": "prices.parquet", "size": 20_480},
        {"name": "README.md", "size": 812},
    ])

@nt.tool
def settings() -> object:
    """The settings."""
    return r.json_result({"currency": "EUR", "regions": ["north", "south"], "limits": {"rows": 500, "cache": None}},
                         summary="Settings (3 keys)")

@nt.tool
def read_query() -> object:
    """A query file."""
    return r.file_content("queries/top.sql", "SELECT region, SUM(price) AS total\\nFROM sales\\nWHERE price > 10\\nGROUP BY region;\\n")

@nt.tool
def explain() -> object:
    """Notes in markdown."""
    text = "## Findings\\n\\n- **north** sells most\\n- prices rise `0.5` per order\\n\\n<img src=x onerror=\\"window.pwned=1\\"><script>window.pwned=1</script>"
    return r.text(text, summary="Findings", display=r.DisplayHints(view="markdown"))

@nt.tool
def chart() -> object:
    """A small chart."""
    image = Image.new("RGB", (160, 60), "white")
    draw = ImageDraw.Draw(image)
    for i, h in enumerate([20, 35, 50, 28]):
        draw.rectangle([10 + i * 38, 58 - h, 36 + i * 38, 58], fill=(25, 118, 210))
    return image

@nt.tool
def report() -> object:
    """The PDF report."""
    return r.binary(b"%PDF-1.4\\n%%EOF\\n", "application/pdf", filename="report.pdf")

@nt.tool
def git_status() -> object:
    """A custom kind."""
    return r.RichResult(kind="git.status", data={"branch": "main", "ahead": 2, "modified": ["totals.py"]},
                        summary="On main, 2 commits ahead")

NAMES = ["load_sales", "edit_totals", "list_data", "settings", "read_query", "explain", "chart", "report", "git_status"]
script = t.ScriptedTransport(
    t.turn("Here is everything:", *[t.tool_use(name, {}, id=f"x_{name}") for name in NAMES]),
    t.reply("All shown."),
)
agent = nt.Agent(client=script.client(), tools=[globals()[name] for name in NAMES], max_result_chars=20_000)
chat = nt.Chat(agent)
chat
'''


@pytest.fixture
def page(browser):
    page = browser.new_page(viewport={"width": 1100, "height": 2400})
    yield page
    page.close()


def card(chat, name):
    return chat.locator(f'[data-tool-use-id="x_{name}"]')


def test_each_view_pages_the_table_shows_hunks_and_falls_back_to_the_tree(page, lab):
    # no "get notified about Jupyter news?" toast over the screenshots (read when the page loads)
    no_news_toast(lab)
    write_notebook(lab.root / "results.ipynb", [SETUP, "await chat.send('show me')"])
    open_notebook(page, lab, "results.ipynb")
    run_all(page)
    chat = page.locator(".nt-chat")
    chat.locator(".nt-assistant", has_text="All shown.").wait_for(timeout=PATIENT)

    views = {
        name: card(chat, name).locator(".nt-shown").get_attribute("data-view")
        for name in (
            "load_sales",
            "edit_totals",
            "list_data",
            "settings",
            "read_query",
            "explain",
            "chart",
            "report",
            "git_status",
        )
    }
    assert views == {
        "load_sales": "table",
        "edit_totals": "diff",
        "list_data": "files",
        "settings": "tree",
        "read_query": "code",
        "explain": "markdown",
        "chart": "binary",
        "report": "binary",
        "git_status": "tree",
    }

    # the table: its first page, then pages the kernel reads from the live frame
    table = card(chat, "load_sales")
    assert table.locator(".nt-shown-summary").text_content() == "DataFrame: 500 rows x 4 columns"
    assert table.locator(".nt-col-name").all_text_contents() == ["order", "region", "price", "note"]
    assert table.locator(".nt-dtype").all_text_contents()[::2] == [
        "int64",
        "float64",
    ]  # str or object: pandas' own
    position = table.locator(".nt-page-position")
    assert position.text_content() == f"rows 1{DASH}50 of 500"
    assert table.locator("tbody tr").count() == 50
    table.get_by_role("button", name="Next page").click()
    position.filter(has_text=f"rows 51{DASH}100 of 500").wait_for(timeout=PATIENT)
    assert table.locator("tbody tr").first.locator("th, td").all_text_contents() == [
        "50",
        "50",
        "east",
        "34.99",
        "row 50",
    ]
    table.locator(".nt-table-scroll").focus()
    page.keyboard.press("End")  # the keyboard: the last page
    position.filter(has_text=f"rows 451{DASH}500 of 500").wait_for(timeout=PATIENT)
    assert table.locator("tbody tr").last.locator("th").text_content() == "499"
    assert table.get_by_role("button", name="Next page").is_disabled()
    page.keyboard.press("Home")
    position.filter(has_text=f"rows 1{DASH}50 of 500").wait_for(timeout=PATIENT)
    assert table.locator(".nt-page-error").is_hidden()

    # the diff: two hunks with line numbers, coloured, and side by side on request
    diff = card(chat, "edit_totals")
    assert diff.locator("tr.nt-hunk").all_text_contents() == ["@@ -1,6 +1,6 @@", "@@ -16,5 +16,7 @@"]
    assert diff.locator("tr.nt-add").count() == 3 and diff.locator("tr.nt-del").count() == 1
    assert diff.locator(".hljs-number").count() > 0
    diff.get_by_role("button", name="Side by side").click()
    assert diff.locator(".nt-diff-split td.nt-del").count() == 1
    diff.get_by_role("button", name="Unified").click()

    # the unknown kind is a tree of its data; JSON too; the file list is a tree of folders
    unknown = card(chat, "git_status")
    assert unknown.locator(".nt-shown-summary").text_content() == "On main, 2 commits ahead"
    assert 'branch: "main"' in unknown.locator("ul.nt-json").text_content()
    assert card(chat, "settings").locator(".nt-json-key").first.text_content() == "currency: "
    files = card(chat, "list_data")
    assert files.locator(".nt-dir").text_content() == "raw/"
    assert "sales_2025.csv" in files.locator(".nt-files").first.text_content()

    # code coloured, markdown sanitized, the image shown, the PDF a download
    assert card(chat, "read_query").locator("code.hljs .hljs-keyword").count() >= 4
    notes = card(chat, "explain")
    assert notes.locator(".nt-md h2").text_content() == "Findings"
    assert notes.locator("img[onerror], script").count() == 0 and page.evaluate("() => window.pwned") is None
    image = card(chat, "chart").locator("img.nt-result-image")
    assert image.evaluate("(img) => img.complete && img.naturalWidth") == 160
    assert card(chat, "report").get_by_role("button", name="Download report.pdf").is_visible()
    assert card(chat, "load_sales").locator(".nt-model-text > summary").text_content() == "What Claude read"

    # light and dark: the whole log, unclipped, for docs/screenshots/
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    chat.locator(".nt-log").evaluate("(el) => { el.style.maxHeight = 'none'; }")
    chat.scroll_into_view_if_needed()
    chat.screenshot(path=str(SCREENSHOTS / "results-light.png"), animations="disabled")
    set_theme(page, dark=True)
    try:
        chat.screenshot(path=str(SCREENSHOTS / "results-dark.png"), animations="disabled")
    finally:
        set_theme(page, dark=False)
