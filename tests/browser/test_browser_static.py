"""The static copy in live JupyterLab: never drawn under its own chat's widget, kept up to date for the file.

A displayed chat's cell holds the widget and a static HTML copy of the transcript (for GitHub,
nbviewer, nbconvert). Where the widget runs, this project's JupyterLab extension never draws the copy
of that chat (its output row is hidden too), the copy of another chat is drawn, and the notebook
JupyterLab would save holds the transcript as the turn left it (replaced across cells through its
display id). Where no view runs (the kernel gone, the page reloaded) the copy is drawn:
tests/browser/test_browser_showcase.py.
"""

import json

import pytest

from tests.support.lab import PANEL, PATIENT, open_notebook, run_all, write_notebook

pytestmark = pytest.mark.browser

SETUP = """
import notebook_tools as nt
from notebook_tools import testing as t
from IPython.display import HTML

script = t.ScriptedTransport(t.reply("Hello from the **scripted** model."))
chat = nt.Chat(nt.Agent(client=script.client()))
other = nt.Chat(nt.Agent(client=t.ScriptedTransport(t.reply("It costs $5 or $x^2$ a day.")).client()))
chat
"""

OTHER = (
    "await other.send('price?')\nHTML(other.static.html())  # another chat's copy: not this widget's to hide"
)

SAVED_COPY = f"""() => {{
    const cell = {PANEL}.content.model.cells.get(0);
    const outputs = cell.outputs.toJSON();
    return outputs.map((o) => (o.data || {{}})['text/html'] || '').join('');
}}"""


@pytest.fixture
def page(browser):
    page = browser.new_page(viewport={"width": 1000, "height": 900})
    yield page
    page.close()


# Every copy the page ever holds, whatever takes it out afterwards: its chat's id, and what stood
# beside it then (the other outputs of its area, what the chat's views said), for a failure to show.
DRAWN = """
window.ntCopiesDrawn = [];
window.ntCopiesContext = [];
new MutationObserver((records) => {
  for (const record of records) for (const node of record.addedNodes) {
    if (!(node instanceof Element)) continue;
    const copies = [node, ...node.querySelectorAll('.nt-static-transcript')];
    for (const el of copies) {
      if (!el.matches('.nt-static-transcript')) continue;
      window.ntCopiesDrawn.push(el.dataset.ntChat);
      const area = el.closest('.jp-OutputArea');
      const rows = area ? Array.from(area.querySelectorAll(':scope > .jp-OutputArea-child > .jp-OutputArea-output')) : [];
      window.ntCopiesContext.push({
        chat: el.dataset.ntChat,
        drawnIn: el.parentElement && el.parentElement.parentElement ? el.parentElement.parentElement.className : '',
        outputs: rows.map((o) => o.className + ': ' + o.innerHTML.slice(0, 120)),
        views: Array.from(document.querySelectorAll('style[data-nt-static-copy]'), (s) => s.getAttribute('data-nt-static-copy') + ' ' + s.getAttribute('data-nt-state')),
        viewElements: document.getElementsByClassName('nt-chat-' + el.dataset.ntChat).length,
        at: performance.now(),
      });
    }
  }
}).observe(document, { childList: true, subtree: true });
"""


def test_the_live_widget_hides_its_own_static_copy_only(page, lab):
    write_notebook(lab.root / "static.ipynb", [SETUP, "await chat.send('hi there')", OTHER])
    page.add_init_script(DRAWN)
    open_notebook(page, lab, "static.ipynb")
    run_all(page)
    widget = page.locator(".nt-chat")
    widget.locator(".nt-assistant", has_text="Hello from the scripted model.").wait_for(timeout=PATIENT)
    page.locator(".jp-Cell").nth(2).locator(".nt-static-transcript").wait_for(
        state="attached", timeout=PATIENT
    )

    assert widget.is_visible()
    cells = page.locator(".jp-Cell")
    # The copy's output is this project's renderer (its type comes before text/html), which leaves a
    # bare marker of the chat where the copy would be; the view's rule hides that whole output row
    # (no empty prompt area left) once the kernel's snapshot answers its hello, a round trip that may
    # still be under way when the last cell's output lands (Run All queues the cells ahead of it).
    own = cells.nth(0).locator(".nt-copy-output")
    assert own.count() == 1
    chat_id = page.evaluate(
        f"""() => {PANEL}.content.model.cells.get(0).outputs.toJSON()
            .map((o) => (o.data || {{}})['application/vnd.notebook-tools.copy']).find(Boolean)"""
    )
    assert chat_id and chat_id.startswith("nt-chat-")
    page.wait_for_function(
        "(el) => getComputedStyle(el.closest('.jp-OutputArea-child')).display === 'none'",
        arg=own.element_handle(),
        timeout=PATIENT,
    )
    # The page never held this chat's copy (issue 40: every message twice): not when the cell ran,
    # not when the second cell's turn replaced it through its display id. The notebook's model, which
    # JupyterLab saves, holds that latest copy.
    page.wait_for_function(f"() => ({SAVED_COPY})().includes('Hello from the')", timeout=PATIENT)
    drawn = page.evaluate("() => window.ntCopiesDrawn")
    assert chat_id.removeprefix("nt-chat-") not in drawn, json.dumps(
        page.evaluate("() => window.ntCopiesContext"), indent=1
    )
    assert len(drawn) >= 1  # the other chat's copy, drawn as plain HTML: the observer sees copies
    assert cells.nth(0).locator(".nt-static-transcript").count() == 0
    saved = page.evaluate(SAVED_COPY)
    assert "hi there" in saved and "<strong>scripted</strong>" in saved and "Hello from the" in saved
    # Another chat's copy stays visible: the rule is scoped to this widget's chat.
    other = cells.nth(2).locator(".nt-static-transcript")
    assert other.is_visible() and "It costs $5 or $x^2$ a day." in other.text_content()
    # Its math is not typeset, as in the live view (MathJax skips the copy: a long one is not scanned)
    assert other.locator("mjx-container").count() == 0
