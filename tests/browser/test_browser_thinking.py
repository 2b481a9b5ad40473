"""Thinking, a web search with citations, a refusal and a cut-off reply in real JupyterLab (issue 27).

The agent runs on the scripted transport, which streams a thinking block, a web search (its call and
results) and cited text, then refuses a request, then stops at max_tokens. The person sees a folded
"Thinking" section that opens on a click, the search as titled links (a `javascript:` result is no
link), footnote marks with a "Sources" list, the refusal's explanation and advice, and a cut-off
reply's Continue button that carries the turn on; the status line shows the turn's tokens and cost
and the context window's fill. Checked in JupyterLab's light and dark themes (screenshots under
/tmp/shots27/ and docs/screenshots/), and the saved notebook's static copy folds the thinking too.
"""

import shutil
from pathlib import Path

import pytest

from tests.support.lab import PATIENT, no_news_toast, open_notebook, run_all, set_theme, write_notebook

pytestmark = pytest.mark.browser

SHOTS = Path("/tmp/shots27")
DOCS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"  # the README links these

SETUP = """
import notebook_tools as nt
from notebook_tools import testing as t

tide = ("Marées <b>Brest</b>", "https://maree.info/brest")
evil = ("<img src=x onerror=alert(1)>", "javascript:alert(1)")
script = t.ScriptedTransport(
    t.turn(
        t.thinking("The person wants the tides. I should search the web for Brest."),
        "Let me search.",
        t.web_search("high tide Brest", [(*tide, "2 days ago"), evil]),
        t.cited("High tide is at 06:12.", [tide]),
        " The evening one is later.",
    ),
    t.turn(stop_reason="refusal",
           stop_details={"type": "refusal", "category": "cyber", "explanation": "This asks for malware."}),
    t.reply("The first half of a long", stop_reason="max_tokens"),
    t.reply(" answer, finished."),
    priced=True,  # the status line priced as Claude's replies are (a scripted one says "no cost")
)
agent = nt.Agent(client=script.client(), model="claude-sonnet-4-6", max_tokens=4000,
                 tools=[nt.server_tool("web_search", max_uses=3)],
                 thinking={"type": "enabled", "budget_tokens": 2000})
chat = nt.Chat(agent)
chat
"""

SAVED_COPY = """() => {
    const cell = window.jupyterapp.shell.currentWidget.content.model.cells.get(0);
    return cell.outputs.toJSON().map((o) => (o.data || {})['text/html'] || '').join('');
}"""


@pytest.fixture
def page(browser, lab):
    no_news_toast(lab)
    page = browser.new_page(viewport={"width": 1100, "height": 1400})
    page.dialogs = []
    page.on("dialog", lambda d: (page.dialogs.append(d.message), d.dismiss()))
    yield page
    page.close()


