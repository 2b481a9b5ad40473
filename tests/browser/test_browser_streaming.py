"""A long reply streaming in real JupyterLab: the log follows its end, stays where the person scrolls to
while it streams on, and follows again once they scroll back to the end; the reply is drawn in place.

The scripted model's stream is held at two points (until the test writes a file), so "during the
stream" is a state the test waits for, never a moment it guesses.
"""

import pytest

from tests.support.lab import PATIENT, open_notebook, run_all, write_notebook

pytestmark = pytest.mark.browser


@pytest.fixture
def page(browser):
    page = browser.new_page(viewport={"width": 1100, "height": 900})
    yield page
    page.close()


SETUP = """
import asyncio, json, os
import httpx2
import notebook_tools as nt
from notebook_tools import testing as t

paragraphs = [f"Paragraph {i}: the *sales* table, column by column, with `code` and **bold**." for i in range(240)]
script = t.ScriptedTransport(t.reply("\\n\\n".join(paragraphs) + "\\n\\nThe end."), text_chunk=20)
GATES = {"Paragraph 80:": "go1", "Paragraph 160:": "go2"}

def text_of(event):
    for line in event.split(b"\\n"):
        if line.startswith(b"data:"):
            data = json.loads(line[5:])
            return data.get("delta", {}).get("text", "") if data.get("type") == "content_block_delta" else ""
    return ""

class Held(httpx2.AsyncByteStream):
    # The stream's events, paced; once a gate's mark has been sent, held until the gate's file exists.
    def __init__(self, events):
        self.events = events
    async def __aiter__(self):
        sent = ""
        for event in self.events:
            for mark, gate in GATES.items():
                if mark in sent:
                    while not os.path.exists(gate):
                        await asyncio.sleep(0.05)
            await asyncio.sleep(0.002)
            sent += text_of(event)
            yield event

_handle = script.handle
async def held(request):
    response = await _handle(request)
    body = await response.aread()
    events = [part + b"\\n\\n" for part in body.split(b"\\n\\n") if part.strip()]
    return httpx2.Response(200, headers=response.headers, stream=Held(events))
script.handle = held
chat = nt.Chat(nt.Agent(client=script.client()))
chat
"""
SEND = """
await chat.send("Describe the table")
"""

LOG = """() => {
    const log = document.querySelector('.nt-log');
    return {top: log.scrollTop, bottom: log.scrollHeight - log.clientHeight};
}"""
AT_END = """() => {
    const log = document.querySelector('.nt-log');
    return log.scrollHeight - log.clientHeight - log.scrollTop <= 2;
}"""
# Resolves once the log's scroll position has held for 5 frames in a row (a wheel scroll is animated).
STILL = """() => new Promise((done) => {
    const log = document.querySelector('.nt-log');
    let last = log.scrollTop, same = 0;
    const frame = () => {
        same = log.scrollTop === last ? same + 1 : 0;
        last = log.scrollTop;
        same >= 5 ? done(last) : requestAnimationFrame(frame);
    };
    requestAnimationFrame(frame);
})"""
# The reply's finished blocks after its first 16 are in groups (js/src/text/streamed.ts): laid out with
# the page's CSS they must sit exactly where the same blocks without groups sit (margins collapsing
# across a group's edges as between siblings). A copy without the groups is put beside it and measured.
GEOMETRY = """() => {
    const md = document.querySelector('.nt-assistant[data-test-mark="reply"] .nt-md');
    const flat = md.cloneNode(true);
    for (const part of Array.from(flat.querySelectorAll('.nt-md-part'))) part.replaceWith(...part.childNodes);
    md.after(flat);
    const tops = (root) => Array.from(root.querySelectorAll('p'), (p) => Math.round(p.getBoundingClientRect().top - root.getBoundingClientRect().top));
    const result = {groups: md.querySelectorAll(':scope > .nt-md-part').length, children: Array.from(md.children, (c) => c.className || c.localName).join(' '),
                    grouped: tops(md), flat: tops(flat),
                    heights: [md.getBoundingClientRect().height, flat.getBoundingClientRect().height]};
    flat.remove();
    return result;
}"""


def test_scrolling_up_during_a_stream_stays_put_and_scrolling_back_down_follows_again(page, lab):
    for gate in ("go1", "go2"):
        (lab.root / gate).unlink(missing_ok=True)
    write_notebook(lab.root / "stream.ipynb", [SETUP, SEND])
    open_notebook(page, lab, "stream.ipynb")
    run_all(page)
    reply = page.locator(".nt-assistant", has_text="Paragraph 80:")
    reply.wait_for(timeout=PATIENT)
    page.wait_for_function(AT_END, timeout=PATIENT)  # held at the first gate, the log at the reply's end
    # the reply's element and its first paragraph, marked to be found again at the end
    reply.evaluate(
        "(el) => { el.dataset.testMark = 'reply'; el.querySelector('p').dataset.testMark = 'first'; }"
    )

    page.locator(".nt-log").hover()
    page.mouse.wheel(0, -1500)  # the person scrolls up to read
    top = page.evaluate(STILL)
    assert top < page.evaluate(LOG)["bottom"] - 500
    (lab.root / "go1").write_text("")  # the stream goes on, to the second gate
    page.locator(".nt-assistant", has_text="Paragraph 160:").wait_for(timeout=PATIENT)
    assert page.evaluate(STILL) == top  # the person reads on undisturbed
    assert page.evaluate(LOG)["bottom"] > top + 2000  # the reply grew below them
    page.get_by_role("button", name="New messages").wait_for(state="visible", timeout=PATIENT)

    page.mouse.wheel(0, 100_000)  # the person scrolls back down to the end
    page.wait_for_function(AT_END, timeout=PATIENT)
    page.evaluate(STILL)
    (lab.root / "go2").write_text("")  # the rest streams
    page.locator(".nt-assistant", has_text="The end.").wait_for(timeout=PATIENT)
    page.wait_for_function(AT_END, timeout=PATIENT)  # following again, to the reply's last line
    page.evaluate(STILL)
    assert page.evaluate(AT_END)
    assert page.get_by_role("button", name="New messages").is_hidden()

    # drawn in place: the reply's element and its first paragraph are the ones from the start
    marks = page.evaluate(
        """() => { const el = document.querySelector('.nt-assistant[data-test-mark="reply"]');
            return el && [el.querySelector('p').dataset.testMark, el.querySelectorAll('.nt-md > p').length,
                          el.textContent]; }"""
    )
    assert marks[0] == "first"
    missing = [i for i in range(240) if f"Paragraph {i}:" not in marks[2]]
    assert missing == [] and "The end." in marks[2], (missing, marks[1], marks[2][:400])

    # 241 blocks, the last two still open (the last line has no line end): 16 children of the reply,
    # then 223 in groups of 32, then the open two; laid out exactly as without the groups
    geometry = page.evaluate(GEOMETRY)
    assert geometry["groups"] == 7
    assert geometry["children"] == " ".join(["p"] * 16 + ["nt-md-part"] * 7 + ["p"] * 2)
    assert len(geometry["grouped"]) == 241 and geometry["grouped"] == geometry["flat"]
    assert geometry["heights"][0] == geometry["heights"][1]
