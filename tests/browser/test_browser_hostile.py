"""Hostile text in real JupyterLab: every payload of tests/support/hostile_payloads.json through every surface.

A scripted model puts the whole corpus (the one js/src/text/sanitize.test.ts checks in node) into the
assistant's markdown, tool names, arguments, descriptions, results and errors, every prompt's fields,
refusal reasons, file names, the notice banner, a manual run and the person's own messages. Chromium
then checks that nothing ran (no dialog, no canary), nothing was fetched from another host, and the
widget's DOM keeps to the allow-list: no handlers, no inline style, no forms/frames/style/SVG, links
only http/https/mailto in a new tab, images only data:, nothing position:fixed, nothing covering
JupyterLab, and clicking around the payloads navigates nowhere.
"""

import json
import re
import time
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from tests.browser.test_browser import lab  # noqa: F401  (the shared JupyterLab, fresh per module; Chromium comes from conftest)
from tests.support.lab import PATIENT, open_notebook, run_all, wait_for_path, write_notebook

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
CORPUS_PATH = Path(__file__).resolve().parents[1] / "support" / "hostile_payloads.json"
CORPUS = json.loads(CORPUS_PATH.read_text())
PAYLOADS = [p["text"] for p in CORPUS["payloads"]]
ALL = "\n\n".join(PAYLOADS)
ONE_LINE = " ".join(p.replace("\n", " ") for p in PAYLOADS)
SCREENSHOT = ROOT / "docs" / "screenshots" / "hostile.png"

# What js/src/text/sanitize.ts allows in rendered markdown, and the elements the widget itself builds.
MD_TAGS = [
    "a", "abbr", "b", "blockquote", "br", "code", "dd", "del", "div", "dl", "dt", "em",
    "h1", "h2", "h3", "h4", "h5", "h6", "hr", "i", "img", "ins", "kbd", "li", "mark", "ol", "p", "pre",
    "s", "samp", "small", "span", "strong", "sub", "sup", "table", "tbody", "td", "tfoot", "th", "thead",
    "tr", "u", "ul", "var",
]  # fmt: skip
MD_ATTRS = ["href", "src", "alt", "title", "colspan", "rowspan", "align", "start", "target", "rel", "class"]
# the sanitizer's classes (js/src/text/sanitize.ts OUTPUT_CLASSES) and a long reply's groups of blocks (streamed.ts)
MD_CLASSES = [
    "nt-md",
    "nt-md-inline",
    "nt-md-host",
    "nt-md-image",
    "nt-md-blocked",
    "nt-md-scroll",
    "nt-md-part",
]
CHROME_TAGS = [
    "div", "span", "section", "button", "textarea", "input", "select", "option", "label",
    "details", "summary", "pre", "code", "progress",
]  # fmt: skip
LOCAL_HOSTS = {"127.0.0.1", "localhost", "::1", "[::1]"}


def plain(text: str) -> str:
    """What js/src/text/sanitize.ts `plain` shows: bidirectional overrides made visible."""
    return re.sub("[\u202a-\u202e\u2066-\u2069]", lambda m: f"⟨U+{ord(m.group()):X}⟩", text)


def file_names() -> list[str]:
    names = []
    for i, p in enumerate(PAYLOADS):
        name = f"{i:03d} " + p.replace("/", "\u2215").replace("\x00", "")
        while len(name.encode()) > 200:
            name = name[:-1]
        names.append(name)
    return names


