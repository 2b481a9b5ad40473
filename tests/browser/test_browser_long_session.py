"""A restored session of 1,000 messages in real JupyterLab: drawn only near sight, every message seen.

The chat draws the log's end at once and keeps the rest as placeholders (js/src/chat/window.ts), so the
view holds a fraction of the nodes the whole session would take and the page does not hold its static
copy's messages (only JupyterLab's model does, for the file). Scrolled from top to bottom, each
message is drawn as it comes into the log's visible part: every one of the 1,000 is seen drawn.
"""

import pytest

from tests.support.lab import PATIENT, open_notebook, run_all, write_notebook

pytestmark = pytest.mark.browser

MESSAGES = 1000

SETUP = f"""
import pathlib, tempfile
import notebook_tools as nt
from notebook_tools import testing as t

store = nt.SQLiteStore(pathlib.Path(tempfile.mkdtemp()) / "s.sqlite")
state = nt.AgentState()
for i in range({MESSAGES} // 2):
    state.messages.append({{"role": "user", "content": [{{"type": "text", "text": f"Question {{i}}: what does step {{i}} do?"}}]}})
    state.messages.append({{"role": "assistant", "content": [{{"type": "text", "text":
        f"Answer {{i}}: step {{i}} keeps the rows where `value > {{i}}`.\\n\\n- it drops missing values\\n- it sums **amount**"}}]}})
store.save(state)
chat = nt.Chat.resume(state.agent_uuid, agent=nt.Agent(client=t.ScriptedTransport().client(), store=store))
chat
"""

LOG = "document.querySelector('.nt-chat .nt-log')"

# Whether every child of the log within its visible part is drawn (no placeholder left there).
SETTLED = f"""() => {{
    const log = {LOG};
    const view = log.getBoundingClientRect();
    return Array.from(log.children).every((el) => {{
        const r = el.getBoundingClientRect();
        return r.bottom <= view.top || r.top >= view.bottom || !el.classList.contains('nt-lazy');
    }});
}}"""

# The texts of the messages in the log's visible part, and whether the log is at its end.
VISIBLE = f"""() => {{
    const log = {LOG};
    const view = log.getBoundingClientRect();
    const texts = Array.from(log.children).filter((el) => {{
        const r = el.getBoundingClientRect();
        return r.bottom > view.top && r.top < view.bottom;
    }}).map((el) => el.textContent);
    return {{texts, end: log.scrollTop + log.clientHeight >= log.scrollHeight - 2, top: log.scrollTop}};
}}"""


@pytest.fixture
def page(browser):
    page = browser.new_page(viewport={"width": 1000, "height": 900})
    yield page
    page.close()


def test_a_long_session_is_drawn_near_sight_and_every_message_is_seen(page, lab):
    write_notebook(lab.root / "long.ipynb", [SETUP])
    open_notebook(page, lab, "long.ipynb")
    run_all(page)
    log = page.locator(".nt-chat .nt-log")
    last = f"Answer {MESSAGES // 2 - 1}:"
    log.locator(".nt-assistant", has_text=last).wait_for(timeout=PATIENT)
    page.wait_for_function(f"() => {LOG}.children.length === {MESSAGES}", timeout=PATIENT)

    # Drawn near sight: most messages are placeholders, the view far smaller than the whole session.
    counts = page.evaluate(
        f"""() => ({{
            lazy: {LOG}.querySelectorAll(':scope > .nt-lazy').length,
            elements: document.querySelector('.nt-chat').querySelectorAll('*').length,
        }})"""
    )
    assert counts["lazy"] > MESSAGES // 2, counts
    assert counts["elements"] < 3000, counts
    # The page holds no copy of the messages (its element only, empty and hidden); the model does.
    page.locator("[data-nt-chat]").wait_for(state="attached", timeout=PATIENT)
    page.wait_for_function("() => !document.querySelector('[data-nt-chat]').firstChild", timeout=PATIENT)
    saved = page.evaluate(
        """() => window.jupyterapp.shell.currentWidget.content.model.cells.get(0).outputs.toJSON()
            .map((o) => (o.data || {})['text/html'] || '').join('')"""
    )
    assert "Question 0:" in saved and last in saved

    # From the top to the bottom, a screen at a time: each message is drawn as it comes into sight.
    page.evaluate(f"() => {{ {LOG}.scrollTop = 0; }}")
    seen: set[str] = set()
    while True:
        page.wait_for_function(SETTLED, timeout=PATIENT)
        shown = page.evaluate(VISIBLE)
        seen.update(shown["texts"])
        if shown["end"]:
            break
        page.evaluate(f"() => {{ const log = {LOG}; log.scrollTop += Math.floor(log.clientHeight * 0.8); }}")
        page.wait_for_function(f"() => {LOG}.scrollTop > {shown['top']}", timeout=PATIENT)

    text = "\n".join(seen)
    missing = [
        k
        for k in range(MESSAGES // 2)
        if f"Question {k}: what does step {k} do?" not in text or f"Answer {k}: step {k} keeps" not in text
    ]
    assert missing == [], f"never seen drawn: {missing[:10]} ({len(missing)} exchanges)"
