"""MCP Apps in real JupyterLab: the ext-apps example server nobody here wrote
(`@modelcontextprotocol/server-basic-vanillajs`, npm) shows its interface in the tool's card; a person
uses it (its tool call allowed on a card, its message sent as theirs after a yes, its link declined),
reloads the page and restarts the kernel mid-use; the counter app of tests/mcp/apps_server.py checks
theming and full screen."""

import json
import sys
from pathlib import Path

import pytest

from tests.browser.test_browser_reload import save_and_reload
from tests.mcp.servers import HERE, app_cell
from tests.mcp.test_mcp_apps import BASIC
from tests.support.lab import (
    PATIENT,
    command,
    open_notebook,
    run_all,
    save_widget_state,
    set_theme,
    wait_for_file,
    write_notebook,
)

pytestmark = pytest.mark.browser
SCREENSHOTS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"

SETUP = f"""
import json
import notebook_tools as nt
from notebook_tools import testing as t

store = nt.SQLiteStore("apps.db")
def make_agent(script):
    server = nt.MCPServer.stdio({str(BASIC)!r}, ["--stdio"], name="basic")
    return nt.Agent(script.client(), model="claude-test", mcp_servers=[server], store=store)
script = t.ScriptedTransport(
    t.turn(t.tool_use("basic", id="open")),
    t.turn(t.tool_use("get-time", {{}}, id="app")),
    t.reply("Here is the server's clock."),
    t.reply("Thanks for the message."),
)
agent = make_agent(script)
chat = nt.Chat(agent)
display(chat)
r = await chat.send("What time is it on the server?")
json.dump({{"uuid": agent.agent_uuid}}, open("apps_turn.json", "w"))
"""

CARD = 'div.nt-tool[data-tool-use-id="app"]'


def app_of(page, within=None):
    """The app's document: inside the card's sandbox proxy frame, the app's own frame."""
    return (within or page).frame_locator(f"{CARD} iframe.nt-app-frame").frame_locator("iframe")


def pending(page, text):
    return page.locator("section.nt-prompt.nt-pending", has_text=text)


def test_the_ext_apps_example_app_is_used_reloaded_and_carried_over_a_kernel_restart(browser, lab):
    save_widget_state(lab)  # a reloaded page finds the chat again
    write_notebook(lab.root / "apps.ipynb", [SETUP])
    context = browser.new_context(viewport={"width": 1100, "height": 1400})
    page = context.new_page()
    popups = []
    context.on("page", lambda p: popups.append(p.url))
    open_notebook(page, lab, "apps.ipynb")
    run_all(page)
    wait_for_file(lab.root / "apps_turn.json", timeout=120)

    # the app shows the tool's result (its structured content: an ISO time), in a sandboxed frame
    frame = page.locator(f"{CARD} iframe.nt-app-frame")
    frame.wait_for(timeout=PATIENT)
    assert frame.get_attribute("sandbox") == "allow-scripts allow-forms"
    app = app_of(page)
    clock = app.locator("#server-time")
    app.locator("#server-time", has_text="T").wait_for(timeout=PATIENT)
    first = clock.inner_text()
    assert "T" in first and first != "Loading..."

    # its own tool call: a card in the chat first; allowed, the app gets a new time
    app.locator("#get-time-btn").click()
    ask = pending(page, "An MCP app asks to call a tool of its server")
    ask.wait_for(timeout=PATIENT)
    assert "get-time" in ask.inner_text() and "basic" in ask.inner_text()
    ask.get_by_role("button", name="Allow").click()
    app.locator("#server-time").filter(has_not_text=first).wait_for(timeout=PATIENT)

    # its message: sent as the person's own only after a yes
    app.locator("#send-message-btn").click()
    said = pending(page, "An MCP app asks to send a message to Claude as you")
    said.wait_for(timeout=PATIENT)
    assert "This is message text." in said.inner_text()
    said.get_by_role("button", name="Send it").click()
    page.locator(".nt-user", has_text="This is message text.").wait_for(timeout=PATIENT)
    page.locator(".nt-assistant", has_text="Thanks for the message.").wait_for(timeout=PATIENT)

    # its link: a consent card naming the host, nothing opened by itself; declined
    app.locator("#open-link-btn").click()
    link = pending(page, "An MCP app asks you to open a page")
    link.get_by_role("button", name="Open").wait_for(timeout=PATIENT)
    assert "modelcontextprotocol.io" in link.inner_text() and popups == []
    link.get_by_role("button", name="Skip this question").click()
    link.wait_for(state="detached", timeout=PATIENT)
    assert popups == []

    # reload mid-use: the card comes back with its app, which gets its input and result again
    save_and_reload(page)
    app_of(page).locator("#server-time", has_text="T").wait_for(timeout=PATIENT)

    # a kernel restart, then Chat.resume: the rebuilt card's app shows the whole result again
    uuid = json.loads((lab.root / "apps_turn.json").read_text())["uuid"]
    page.evaluate("() => window.jupyterapp.shell.currentWidget.sessionContext.session.kernel.restart()")
    page.wait_for_function(
        "() => window.jupyterapp.shell.currentWidget.sessionContext.session?.kernel?.status === 'idle'",
        timeout=PATIENT,
    )
    resume = f"""
import notebook_tools as nt
from notebook_tools import testing as t
server = nt.MCPServer.stdio({str(BASIC)!r}, ["--stdio"], name="basic")
agent = nt.Agent(t.ScriptedTransport().client(), model="claude-test", mcp_servers=[server], store=nt.SQLiteStore("apps.db"))
nt.Chat.resume({uuid!r}, agent=agent)
"""
    command(page, "notebook:insert-cell-below")
    page.evaluate(
        "(src) => { const nb = window.jupyterapp.shell.currentWidget.content;"
        " nb.activeCell.model.sharedModel.setSource(src); }",
        resume,
    )
    command(page, "notebook:run-cell")
    resumed = page.locator(".jp-Cell").last.locator(f"{CARD} iframe.nt-app-frame")
    resumed.wait_for(timeout=PATIENT)
    again = app_of(page, page.locator(".jp-Cell").last)
    again.locator("#server-time", has_text="T").wait_for(timeout=PATIENT)
    assert "ERROR" not in again.locator("#server-time").inner_text()
    assert popups == []
    context.close()