SETUP = f"""
import asyncio, json, pathlib
import notebook_tools as nt
from notebook_tools import testing as t

PAYLOADS = [p["text"] for p in json.load(open({str(CORPUS_PATH)!r}))["payloads"]]
ALL = "\\n\\n".join(PAYLOADS)
ONE_LINE = " ".join(p.replace("\\n", " ") for p in PAYLOADS)

@nt.tool
def echo(text: str) -> str:
    '''Return the text.

    Args:
        text: The text.
    '''
    return text

@nt.tool
def explode(text: str) -> str:
    '''Fail with the text.

    Args:
        text: The text.
    '''
    raise RuntimeError(text)

def _risky(text: str, choice: str) -> str:
    return "ran: " + text

risky = nt.tool(_risky, name="risky", description=ONE_LINE, needs_approval=True, input_schema={{
    "type": "object",
    "properties": {{"text": {{"type": "string", "description": ONE_LINE}}, "choice": {{"type": "string", "enum": PAYLOADS}}}},
    "required": ["text", "choice"],
}})

@nt.tool(mode="both", description=ONE_LINE)
def manual_echo(text: str = "") -> str:
    '''Echo every payload.

    Args:
        text: Anything.
    '''
    return ALL

script = t.ScriptedTransport(
    t.turn(
        ALL,
        t.tool_use("echo", {{"text": ALL}}, id="h_echo"),
        t.tool_use("explode", {{"text": ALL}}, id="h_explode"),
        t.tool_use(ONE_LINE, {{"text": ALL}}, id="h_unknown"),
        t.tool_use("risky", {{"text": ALL, "choice": PAYLOADS[0]}}, id="h_risky_ok"),
        t.tool_use("risky", {{"text": ALL, "choice": PAYLOADS[1]}}, id="h_risky_no"),
        t.tool_use("user_confirm", {{"message": ALL, "confirm_label": ONE_LINE, "deny_label": ONE_LINE}}, id="h_confirm"),
        t.tool_use("ask_text", {{"prompt": ALL, "placeholder": ONE_LINE, "default": ALL, "multiline": True}}, id="h_text"),
        t.tool_use("select_option", {{"prompt": ALL, "options": PAYLOADS, "multiple": True}}, id="h_select"),
        t.tool_use("pick_file", {{"prompt": ALL}}, id="h_file"),
    ),
    t.reply(ALL),
    t.HTTPFault(400, ALL),  # the person's typed message gets an API error echoing every payload
    text_chunk=512, json_chunk=4096,
)
agent = nt.Agent(client=script.client(), tools=[echo, explode, risky, manual_echo],
                 frontend_tools=[nt.user_confirm, nt.ask_text, nt.select_option, nt.pick_file])
chat = nt.Chat(agent, notice=ONE_LINE)

async def until_pending(*ids):
    while not all(chat.prompts.get(i, {{}}).get("status") == "pending" for i in ids):
        await asyncio.sleep(0.05)

async def stage(name):
    pathlib.Path(name + ".ready").write_text("1")
    while not pathlib.Path(name + ".go").exists():
        await asyncio.sleep(0.05)

chat
"""
APPROVALS = """
task = chat.send_nowait(ALL)
await until_pending("h_risky_ok", "h_risky_no")
await stage("approvals")
chat.broker.answer("h_risky_ok", {"value": {"approved": True, "edited_input": {"text": ONE_LINE, "choice": PAYLOADS[2]}}})
chat.broker.answer("h_risky_no", {"value": {"approved": False, "reason": ALL}})
"""
PROMPTS = """
await until_pending("h_confirm", "h_text", "h_select", "h_file")
# refused answers whose reasons echo payloads: the prompts stay open, showing the reason
chat.broker.answer("h_select", {"value": [PAYLOADS[3] + " (not an option)"]})
chat.broker.answer("h_file", {"value": {"paths": ["hostile/" + PAYLOADS[4] + ".missing"]}})
await stage("prompts")
chat.broker.answer("h_confirm", {"value": "yes"})
chat.broker.answer("h_text", {"value": ALL})
chat.broker.answer("h_select", {"value": PAYLOADS[:5]})
chat.broker.answer("h_file", {"value": {"paths": [sorted(p.as_posix() for p in pathlib.Path("hostile").iterdir())[0]]}})
"""
FINISH = """
await task
await chat.run_tool("manual_echo", {"text": ALL})
pathlib.Path("done.ready").write_text("1")
"""

