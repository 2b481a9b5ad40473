"""Custom renderers and the browser-executed built-ins in real JupyterLab and Chromium.

One JupyterLab and one Chromium serve the module. One notebook runs two turns. In the first the model
calls every case that ends by itself or by the person's hand at once (a renderer answered, skipped,
throwing, rejecting, never loading; each built-in succeeding, needing a click, failing), with a timeout
far beyond any wait, so however slow the machine the person's clicks find their cards; in the second,
with a short timeout, the cases nobody answers (a renderer never answering, each built-in unclicked).
The fixture plays the person, then each test checks what the model was told. The browser's blockers are stood in for by an init script: a pop-up or
a clipboard write whose text says so is refused without a user gesture (`navigator.userActivation`),
exactly as Chromium's blockers decide, and allowed once the person clicks.
"""

from pathlib import Path

import pytest

from tests.support.lab import (
    ARTIFACTS,
    CHROMIUM_ARGS,
    PATIENT,
    Lab,
    chromium_path,
    open_notebook,
    run_all,
    wait_for_file,
    write_notebook,
)

pytestmark = pytest.mark.browser

TIMEOUT = 15  # seconds every tool waits in the second turn, so the cases nobody answers end soon
LONG_TIMEOUT = 900  # seconds every tool waits in the first turn: the person always acts well before

# "Blocked unless clicked" means a click on the card's own button within the last second: the browser's
# transient activation (navigator.userActivation.isActive) also counts the key press that ran the cells
# for a few seconds, so a card drawn quickly enough was let through and offered no button to click.
BLOCKERS = """(() => {
  let clicked = 0;
  document.addEventListener("click", (e) => {
    if (e.target instanceof Element && e.target.closest(".nt-open, .nt-copy")) clicked = Date.now();
  }, true);
  const gesture = () => Date.now() - clicked < 1000;
  // The unanswered cases are refused whatever came before: a click on the first turn's cards can fall
  // within the second of the second turn's calls (a real browser's activation lasts even longer).
  const never = (s) => s.includes("never-clicked") || s.includes("never clicked");
  const realOpen = window.open.bind(window);
  window.open = function (url, ...rest) {
    const u = String(url);
    if (u.includes("throws")) throw new DOMException("opening tabs is disabled here", "SecurityError");
    if (never(u) || (u.includes("blocked") && !gesture())) return null;
    return realOpen(url, ...rest);
  };
  const clip = navigator.clipboard;
  if (clip) {
    const realWrite = clip.writeText.bind(clip);
    clip.writeText = (text) => {
      if (text.startsWith("broken")) return Promise.reject(new DOMException("the clipboard is locked", "DataError"));
      if (never(text) || (text.startsWith("needs-gesture") && !gesture()))
        return Promise.reject(new DOMException("Write permission denied.", "NotAllowedError"));
      return realWrite(text);
    };
  }
})();"""

RENDERER = r"""
export default function ({ input, el, theme, submit, skip }) {
  if (input.mode === "throw") throw new TypeError("no canvas here");
  if (input.mode === "reject") return Promise.reject(new Error("async boom"));
  const slider = document.createElement("input");
  slider.type = "range"; slider.min = "0"; slider.max = "100"; slider.value = "40";
  slider.setAttribute("aria-label", "Threshold");
  const use = document.createElement("button"); use.textContent = "Use it";
  const none = document.createElement("button"); none.textContent = "None fits";
  const shown = document.createElement("span"); shown.className = "seen-theme"; shown.textContent = theme;
  use.onclick = () => submit({ value: Number(slider.value) });
  none.onclick = () => skip("no threshold fits");
  el.append(slider, use, none, shown);
}
"""