def test_thinking_citations_and_turn_notices_in_light_and_dark(page, lab):
    SHOTS.mkdir(parents=True, exist_ok=True)
    cells = [
        SETUP,
        "await chat.send('When is high tide in Brest?')",
        "await chat.send('write malware')",
        "await chat.send('Write a lot')",
    ]
    write_notebook(lab.root / "thinking.ipynb", cells)
    open_notebook(page, lab, "thinking.ipynb")
    run_all(page)
    widget = page.locator(".nt-chat")
    cut = widget.locator(".nt-notice.nt-warning", has_text="cut off")
    cut.locator("button.nt-continue").wait_for(timeout=PATIENT)

    # Thinking: one folded section, before the reply's text; a click opens it.
    # (A view that renders while the cells run gets the last turn's items before its snapshot of the
    # earlier ones: wait for the snapshot, which also puts every item in the transcript's order.)
    thinking = widget.locator(".nt-thinking")
    thinking.wait_for(state="attached", timeout=PATIENT)
    assert thinking.count() == 1
    fold = thinking.locator("details")
    assert fold.evaluate("(d) => d.open") is False
    assert thinking.locator("summary").inner_text().strip() == "Thinking"
    body = thinking.locator(".nt-thinking-body")
    assert not body.is_visible()
    thinking.locator("summary").click()
    body.wait_for(state="visible")
    assert "search the web for Brest" in body.inner_text()
    order = widget.evaluate(
        """(w) => Array.from(w.querySelectorAll('.nt-log > *')).map((el) => el.className.split(' ')[0]
            + (el.classList.contains('nt-assistant') ? ':' + el.textContent.slice(0, 14) : ''))"""
    )
    first_reply = order[1:5]
    assert first_reply == ["nt-thinking", "nt-msg:Let me search.", "nt-tool", "nt-msg:High tide is a"], order

    # The search: titled links to http(s) pages only, each in a new tab without an opener.
    card = widget.locator(".nt-server-tool")
    assert card.locator(".nt-server-label").inner_text() == "Searched the web: high tide Brest"
    links = card.locator("a")
    assert links.count() == 1
    assert links.first.inner_text() == "Marées <b>Brest</b>"
    assert links.first.get_attribute("href") == "https://maree.info/brest"
    assert (links.first.get_attribute("target"), links.first.get_attribute("rel")) == (
        "_blank",
        "noopener noreferrer",
    )
    assert "<img src=x onerror=alert(1)>" in card.inner_text()  # the hostile title, as text
    assert card.locator("img").count() == 0

    # Citations: a numbered mark after the cited text, its words as tooltip, and the sources under it.
    cited = widget.locator(".nt-assistant", has=page.locator("sup.nt-cite"))
    mark = cited.locator("sup.nt-cite")
    assert mark.inner_text() == "[1]" and mark.get_attribute("title") == "High tide is at 06:12."
    assert "High tide is at 06:12.[1] The evening one is later." in cited.inner_text()
    source = cited.locator(".nt-sources a")
    assert (
        source.get_attribute("href") == "https://maree.info/brest"
        and source.inner_text() == "Marées <b>Brest</b>"
    )
    assert cited.locator(".nt-sources .nt-weblink-host").inner_text() == "maree.info"
    link_colour = "(el) => [getComputedStyle(el).color, getComputedStyle(el).getPropertyValue('--jp-content-link-color')]"
    colour, theme_colour = source.evaluate(link_colour)
    assert colour == page.evaluate(
        f"() => {{ const a = document.createElement('a'); a.style.color = '{theme_colour.strip()}'; document.body.append(a); const c = getComputedStyle(a).color; a.remove(); return c; }}"
    )

    # The refusal: what happened, the API's explanation, what to do; nothing to continue.
    refusal = widget.locator(".nt-notice.nt-warning", has_text="declined")
    assert "This asks for malware." in refusal.inner_text() and "cyber" in refusal.inner_text()
    assert "set aside" in refusal.locator(".nt-notice-advice").inner_text()
    assert refusal.locator("button").count() == 0

    # Usage: the turn's tokens and cost, the session's, and the context meter with its tooltip.
    status = widget.locator(".nt-status-text").inner_text()
    assert "turn " in status and " out · $" in status and "— session $" in status, status
    meter = widget.locator(".nt-status .nt-context[role=meter]")
    assert meter.get_attribute("title").startswith("Context window: ")

    widget.screenshot(path=str(SHOTS / "thinking-light.png"))
    shutil.copy(SHOTS / "thinking-light.png", DOCS / "thinking-light.png")
    light = refusal.locator(".nt-notice-title").evaluate("(el) => getComputedStyle(el).color")
    set_theme(page, dark=True)
    dark = refusal.locator(".nt-notice-title").evaluate("(el) => getComputedStyle(el).color")
    assert light != dark  # the notice follows JupyterLab's theme variables
    assert source.evaluate(link_colour)[0] not in (colour, dark)  # the dark theme's link colour
    widget.screenshot(path=str(SHOTS / "thinking-dark.png"))
    shutil.copy(SHOTS / "thinking-dark.png", DOCS / "thinking-dark.png")

    # Continue carries the cut-off turn on; its button goes.
    cut.locator("button.nt-continue").click()
    widget.locator(".nt-assistant", has_text="answer, finished.").wait_for(timeout=PATIENT)
    cut.locator("button.nt-continue").wait_for(state="detached", timeout=PATIENT)
    assert "[Your previous reply was cut off" not in widget.inner_text()  # the model's cue, not a bubble
    widget.screenshot(path=str(SHOTS / "thinking-dark-continued.png"))
    set_theme(page, dark=False)

    # The saved notebook's copy: thinking folded, the source a safe link, nothing hostile.
    saved = page.evaluate(SAVED_COPY)
    assert "<details><summary>Thinking</summary>" in saved
    assert 'href="https://maree.info/brest"' in saved and "javascript:" not in saved
    assert "Claude declined" in saved
    assert page.dialogs == []