SCAN = """
([mdTags, mdAttrs, mdClasses, chromeTags]) => {
  const problems = [];
  const roots = Array.from(document.querySelectorAll('.nt-chat'));
  if (roots.length === 0) problems.push('no widget on the page');
  const forbidden = 'form, iframe, frame, frameset, style, script, noscript, template, svg, math, object, embed, base, meta, link, video, audio, picture, source, dialog';
  for (const root of roots) {
    for (const el of root.querySelectorAll(forbidden)) problems.push(`forbidden <${el.localName}>`);
    for (const el of root.querySelectorAll('*')) {
      const tag = el.localName;
      const md = el.closest('.nt-md');
      if (el.namespaceURI !== 'http://www.w3.org/1999/xhtml') problems.push(`foreign <${tag}>`);
      if (md ? !mdTags.includes(tag) : !(chromeTags.includes(tag) || mdTags.includes(tag))) problems.push(`<${tag}>${md ? ' in markdown' : ''}`);
      for (const attr of Array.from(el.attributes)) {
        const name = attr.name.toLowerCase();
        if (name.startsWith('on')) problems.push(`${name} on <${tag}>`);
        if (name === 'style') problems.push(`style="${attr.value.slice(0, 60)}" on <${tag}>`);
        if (md && !mdAttrs.includes(name)) problems.push(`${name} on <${tag}> in markdown`);
        if (['srcset', 'srcdoc', 'action', 'formaction', 'xlink:href', 'poster', 'background', 'data', 'ping', 'formtarget'].includes(name)) problems.push(`${name} on <${tag}>`);
      }
      if (el.id && !el.id.startsWith('nt-')) problems.push(`id ${el.id}`);
      for (const cls of Array.from(el.classList)) {
        if (!cls.startsWith('nt-')) problems.push(`class ${cls}`);
        if (md && !mdClasses.includes(cls)) problems.push(`class ${cls} in markdown`);
      }
      const href = el.getAttribute('href');
      if (href !== null) {
        let url = null;
        try { url = new URL(href); } catch { problems.push(`relative href ${href.slice(0, 60)}`); }
        if (url && !['http:', 'https:', 'mailto:'].includes(url.protocol)) problems.push(`href ${href.slice(0, 60)}`);
        if (el.getAttribute('target') !== '_blank' || el.getAttribute('rel') !== 'noopener noreferrer nofollow') problems.push(`link ${href.slice(0, 60)} without target/rel`);
      }
      const src = el.getAttribute('src');
      if (src !== null && !/^data:image\\/(png|jpeg|gif|webp);base64,/i.test(src)) problems.push(`src ${src.slice(0, 60)}`);
      if (getComputedStyle(el).position === 'fixed') problems.push(`position:fixed <${tag}>`);
    }
  }
  // Nothing from a payload styles the page; JupyterLab is still there and visible.
  for (const s of document.querySelectorAll('style, link')) {
    const text = (s.textContent || '') + (s.getAttribute('href') || '');
    if (/attacker\\.example|body\\{display:none\\}|\\.jp-Notebook\\{visibility:hidden\\}/.test(text)) problems.push(`a payload stylesheet is on the page: ${text.slice(0, 80)}`);
  }
  for (const b of document.querySelectorAll('base, meta[http-equiv]')) problems.push(`<${b.localName}> on the page`);
  if (getComputedStyle(document.body).display === 'none') problems.push('body hidden');
  const nb = document.querySelector('.jp-Notebook');
  if (!nb || getComputedStyle(nb).visibility === 'hidden') problems.push('notebook hidden');
  const bar = document.querySelector('.jp-NotebookPanel-toolbar');
  if (bar) {
    const r = bar.getBoundingClientRect();
    const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
    if (!hit || !bar.contains(hit)) problems.push(`the notebook toolbar is covered by ${hit && hit.outerHTML.slice(0, 80)}`);
  }
  if (window.__pwned !== undefined) problems.push(`canary: ${window.__pwned}`);
  return problems;
}
"""

CANARY = """
for (const name of ['alert', 'confirm', 'prompt', 'print']) {
  window[name] = function () { window.__pwned = name; };
}
"""


class Watch:
    """Requests to other hosts, dialogs, popups and navigations seen by the browser context."""

    def __init__(self, context, page):
        self.remote: list[str] = []
        self.dialogs: list[str] = []
        self.popups: list[str] = []
        self.navigations: list[str] = []
        self.page = page
        context.route("**/*", self._route)
        context.on("page", lambda p: self.popups.append(p.url))
        page.on("dialog", self._dialog)
        page.on("framenavigated", lambda f: self.navigations.append(f.url) if f == page.main_frame else None)

    def _route(self, route):
        url = route.request.url
        parts = urlsplit(url)
        if parts.scheme in ("data", "blob") or (parts.hostname or "") in LOCAL_HOSTS:
            route.continue_()
        else:
            self.remote.append(url)
            route.abort()

    def _dialog(self, dialog):
        self.dialogs.append(f"{dialog.type}: {dialog.message[:80]}")
        dialog.dismiss()

    def problems(self) -> list[str]:
        return (
            [f"request to {u[:100]}" for u in self.remote]
            + [f"dialog {d}" for d in self.dialogs]
            + [f"popup {u}" for u in self.popups]
        )


def scan(page, watch, where: str) -> list[str]:
    found = page.evaluate(SCAN, [MD_TAGS, MD_ATTRS, MD_CLASSES, CHROME_TAGS]) + watch.problems()
    return [f"{where}: {p}" for p in dict.fromkeys(found)]


def texts(page, selector: str) -> list[str]:
    return page.eval_on_selector_all(selector, "els => els.map(e => e.textContent)")


