"""The static copy in live JupyterLab: hidden under its own chat's widget, kept up to date for the file.

A displayed chat's cell holds the widget and a static HTML copy of the transcript (for GitHub,
nbviewer, nbconvert). Where the widget runs, the copy of that chat is hidden (its output row too) and
its messages are out of the page, the copy of another chat is not, and the notebook JupyterLab would
save holds the transcript as the turn left it (replaced across cells through its display id).
"""

import pytest

from tests.support.lab import PATIENT, open_notebook, run_all, write_notebook

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

SAVED_COPY = """() => {
    const cell = window.jupyterapp.shell.currentWidget.content.model.cells.get(0);
    const outputs = cell.outputs.toJSON();
    return outputs.map((o) => (o.data || {})['text/html'] || '').join('');
}"""


@pytest.fixture
def page(browser):
    page = browser.new_page(viewport={"width": 1000, "height": 900})
    yield page
    page.close()


def test_the_live_widget_hides_its_own_static_copy_only(page, lab):
    write_notebook(lab.root / "static.ipynb", [SETUP, "await chat.send('hi there')", OTHER])
    open_notebook(page, lab, "static.ipynb")
    run_all(page)
    widget = page.locator(".nt-chat")
    widget.locator(".nt-assistant", has_text="Hello from the scripted model.").wait_for(timeout=PATIENT)
    page.locator(".jp-Cell").nth(2).locator(".nt-static-transcript").wait_for(
        state="attached", timeout=PATIENT
    )

    assert widget.is_visible()
    cells = page.locator(".jp-Cell")
    own = cells.nth(0).locator(".nt-static-transcript")
    assert own.count() == 1
    # The view hides it once the kernel's snapshot answers its hello: a round trip that may still be
    # under way when the last cell's output lands (Run All queues the cells ahead of it).
    own.wait_for(state="hidden", timeout=PATIENT)
    # Its whole output row is hidden (no empty prompt area left), not only the copy.
    row_display = own.evaluate("(el) => getComputedStyle(el.closest('.jp-OutputArea-child')).display")
    assert row_display == "none"
    # The page does not hold the copy's messages (issue 40: every message twice): the view took them
    # out, the newer copy the second cell's turn sent through its display id too. The notebook's model,
    # which JupyterLab saves, holds that latest copy.
    page.wait_for_function(f"() => ({SAVED_COPY})().includes('Hello from the')", timeout=PATIENT)
    page.wait_for_function(
        "() => { const el = document.querySelector('.jp-Cell .nt-static-transcript'); return el && !el.firstChild; }",
        timeout=PATIENT,
    )
    saved = page.evaluate(SAVED_COPY)
    assert "hi there" in saved and "<strong>scripted</strong>" in saved and "Hello from the" in saved
    # Another chat's copy stays visible: the rule is scoped to this widget's chat.
    other = cells.nth(2).locator(".nt-static-transcript")
    assert other.is_visible() and "It costs $5 or $x^2$ a day." in other.text_content()
    # Its math is not typeset, as in the live view (MathJax skips the copy: a long one is not scanned)
    assert other.locator("mjx-container").count() == 0