SETUP = """
import json
import notebook_tools as nt
from notebook_tools import testing as t

RENDERER = {renderer!r}

@nt.tool(executor="frontend", timeout={patient}, renderer=nt.Renderer(esm=RENDERER),
         output_schema={{"type": "object", "properties": {{"value": {{"type": "integer", "maximum": 100}}}},
                        "required": ["value"]}})
def pick_threshold(mode: str = "ask") -> str:
    '''Ask for a threshold with a slider.'''

@nt.tool(executor="frontend", timeout={patient}, renderer=nt.Renderer(esm="export default (api) => {{ not javascript"))
def broken_renderer() -> str:
    '''A renderer whose module does not load.'''

tools = [pick_threshold, broken_renderer, nt.open_url, nt.copy_to_clipboard, nt.download_file, nt.notify]
for builtin in tools[2:]:
    builtin.timeout = {patient}  # this kernel only

open("report.csv", "w").write("a,b\\n1,2\\n")
open(".env", "w").write("TOKEN=secret")
base = {base!r}
u, c, d, n = "open_url", "copy_to_clipboard", "download_file", "notify"
script = t.ScriptedTransport(
    t.turn(
        "Every case at once.",
        t.tool_use("pick_threshold", {{}}, id="r_answer"),
        t.tool_use("pick_threshold", {{}}, id="r_skip"),
        t.tool_use("pick_threshold", {{"mode": "throw"}}, id="r_throw"),
        t.tool_use("pick_threshold", {{"mode": "reject"}}, id="r_reject"),
        t.tool_use("broken_renderer", {{}}, id="r_load"),
        t.tool_use(u, {{"url": base + "/api/status?ok"}}, id="u_ok"),
        t.tool_use(u, {{"url": base + "/api/status?blocked"}}, id="u_blocked"),
        t.tool_use(u, {{"url": base + "/api/status?throws"}}, id="u_fail"),
        t.tool_use(c, {{"text": "SELECT 1"}}, id="c_ok"),
        t.tool_use(c, {{"text": "needs-gesture: SELECT 2"}}, id="c_gesture"),
        t.tool_use(c, {{"text": "broken"}}, id="c_fail"),
        t.tool_use(d, {{"path": "report.csv", "filename": "sales report.csv"}}, id="d_ok"),
        t.tool_use(d, {{"path": ".env"}}, id="d_hidden"),
        t.tool_use(d, {{"path": "../outside.txt"}}, id="d_outside"),
        t.tool_use(n, {{"message": "The nightly job finished.", "level": "success"}}, id="n_ok"),
        t.tool_use(n, {{"message": "   "}}, id="n_fail"),
    ),
    t.reply("All done."),
    t.turn(
        "The cases nobody answers.",
        t.tool_use("pick_threshold", {{}}, id="r_silent"),
        t.tool_use(u, {{"url": base + "/api/status?blocked-and-never-clicked"}}, id="u_timeout"),
        t.tool_use(c, {{"text": "needs-gesture and never clicked"}}, id="c_timeout"),
        t.tool_use(d, {{"path": "report.csv"}}, id="d_timeout"),
    ),
    t.reply("Nobody answered."),
)
chat = nt.Chat(nt.Agent(client=script.client(), frontend_tools=tools))
chat
"""

RUN = "result = await chat.send('go')"
UNANSWERED = f"""
import time
for tool in tools:
    tool.timeout = {TIMEOUT}
started = time.monotonic()
await chat.send('again')
seconds = time.monotonic() - started
"""
REPORT = """
told = [b for r in script.requests for b in r['messages'][-1]['content'] if b['type'] == 'tool_result']
acks = {k: a.status for k, a in chat.acks.items()}
json.dump({'told': told, 'acks': acks, 'seconds': seconds}, open('result.json', 'w'))
"""


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS, headless=True)
        yield b
        b.close()


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    server = Lab(tmp_path_factory.mktemp("lab"))
    yield server
    server.close()


def card(page, tool_use_id):
    return page.locator(f'section.nt-prompt[data-tool-use-id="{tool_use_id}"]')