NEIGHBOURS = """
() => {
  // Points on payload text that is not a link: the host after a link, stand-ins, dropped links' labels.
  const points = [];
  const els = document.querySelectorAll('.nt-md-host, .nt-md-blocked, .nt-assistant .nt-md p, .nt-assistant .nt-md td, .nt-assistant .nt-md div');
  for (const el of els) {
    el.scrollIntoView({block: 'center'});
    const r = el.getBoundingClientRect();
    if (r.width < 2 || r.height < 2) continue;
    const x = r.right - 2, y = r.top + r.height / 2;
    const hit = document.elementFromPoint(x, y);
    if (!hit || !el.contains(hit)) { points.push({covered: hit ? hit.outerHTML.slice(0, 80) : 'nothing'}); continue; }
    if (hit.closest('a')) continue;
    points.push({text: el.textContent.slice(0, 40)});
    if (points.length >= 30) break;
  }
  return points;
}
"""


def click_around(page, watch) -> list[str]:
    """Click payload text next to links and where links and buttons were: nothing may navigate or open."""
    problems = []
    url = page.url
    points = page.evaluate(NEIGHBOURS)
    problems += [f"payload text covered by {p['covered']}" for p in points if "covered" in p]
    clicked = 0
    for target in page.locator(".nt-md-host, .nt-md-blocked, .nt-assistant .nt-md p:not(:has(a))").all()[:30]:
        target.scroll_into_view_if_needed()
        box = target.bounding_box()
        if not box or box["width"] < 2:
            continue
        x, y = box["x"] + box["width"] - 2, box["y"] + box["height"] / 2
        if page.evaluate("([x, y]) => !!document.elementFromPoint(x, y)?.closest('a')", [x, y]):
            continue
        page.mouse.click(x, y)
        clicked += 1
    assert clicked >= 10, clicked
    page.wait_for_timeout(300)
    if page.url != url:
        problems.append(f"the page navigated to {page.url}")
    return problems + watch.problems()


