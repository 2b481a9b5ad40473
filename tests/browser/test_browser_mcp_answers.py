"""Every answer a person gives server-everything (npm) on the chat's cards, in real JupyterLab + Chromium.

One notebook run (browser tests are slow): the person declines the server's form (Skip), cancels the
same form with the chat's Stop while it is open (the next message still works), refuses a sampling
request at its first step, lets another reach the model but withholds the reply, and opens a page
with the consent card's Open button (no tab opens before the click). What the server made of each
answer comes back in its tool results, which the scripted model received; what the client told the
server for each elicitation is recorded as it goes back (a Stopped call's result never reaches the
model, so that is where the server's `cancel` is seen).
"""

import json

import pytest

from tests.mcp.servers import EVERYTHING
from tests.support.lab import PATIENT, open_notebook, run_all, wait_for_file, write_notebook

pytestmark = pytest.mark.browser
ASKS = "section.nt-prompt.nt-pending"
FORM = "An MCP server asks you for information"
SAMPLING = "An MCP server asks to use the model"
REPLY = "Send the model's reply back"
PAGE = "An MCP server asks you to open a page"

CELL = """
import json
import notebook_tools as nt
from notebook_tools import testing as t

SAY_HI = {{"prompt": "Say hi", "maxTokens": 20}}
server = nt.MCPServer.stdio({everything!r}, ["stdio"], name="everything")
script = t.ScriptedTransport(
    t.turn(t.tool_use("everything", id="open")),
    t.turn(t.tool_use("trigger-elicitation-request", {{}}, id="declined")),
    t.turn(t.tool_use("trigger-elicitation-request", {{}}, id="cancelled")),  # Stop ends this turn
    t.turn(t.tool_use("trigger-sampling-request", SAY_HI, id="refused")),
    t.turn(t.tool_use("trigger-sampling-request", SAY_HI, id="withheld")),
    t.reply("A reply the person keeps back."),  # the model, asked for the server
    t.turn(t.tool_use("trigger-url-elicitation", {{"url": {url!r}}}, id="page")),
    t.reply("done"),
)
agent = nt.Agent(script.client(), model="claude-test", mcp_servers=[server])
chat = nt.Chat(agent)
told = []  # what the client answers the server's elicitation requests, as it goes back
elicit = server.elicitation_handler


async def telling(name, params):
    answer = await elicit(name, params)
    told.append(answer)
    return answer


server.elicitation_handler = telling
display(chat)
first = await chat.send("ask me")
second = await chat.send("go on")
await agent.aclose()
json.dump(
    {{"stops": [first.stop_reason, second.stop_reason], "told": told, "requests": script.requests}},
    open("answers.json", "w"),
)
"""


def pending(page, text, before=None):
    """The open card saying `text` (a new one when `before`, the id of the last such card, is given)."""
    card = page.locator(ASKS, has_text=text)
    if before is not None:
        card = card.and_(page.locator(f'{ASKS}:not([data-tool-use-id="{before}"])'))
    card.wait_for(timeout=PATIENT)
    return card, card.get_attribute("data-tool-use-id")


def answered(page, tool_use_id):
    """Wait until the card is no longer open (the kernel took the answer, or Stop closed it)."""
    page.locator(f'{ASKS}[data-tool-use-id="{tool_use_id}"]').wait_for(state="detached", timeout=PATIENT)


def tool_results(requests):
    found = {}
    for body in requests:
        for block in body["messages"][-1]["content"]:
            if isinstance(block, dict) and block.get("type") == "tool_result":
                content = block.get("content")
                text = content if isinstance(content, str) else "\n".join(b.get("text", "") for b in content)
                found[block["tool_use_id"]] = (bool(block.get("is_error")), text)
    return found


def test_each_answer_to_server_everything_reaches_it_from_the_cards(browser, lab):
    url = f"{lab.base}/nt-consent-page"  # loopback: the opened tab reaches nothing beyond this machine
    write_notebook(lab.root / "answers.ipynb", [CELL.format(everything=str(EVERYTHING), url=url)])
    page = browser.new_page(viewport={"width": 1100, "height": 1400})
    page.context.route(url, lambda route: route.fulfill(body="signed in", content_type="text/plain"))
    popups = []
    page.on("popup", lambda popup: popups.append(popup))
    open_notebook(page, lab, "answers.ipynb")
    run_all(page)

    form, first_form = pending(page, FORM)  # declined: Skip
    assert "Please provide inputs for the following fields:" in form.inner_text()
    form.get_by_role("button", name="Skip this question").click()
    answered(page, first_form)

    form, second_form = pending(page, FORM, before=first_form)  # cancelled: the chat's Stop
    page.get_by_role("button", name="Stop the agent").click()
    answered(page, second_form)

    ask, refused = pending(page, SAMPLING)  # the next message carries on: refused at the first step
    ask.get_by_role("button", name="Refuse").click()
    answered(page, refused)

    ask, sent = pending(page, SAMPLING, before=refused)  # sent to the model, its reply withheld
    ask.get_by_role("button", name="Send to the model").click()
    answered(page, sent)
    reply, _ = pending(page, REPLY)
    assert "A reply the person keeps back." in reply.inner_text()
    reply.get_by_role("button", name="Withhold it").click()

    consent, _ = pending(page, PAGE)  # opened by the person's click, never before
    button = consent.get_by_role("button", name="Open")
    button.wait_for()
    assert popups == [] and "127.0.0.1" in consent.locator("strong").inner_text()
    with page.expect_popup() as opening:
        button.click()
    opened = opening.value
    opened.wait_for_load_state()
    assert opened.url == url and opened.locator("body").inner_text() == "signed in"

    done = wait_for_file(lab.root / "answers.json", timeout=120)
    said = tool_results(done["requests"])
    assert done["stops"] == ["stopped", "end_turn"]
    assert done["told"] == [{"action": "decline"}, {"action": "cancel"}, {"action": "accept"}]

    error, text = said["declined"]
    assert not error and "User declined to provide the requested information" in text
    assert json.loads(text.split("Raw result:", 1)[1]) == {"action": "decline"}
    error, text = said["cancelled"]  # the Stopped call: the model hears it was interrupted
    assert error and "Interrupted" in text
    assert "go on" in json.dumps(done["requests"][3]["messages"][-1])  # ...with the next message

    error, text = said["refused"]
    assert error and "The user refused the sampling request." in text
    asked_model = [r for r in done["requests"] if r.get("system") == "You are a helpful test server."]
    assert len(asked_model) == 1 and asked_model[0]["max_tokens"] == 20  # only the one sent
    error, text = said["withheld"]
    assert error and "The user withheld the model's reply." in text
    assert "A reply the person keeps back." not in text

    error, text = said["page"]
    assert not error and "User completed the URL elicitation flow" in text and url in text
    assert len(popups) == 1 and len(done["requests"]) == 8
    page.close()