COUNTER = f"""
import notebook_tools as nt
from notebook_tools import testing as t

server = nt.MCPServer.stdio({sys.executable!r}, [{str(HERE / "apps_server.py")!r}], name="apps")
script = t.ScriptedTransport(
    t.turn(t.tool_use("apps", id="open")),
    t.turn(t.tool_use("show_counter", {{"start": 3}}, id="app")),
    t.reply("Here is the counter."),
)
agent = nt.Agent(script.client(), model="claude-test", mcp_servers=[server])
chat = nt.Chat(agent)
display(chat)
r = await chat.send("Show the counter")
import json
json.dump(r.stop_reason, open("counter_turn.json", "w"))
"""


def test_the_counter_app_is_themed_gated_and_goes_full_screen(browser, lab):
    write_notebook(lab.root / "counter.ipynb", [COUNTER])
    page = browser.new_page(viewport={"width": 1100, "height": 1200})
    open_notebook(page, lab, "counter.ipynb")
    run_all(page)
    wait_for_file(lab.root / "counter_turn.json", timeout=120)
    app = app_of(page)
    app.locator("#input", has_text='{"start":3}').wait_for(timeout=PATIENT)
    assert app.locator("#count").inner_text() == "3" and app.locator("#theme").inner_text() == "light"

    app.locator("#add").click()  # read-only and for the app: no card
    app.locator("#count", has_text="4").wait_for(timeout=PATIENT)
    app.locator("#reset").click()  # destructive: the person is asked; denied, nothing is reset
    ask = pending(page, "An MCP app asks to call a tool of its server")
    ask.wait_for(timeout=PATIENT)
    page.locator(".nt-chat").first.screenshot(
        path=str(SCREENSHOTS / "mcp-app-light.png"), animations="disabled"
    )
    ask.get_by_role("button", name="Deny").click(timeout=PATIENT)
    app.locator("#status", has_text="refused").wait_for(timeout=PATIENT)
    assert app.locator("#count").inner_text() == "4"
    app.locator("#forbidden").click()  # visible to the model only: refused without a card
    app.locator("#status", has_text="offers it no tool").wait_for(timeout=PATIENT)

    set_theme(page, dark=True)  # the app hears the host's theme change
    app.locator("#theme", has_text="dark").wait_for(timeout=PATIENT)
    set_theme(page, dark=False)
    app.locator("#theme", has_text="light").wait_for(timeout=PATIENT)

    app.locator("#full").click()
    app.locator("#mode", has_text="fullscreen").wait_for(timeout=PATIENT)
    box = page.locator(f"{CARD} iframe.nt-app-frame").bounding_box()
    assert box["width"] > 1000 and box["height"] > 900  # the whole window
    page.keyboard.press("Escape")
    app.locator("#mode", has_text="inline").wait_for(timeout=PATIENT)
    box = page.locator(f"{CARD} iframe.nt-app-frame").bounding_box()
    assert box["height"] <= 640
    page.close()