def test_every_payload_through_every_surface(browser, lab):  # noqa: F811
    # everything lives in the server's root: the notebook, the files it lists, the cells' handshake files
    root = lab.root
    started = time.monotonic()
    timings = {}
    hostile = root / "hostile"
    hostile.mkdir()
    names = file_names()
    for name in names:
        (hostile / name).write_text("x")
    write_notebook(root / "hostile.ipynb", [SETUP, APPROVALS, PROMPTS, FINISH])
    context = browser.new_context(viewport={"width": 1200, "height": 1400})
    context.add_init_script(CANARY)
    # Every surface is read and scanned at once, so the log draws every item (issue 40's drawing near
    # sight has its own browser test, tests/browser/test_browser_long_session.py; its placeholders
    # hold plain text only).
    context.add_init_script("window.notebookToolsDrawAll = true")
    page = context.new_page()
    watch = Watch(context, page)
    problems: list[str] = []
    try:
        open_notebook(page, lab, "hostile.ipynb")
        timings["open"] = time.monotonic() - started
        run_all(page)

        # 1. approvals pending: description, arguments, the edit form (enum options, descriptions)
        wait_for_path(root / "approvals.ready", poll=0.05)
        card = page.locator('section.nt-prompt.nt-pending[data-tool-use-id="h_risky_ok"]')
        card.wait_for(timeout=PATIENT)
        page.locator(
            'section.nt-prompt.nt-pending[data-tool-use-id="h_risky_ok"] .nt-approval-args'
        ).wait_for()
        card.get_by_role("button", name="Edit arguments").click()
        assert texts(page, '[data-tool-use-id="h_risky_ok"] .nt-approval-what') == [plain(ONE_LINE)]
        options = texts(page, '[data-tool-use-id="h_risky_ok"] .nt-editor option')
        assert options == [plain(p) for p in PAYLOADS]
        assert texts(page, ".nt-scripted") == [plain(ONE_LINE)]
        args = texts(page, '[data-tool-use-id="h_risky_ok"] .nt-approval-args')[0]
        assert json.loads(args) == {"text": plain(ALL), "choice": plain(PAYLOADS[0])}
        # the Tools menu: a manual tool whose description is every payload
        page.get_by_role("button", name="Tools").click()
        page.locator(".nt-tool-choice", has_text="manual_echo").click()
        page.get_by_role("button", name="Run manual_echo").wait_for()
        assert plain(ONE_LINE) in texts(page, ".nt-tools-panel div")
        problems += scan(page, watch, "approvals")
        timings["approvals"] = time.monotonic() - started
        page.locator(".nt-tools-panel").get_by_role("button", name="Close").click()
        (root / "approvals.go").write_text("1")

        # 2. prompts pending, two of them showing why an answer was refused
        wait_for_path(root / "prompts.ready", poll=0.05)
        page.locator(
            'section.nt-prompt.nt-pending[data-tool-use-id="h_file"] .nt-error', has_text="is not a file"
        ).wait_for(timeout=PATIENT)
        page.locator(
            'section.nt-prompt.nt-pending[data-tool-use-id="h_select"] .nt-error',
            has_text="not among the options",
        ).wait_for()
        select_labels = texts(page, '[data-tool-use-id="h_select"] .nt-option span')
        assert select_labels == [plain(p) for p in PAYLOADS]
        confirm_buttons = texts(page, '[data-tool-use-id="h_confirm"] .nt-prompt-body .nt-row button')
        assert confirm_buttons == [plain(ONE_LINE), plain(ONE_LINE)]
        for tid in ("h_confirm", "h_text", "h_select", "h_file"):
            # the question is inline markdown, sanitized (its text checked against the corpus in node)
            assert len(texts(page, f'[data-tool-use-id="{tid}"] .nt-question > .nt-md.nt-md-inline')) == 1
        placeholder = page.locator('[data-tool-use-id="h_text"] textarea').get_attribute("placeholder")
        assert placeholder == plain(ONE_LINE)
        assert (
            page.locator('[data-tool-use-id="h_text"] textarea').input_value() == ALL
        )  # the answer's data, as given
        # file names in the kernel's folder
        file_card = page.locator('[data-tool-use-id="h_file"]')
        file_card.locator("details.nt-browse > summary").click()
        file_card.locator(".nt-entry.nt-dir", has_text="hostile/").click()
        file_card.locator(".nt-where", has_text="/hostile").wait_for()  # the folder, named in full
        file_card.locator(".nt-entry.nt-file").nth(len(names) - 1).wait_for()
        shown = [t.rsplit("1 B", 1)[0] for t in texts(page, '[data-tool-use-id="h_file"] .nt-entry.nt-file')]
        assert sorted(shown) == sorted(plain(n) for n in names)
        problems += scan(page, watch, "prompts")
        timings["prompts"] = time.monotonic() - started
        (root / "prompts.go").write_text("1")

        # 3. everything answered: results, errors, the reply, a manual run; then the person types
        wait_for_path(root / "done.ready", poll=0.05)
        # the card named manual_echo (the unknown tool's error also lists manual_echo among the tools)
        manual = page.locator(".nt-tool").filter(
            has=page.locator(".nt-tool-name").get_by_text("manual_echo", exact=True)
        )
        manual.locator(".nt-result").wait_for(timeout=PATIENT)
        box = page.get_by_label("Message", exact=True)
        box.fill("/tools")
        box.press("Enter")
        page.locator(".nt-notice", has_text="manual_echo: ").wait_for()
        box.fill(ALL)
        box.press("Enter")
        page.locator(".nt-notice.nt-error", has_text="BadRequestError").wait_for(timeout=PATIENT)
        bubbles = texts(page, ".nt-user .nt-bubble")
        # the person's messages: the first as sent, the typed one after the note of the manual run
        assert bubbles[0] == plain(ALL) and bubbles[-1].endswith(plain(ALL))
        assert texts(page, '[data-tool-use-id="h_unknown"] .nt-tool-name') == [plain(ONE_LINE)]
        results = {
            t: texts(page, f'[data-tool-use-id="{t}"] .nt-result pre')
            for t in ("h_echo", "h_explode", "h_unknown")
        }
        assert results["h_echo"][0][:2000] == plain(ALL)[:2000]  # the kernel shortens long results
        assert "RuntimeError: <script>alert(1)</script>" in results["h_explode"][0]
        assert "Unknown tool" in results["h_unknown"][0]
        assert page.locator(".nt-assistant .nt-md").count() == 2
        # a remote image is a link that shows its host, and was not fetched
        stand_in = page.locator(".nt-assistant a.nt-md-image", has_text="exfil").first
        assert stand_in.inner_text() == f"🖼 image from {CORPUS['remote_host']}: exfil"
        problems += scan(page, watch, "answered")
        timings["answered"] = time.monotonic() - started
        problems += click_around(page, watch)
        problems += scan(page, watch, "after clicks")
        timings["clicks"] = time.monotonic() - started

        SCREENSHOT.parent.mkdir(parents=True, exist_ok=True)
        page.evaluate(
            "() => document.querySelector('.nt-assistant a.nt-md-image').scrollIntoView({block: 'center'})"
        )
        page.screenshot(path=str(SCREENSHOT))
    finally:
        context.close()
    print("timings (s since start):", {k: round(v, 1) for k, v in timings.items()})
    assert problems == [], "\n".join(problems[:80])
    assert time.monotonic() - started < 90
