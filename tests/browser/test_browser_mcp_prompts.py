"""An MCP server's elicitation and sampling requests in real JupyterLab: server-everything (npm) asks,
the person answers on the chat's cards (a form, also after a reload, two sampling approvals, and a URL
consent card that opens nothing by itself)."""

import json

import pytest

from tests.browser.test_browser_reload import save_and_reload
from tests.mcp.servers import EVERYTHING
from tests.support.lab import open_notebook, run_all, wait_for_file, write_notebook

pytestmark = pytest.mark.browser

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
    # "Save widget state automatically", as in test_browser_reload: a reloaded page finds the chat again
    folder = lab.root / ".jupyter" / "lab" / "user-settings" / "@jupyter-widgets" / "jupyterlab-manager"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "plugin.jupyterlab-settings").write_text(json.dumps({"saveState": True}))
    write_notebook(lab.root / "mcp.ipynb", [CELL])
    page = browser.new_page(viewport={"width": 1100, "height": 1400})
    popups = []
    page.on("popup", lambda popup: popups.append(popup))
    open_notebook(page, lab, "mcp.ipynb")
    run_all(page)

    form = page.locator("section.nt-prompt.nt-pending", has_text="An MCP server asks you for information")
    form.wait_for(timeout=90_000)
    save_and_reload(page)  # mid-elicitation: the request is still there, still open
    form.wait_for(timeout=10_000)
    assert "Please provide inputs for the following fields:" in form.inner_text()  # the server's message
    form.locator("input[type=text]").first.fill("Ada Lovelace")
    form.get_by_role("button", name="Submit").click()

    ask = page.locator("section.nt-prompt.nt-pending", has_text="An MCP server asks to use the model")
    ask.get_by_role("button", name="Send to the model").click(timeout=30_000)
    reply = page.locator("section.nt-prompt.nt-pending", has_text="Send the model's reply back")
    assert "Hi, server." in reply.inner_text(timeout=30_000)
    reply.get_by_role("button", name="Send the reply").click()

    consent = page.locator("section.nt-prompt.nt-pending", has_text="An MCP server asks you to open a page")
    consent.get_by_role("button", name="Open").wait_for(timeout=30_000)
    assert "example.com" in consent.inner_text() and popups == []  # nothing opened by itself
    consent.get_by_role("button", name="Skip this question").click()

    requests = wait_for_file(lab.root / "mcp.json", timeout=60)
    elicited, sampled, declined = (json.loads(requests[i]) for i in (2, 3, 5))
    assert "Ada Lovelace" in json.dumps(elicited) and "accept" in json.dumps(elicited)
    assert "Hi, server." in json.dumps(requests[4])
    assert "declined" in json.dumps(declined) and popups == []
    assert sampled  # the sampling request went through the agent's own client
    page.close()