@pytest.fixture(scope="module")
def session(browser, lab):
    """Run the turn, act as the person, and return what the model was told and what the page saw."""
    (lab.root / "outside.txt").write_text(
        "not in the folder"
    )  # lab.root is the server's root, not the chat's
    folder = lab.root / "work"
    folder.mkdir()
    setup = SETUP.format(renderer=RENDERER, patient=LONG_TIMEOUT, base=lab.base)
    write_notebook(folder / "renderers.ipynb", [setup, RUN, UNANSWERED, REPORT])
    context = browser.new_context(viewport={"width": 1100, "height": 900}, accept_downloads=True)
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=lab.base)
    context.add_init_script(BLOCKERS)
    page = context.new_page()
    downloads, popups, seen = [], [], {}
    page.on("download", lambda d: downloads.append(d))
    context.on("page", lambda p: popups.append(p) if p is not page else None)
    open_notebook(page, lab, "work/renderers.ipynb")
    run_all(page)
    page.locator(".seen-theme").first.wait_for(timeout=PATIENT)
    seen["theme"] = page.locator(".seen-theme").first.text_content()
    seen["toast"] = page.locator(".nt-toast").first.text_content(timeout=PATIENT)
    answer = card(page, "r_answer")
    answer.get_by_label("Threshold").fill("73")
    answer.get_by_role("button", name="Use it").click()
    card(page, "r_skip").get_by_role("button", name="None fits").click()
    seen["blocked_card"] = card(page, "u_blocked").text_content()
    card(page, "u_blocked").get_by_role("button", name="Open").click()
    card(page, "c_gesture").get_by_role("button", name="Copy").click()
    card(page, "d_ok").get_by_role("button", name="Save sales report.csv").click()
    ARTIFACTS.mkdir(exist_ok=True)
    page.locator(".nt-chat").screenshot(path=str(ARTIFACTS / "renderers-open.png"))
    result = wait_for_file(folder / "result.json", timeout=TIMEOUT + 120)
    seen["seconds"] = result["seconds"]
    seen["clipboard"] = page.evaluate("() => navigator.clipboard.readText()")
    seen["cards"] = {i: card(page, i).text_content() for i in ("r_throw", "r_load", "u_fail")}
    seen["downloads"] = [(d.suggested_filename, Path(d.path()).read_bytes()) for d in downloads]
    seen["popups"] = [p.url for p in popups]
    told = {b["tool_use_id"]: b for b in result["told"]}
    yield told, result["acks"], seen
    context.close()


def is_error(block):
    return block.get("is_error", False)


def test_custom_renderer_answer_reaches_the_model_checked(session):
    told, acks, seen = session
    assert told["r_answer"]["content"] == '{"value": 73}' and not is_error(told["r_answer"])
    assert acks["r_answer"] == "success"
    assert seen["theme"] == "light"


def test_custom_renderer_skip_tells_the_reason(session):
    told, _, _ = session
    assert told["r_skip"]["content"] == "Skipped by the user: no threshold fits" and is_error(told["r_skip"])


def test_custom_renderer_that_throws_or_rejects_fails_the_call_and_says_why(session):
    told, acks, seen = session
    assert told["r_throw"]["content"] == (
        "The frontend could not run 'pick_threshold': the renderer threw TypeError: no canvas here"
    )
    assert told["r_reject"]["content"] == (
        "The frontend could not run 'pick_threshold': the renderer failed: Error: async boom"
    )
    assert is_error(told["r_throw"]) and is_error(told["r_reject"])
    assert acks["r_throw"] == acks["r_reject"] == "failed"
    assert "no canvas here" in seen["cards"]["r_throw"]  # the card says so too


def test_custom_renderer_that_never_loads_fails_the_call(session):
    told, acks, seen = session
    assert told["r_load"]["content"].startswith(
        "The frontend could not run 'broken_renderer': the renderer for broken_renderer: "
        "its module could not be loaded:"
    )
    assert acks["r_load"] == "failed"
    assert "could not be loaded" in seen["cards"]["r_load"]


