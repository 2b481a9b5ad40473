"""An MCP server's elicitation and sampling requests in real JupyterLab: server-everything (npm) asks,
the person answers on the chat's cards (a form, also after a reload, two sampling approvals, and a URL
consent card that opens nothing by itself); the hostile server (tests/mcp/hostile_elicit.py) puts
every payload of tests/support/hostile_payloads.json where a server writes for the page."""

import json
import sys

import pytest

from tests.browser.test_browser_hostile import ALL, CANARY, CORPUS_PATH, PAYLOADS, Watch, plain, scan
from tests.browser.test_browser_reload import save_and_reload
from tests.mcp.servers import EVERYTHING, HOSTILE
from tests.support.lab import (
    PATIENT,
    open_notebook,
    run_all,
    save_widget_state,
    wait_for_file,
    write_notebook,
)

pytestmark = pytest.mark.browser
NAME = " ".join(p.replace("\n", " ") for p in PAYLOADS[:30])  # the hostile server's name

CELL = f"""
import json
import notebook_tools as nt
from notebook_tools import testing as t

server = nt.MCPServer.stdio({str(EVERYTHING)!r}, ["stdio"], name="everything")
script = t.ScriptedTransport(
    t.turn(t.tool_use("everything", id="open")),
    t.turn(t.tool_use("trigger-elicitation-request", {{}}, id="el")),
    t.turn(t.tool_use("trigger-sampling-request", {{"prompt": "Say hi", "maxTokens": 20}}, id="sa")),
    t.reply("Hi, server."),
    t.turn(t.tool_use("trigger-url-elicitation", {{"url": "https://example.com/auth"}}, id="url")),
    t.reply("done"),
)
agent = nt.Agent(script.client(), model="claude-test", mcp_servers=[server])
chat = nt.Chat(agent)
display(chat)
r = await chat.send("ask me")
await agent.aclose()
json.dump([json.dumps(b["messages"][-1]["content"]) for b in script.requests], open("mcp.json", "w"))
"""


def test_server_everything_asks_and_the_person_answers_on_the_cards(browser, lab):
    save_widget_state(lab)  # a reloaded page finds the chat again
    write_notebook(lab.root / "mcp.ipynb", [CELL])
    page = browser.new_page(viewport={"width": 1100, "height": 1400})
    popups = []
    page.on("popup", lambda popup: popups.append(popup))
    open_notebook(page, lab, "mcp.ipynb")
    run_all(page)

    form = page.locator("section.nt-prompt.nt-pending", has_text="An MCP server asks you for information")
    form.wait_for(timeout=PATIENT)
    save_and_reload(page)  # mid-elicitation: the request is still there, still open
    form.wait_for(timeout=PATIENT)
    assert "Please provide inputs for the following fields:" in form.inner_text()  # the server's message
    form.locator("input[type=text]").first.fill("Ada Lovelace")
    form.get_by_role("button", name="Submit").click()

    ask = page.locator("section.nt-prompt.nt-pending", has_text="An MCP server asks to use the model")
    ask.get_by_role("button", name="Send to the model").click(timeout=PATIENT)
    reply = page.locator("section.nt-prompt.nt-pending", has_text="Send the model's reply back")
    assert "Hi, server." in reply.inner_text(timeout=PATIENT)
    reply.get_by_role("button", name="Send the reply").click()

    consent = page.locator("section.nt-prompt.nt-pending", has_text="An MCP server asks you to open a page")
    consent.get_by_role("button", name="Open").wait_for(timeout=PATIENT)
    assert "example.com" in consent.inner_text() and popups == []  # nothing opened by itself
    consent.get_by_role("button", name="Skip this question").click()

    requests = wait_for_file(lab.root / "mcp.json", timeout=60)
    elicited, sampled, declined = (json.loads(requests[i]) for i in (2, 3, 5))
    assert "Ada Lovelace" in json.dumps(elicited) and "accept" in json.dumps(elicited)
    assert "Hi, server." in json.dumps(requests[4])
    assert "declined" in json.dumps(declined) and popups == []
    assert sampled  # the sampling request went through the agent's own client
    page.close()


HOSTILE_CELL = f"""
import json
import notebook_tools as nt
from notebook_tools import testing as t
from notebook_tools.mcp._plugins import safe_name

NAME = {NAME!r}
env = {{"PYTHONUNBUFFERED": "1", "HOSTILE_PAYLOADS": {str(CORPUS_PATH)!r}}}
server = nt.MCPServer.stdio({sys.executable!r}, [{str(HOSTILE)!r}], env=env)
script = t.ScriptedTransport(
    t.turn(t.tool_use(safe_name(NAME, set(), "mcp"), id="open")),
    t.turn(t.tool_use("ask_form", id="form")),
    t.turn(t.tool_use("ask_pages", id="pages")),
    t.reply("done"),
)
agent = nt.Agent(script.client(), model="claude-test", mcp_servers=[server])
chat = nt.Chat(agent)
display(chat)
r = await chat.send("go")
await agent.aclose()
json.dump([json.dumps(b["messages"][-1]["content"]) for b in script.requests], open("hostile_mcp.json", "w"))
"""


