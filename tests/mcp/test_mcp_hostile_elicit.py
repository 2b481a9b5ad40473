"""The hostile server's elicitation attacks through a chat's prompts (no browser): every payload stays
data, a javascript: or data: page is refused before any card, and a page's card names its real host.
The same server in real JupyterLab: tests/browser/test_browser_mcp_prompts.py."""

import asyncio
import json
import sys

import notebook_tools as nt
from notebook_tools import testing as t
from notebook_tools.mcp._plugins import safe_name
from tests.mcp.servers import HOSTILE, results, text_of
from tests.support.browser_double import FakeView, pending_ids

CORPUS = HOSTILE.parent.parent / "support" / "hostile_payloads.json"
PAYLOADS = [p["text"] for p in json.loads(CORPUS.read_text())["payloads"]]
ALL = "\n\n".join(PAYLOADS)
NAME = " ".join(p.replace("\n", " ") for p in PAYLOADS[:30])  # the server's name (hostile_elicit.py)
HOSTS = ["xn--pple-43d.com (shown as \u0430pple.com)", "attacker.example"]


def hostile_elicit() -> nt.MCPServer:
    env = {"PYTHONUNBUFFERED": "1", "HOSTILE_PAYLOADS": str(CORPUS)}
    return nt.MCPServer.stdio(sys.executable, [str(HOSTILE)], env=env)


def test_every_payload_stays_data_and_hostile_pages_are_refused_before_a_card():
    plugin = safe_name(NAME, set(), "mcp")
    script = t.ScriptedTransport(
        t.turn(t.tool_use(plugin, id="open")),
        t.turn(t.tool_use("ask_form", id="form")),
        t.turn(t.tool_use("ask_pages", id="pages")),
        t.reply("done"),
    )
    agent = nt.Agent(script.client(), model="claude-test", mcp_servers=[hostile_elicit()])
    chat = nt.Chat(agent)
    view = FakeView(chat)
    view.custom({"type": "hello", "view_id": "tab"})
    asked = []

    async def person():
        while True:
            await asyncio.sleep(0.01)
            view.custom({"type": "ping", "view_id": "tab"})
            for tool_use_id in pending_ids(chat):
                if tool_use_id not in asked and not chat.broker.taken(tool_use_id):
                    asked.append(tool_use_id)
                    view.answer(tool_use_id, {"skip": True})

    async def go():
        answering = asyncio.ensure_future(person())
        try:
            return await agent.run("go")
        finally:
            answering.cancel()
            await agent.aclose()

    assert asyncio.run(go()).stop_reason == "end_turn"
    form, *pages = (chat.prompts[i] for i in asked)
    assert form["input"]["server"] == NAME and form["input"]["server_message"] == ALL
    titles = [p.get("title") for p in form["output_schema"]["properties"].values()]
    assert PAYLOADS[0] in titles and PAYLOADS[5] in form["output_schema"]["properties"]  # data, as sent
    assert [p["input"]["host"] for p in pages] == HOSTS  # only the two web pages got a card
    assert [p["input"]["server_message"] for p in pages] == [ALL, ALL]
    form_result, pages_result = results(script.requests[2])["form"], results(script.requests[3])["pages"]
    assert text_of(form_result[1]) == "decline"
    assert json.loads(text_of(pages_result[1])) == ["refused -32602", "refused -32602", "decline", "decline"]
    offered = {x["name"] for x in script.requests[1]["tools"]}
    assert {"ask_form", "ask_pages"} <= offered and all(len(n) <= 64 for n in offered)