class Hits:
    """A loopback HTTP server that counts every request: an app's leak would land here."""

    def __init__(self):
        import http.server
        import threading

        hits = self.paths = []

        class Handler(http.server.BaseHTTPRequestHandler):
            def _hit(self):
                hits.append(f"{self.command} {self.path}")
                self.send_response(204)
                self.end_headers()

            do_GET = do_POST = do_PUT = do_OPTIONS = _hit

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()


def hostile_cell(report: str) -> str:
    return app_cell(HERE / "apps_server.py", "apps", "hostile_app", {"HOSTILE": report}, "hostile_turn.json")


BLOCKED = (
    "parent_document",
    "top_document",
    "top_location_read",
    "cookie",
    "local_storage",
    "session_storage",
    "indexed_db",
    "kernel_comm",
)


def test_a_hostile_app_reaches_nothing_and_the_notebook_stays_usable(browser, lab):
    from tests.browser.test_browser_hostile import CANARY, Watch

    hits = Hits()
    write_notebook(lab.root / "hostile_app.ipynb", [hostile_cell(hits.url)])
    context = browser.new_context(viewport={"width": 1100, "height": 1200})
    context.add_init_script(CANARY)
    page = context.new_page()
    watch = Watch(context, page)
    try:
        open_notebook(page, lab, "hostile_app.ipynb")
        url = page.url
        run_all(page)
        wait_for_file(lab.root / "hostile_turn.json", timeout=120)

        # its destructive call is a card the person answers (denied here); it never runs by itself
        ask = pending(page, "An MCP app asks to call a tool of its server")
        ask.get_by_role("button", name="Deny").click(timeout=PATIENT)
        app = app_of(page)
        app.locator("#log", has_text='"done":"yes"').wait_for(timeout=PATIENT)
        said = json.loads(app.locator("#log").inner_text())
        for key in BLOCKED:
            assert said[key].startswith("blocked"), (key, said[key])
        assert said["popup"] == "null" and said.get("fetch_done") != "yes"
        assert said["reset_call"] == "refused: -1"
        assert said["hidden_call"] == "refused: -32602" and said["js_link"] == "refused: -32602"
        box = page.locator(f"{CARD} iframe.nt-app-frame").bounding_box()
        assert box is not None and box["height"] <= 640  # it asked for 1e9 px and grew its body to 100,000

        # last, clicked, it navigates its own frame (a form, a meta refresh, location): blocked, app stopped
        app.locator("#leave").click(timeout=PATIENT)
        page.locator(CARD, has_text="The app tried to leave its card and was stopped.").wait_for(
            timeout=PATIENT
        )
        assert (
            hits.paths == []
        )  # nothing reached the loopback server: no fetch, image, beacon, form, navigation
        assert watch.remote == [] and watch.popups == [] and watch.dialogs == []
        assert page.url == url and page.evaluate("() => window.__pwned === undefined")
        assert page.locator(".nt-user", has_text="FORGED MESSAGE").count() == 0
        assert pending(page, "An MCP app asks to send a message").count() == 0

        # the notebook still works: a new cell runs
        command(page, "notebook:insert-cell-below")
        page.evaluate(
            "() => window.jupyterapp.shell.currentWidget.content.activeCell.model.sharedModel"
            ".setSource('print(40 + 2)')"
        )
        command(page, "notebook:run-cell")
        page.locator(".jp-OutputArea-output", has_text="42").wait_for(timeout=PATIENT)
    finally:
        context.close()
        hits.close()