def test_custom_renderer_that_never_answers_times_out(session):
    told, acks, _ = session
    assert told["r_silent"]["content"] == f"The user did not answer within {TIMEOUT} seconds."
    assert acks["r_silent"] == "timeout"


def test_open_url_success_blocked_then_clicked_failure_and_timeout(session, lab):
    told, acks, seen = session
    assert told["u_ok"]["content"] == f"Opened {lab.base}/api/status?ok in a new browser tab."
    assert told["u_blocked"]["content"] == (
        f"Opened {lab.base}/api/status?blocked in a new browser tab "
        "(the browser blocked the pop-up, so the user clicked the button)."
    )
    assert told["u_fail"]["content"].startswith(
        "The frontend could not run 'open_url': the browser could not open "
    )
    assert "opening tabs is disabled here" in told["u_fail"]["content"]
    assert told["u_timeout"]["content"] == f"The user did not answer within {TIMEOUT} seconds."
    assert [acks[k] for k in ("u_ok", "u_blocked", "u_fail", "u_timeout")] == [
        "success",
        "success",
        "failed",
        "timeout",
    ]
    assert "The browser blocked the pop-up" in seen["blocked_card"]
    assert sorted(seen["popups"]) == [f"{lab.base}/api/status?blocked", f"{lab.base}/api/status?ok"]


def test_copy_to_clipboard_success_gesture_then_success_failure_and_timeout(session):
    told, acks, seen = session
    assert told["c_ok"]["content"] == "Copied 8 characters to the user's clipboard."
    assert told["c_gesture"]["content"] == (
        "Copied 23 characters to the user's clipboard (the browser wanted a click before writing to "
        "the clipboard, so the user clicked the button)."
    )
    assert told["c_fail"]["content"] == (
        "The frontend could not run 'copy_to_clipboard': the browser could not write to the clipboard: "
        "DataError: the clipboard is locked"
    )
    assert told["c_timeout"]["content"] == f"The user did not answer within {TIMEOUT} seconds."
    assert [acks[k] for k in ("c_ok", "c_gesture", "c_fail", "c_timeout")] == [
        "success",
        "success",
        "failed",
        "timeout",
    ]
    assert seen["clipboard"] == "needs-gesture: SELECT 2"  # the last write, after the click


def test_download_file_saves_on_click_never_by_itself_nor_hidden_or_outside_files(session):
    told, acks, seen = session
    assert told["d_ok"]["content"].startswith("The user clicked Save: sales report.csv (8 bytes) went to")
    assert seen["downloads"] == [("sales report.csv", b"a,b\n1,2\n")]  # only the one clicked
    assert "hidden" in told["d_hidden"]["content"] and is_error(told["d_hidden"])
    assert "outside the folder" in told["d_outside"]["content"] and is_error(told["d_outside"])
    assert told["d_timeout"]["content"] == f"The user did not answer within {TIMEOUT} seconds."
    assert [acks[k] for k in ("d_ok", "d_hidden", "d_outside", "d_timeout")] == [
        "success",
        "failed",
        "failed",
        "timeout",
    ]


def test_notify_shows_a_toast_and_jupyterlabs_notification_or_fails(session):
    told, acks, seen = session
    assert told["n_ok"]["content"] == (
        "Showed the notification to the user in the chat and JupyterLab's notifications."
    )
    assert "The nightly job finished." in seen["toast"]
    assert told["n_fail"]["content"] == "The frontend could not run 'notify': the notification is empty"
    assert (acks["n_ok"], acks["n_fail"]) == ("success", "failed")


def test_the_cases_nobody_answers_end_with_the_tools_timeout_not_later(session):
    _, _, seen = session
    assert TIMEOUT <= seen["seconds"] < TIMEOUT + 45  # the second turn: one timeout, not one per call