def test_a_hostile_servers_elicitations_stay_text_and_its_pages_name_their_real_host(browser, lab):
    write_notebook(lab.root / "hostile_mcp.ipynb", [HOSTILE_CELL])
    context = browser.new_context(viewport={"width": 1100, "height": 1400})
    context.add_init_script(CANARY)
    page = context.new_page()
    watch = Watch(context, page)
    problems: list[str] = []
    try:
        open_notebook(page, lab, "hostile_mcp.ipynb")
        url = page.url
        run_all(page)

        form = page.locator("section.nt-prompt.nt-pending", has_text="An MCP server asks you for information")
        form.wait_for(timeout=PATIENT)
        said = form.locator(".nt-call-args dd").all_text_contents()
        assert said == [plain(NAME), plain(ALL)]  # who asks, and its message: text, as sent
        shown = form.evaluate("el => el.textContent + [...el.querySelectorAll('[title]')].map(e => e.title)")
        missing = [p for p in PAYLOADS if plain(p).strip() and plain(p).strip() not in shown]
        assert missing == []  # every label, title and option is there as text
        problems += scan(page, watch, "form")
        form.get_by_role("button", name="Skip this question").click()

        hosts = []
        for _ in range(2):  # the javascript: and data: pages never get a card
            card = page.locator(
                "section.nt-prompt.nt-pending", has_text="An MCP server asks you to open a page"
            )
            card.get_by_role("button", name="Open").wait_for(timeout=PATIENT)
            hosts.append(card.locator("strong").inner_text())
            assert card.locator(".nt-server-message").text_content() == plain(ALL)
            problems += scan(page, watch, f"page card {len(hosts)}")
            tool_use_id = card.get_attribute("data-tool-use-id")
            card.get_by_role("button", name="Skip this question").click()
            page.locator(f'section.nt-pending[data-tool-use-id="{tool_use_id}"]').wait_for(state="detached")
        assert hosts == ["xn--pple-43d.com (shown as \u0430pple.com)", "attacker.example"]

        requests = wait_for_file(lab.root / "hostile_mcp.json", timeout=60)
        assert "decline" in requests[2]
        assert json.loads(json.loads(requests[3])[0]["content"][0]["text"]) == [
            "refused -32602", "refused -32602", "decline", "decline"
        ]  # fmt: skip
        assert page.locator("section.nt-prompt").count() == 3 and page.url == url
        page.get_by_role("button", name="Tools").click()  # the tool names and descriptions in the menu
        page.locator(".nt-tools-panel").wait_for()
        problems += scan(page, watch, "tools menu")
    finally:
        context.close()
    assert problems == [], "\n".join(problems[:80])


DONE_CELL = f"""
import json
import notebook_tools as nt
from notebook_tools import testing as t

server = nt.MCPServer.stdio({sys.executable!r}, [{str(HOSTILE.parent / "url_server.py")!r}], name="pages")
script = t.ScriptedTransport(
    t.turn(t.tool_use("pages", id="open")),
    t.turn(t.tool_use("sign_in", id="sign")),
    t.reply("done"),
)
agent = nt.Agent(script.client(), model="claude-test", mcp_servers=[server])
chat = nt.Chat(agent)
display(chat)
r = await chat.send("sign me in")
await agent.aclose()
json.dump([json.dumps(b["messages"][-1]["content"]) for b in script.requests], open("done_mcp.json", "w"))
"""


def test_the_accepted_url_card_shows_when_the_server_says_the_page_is_done(browser, lab):
    write_notebook(lab.root / "done_mcp.ipynb", [DONE_CELL])
    context = browser.new_context(viewport={"width": 1100, "height": 1000})
    page = context.new_page()
    watch = Watch(context, page)  # the page opened is not fetched (it is not on this machine)
    try:
        open_notebook(page, lab, "done_mcp.ipynb")
        run_all(page)
        card = page.locator("section.nt-prompt.nt-pending", has_text="An MCP server asks you to open a page")
        card.get_by_role("button", name="Open").wait_for(timeout=PATIENT)
        tool_use_id = card.get_attribute("data-tool-use-id")
        assert watch.popups == []  # nothing opened before the click
        with context.expect_page(timeout=PATIENT):  # the popup event may come after the answer under load
            card.get_by_role("button", name="Open").click()
        answered = page.locator(
            f'section.nt-prompt.nt-answered[data-tool-use-id="{tool_use_id}"] .nt-answer-text'
        )
        answered.filter(has_text="The server says the page is done.").wait_for(timeout=PATIENT)
        assert "Opened https://pages.example/sign-in" in answered.inner_text()
        requests = wait_for_file(lab.root / "done_mcp.json", timeout=60)
        assert "sign-in accept" in requests[-1]
        assert len(watch.popups) == 1  # the one tab the click opened
    finally:
        context.close()
