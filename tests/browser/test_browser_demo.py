"""The no-key demo in real JupyterLab: a conversation typed into the widget, and an error as a sentence.

A person opens a quickstart-style notebook without ANTHROPIC_API_KEY and types ten messages into
the chat's own input box, asking for each kind of prompt on the way: every message is answered,
and no error shows anywhere. A strict script that runs out shows one sentence of what happened and
what to do, with the technical details folded and no Retry (asking again would fail the same way).
"""

from __future__ import annotations

import pytest

from tests.support.lab import PATIENT, open_notebook, run_all, write_notebook

pytestmark = pytest.mark.browser

QUICKSTART = """
import os
import pathlib
os.environ.pop("ANTHROPIC_API_KEY", None)  # the demo path, whatever the machine has
import notebook_tools as nt
from notebook_tools import testing as t

pathlib.Path("sales.csv").write_text("region,price\\nnorth,12.5\\nsouth,9.0\\n")
client, script = t.model_client(t.reply("Hello! I am the notebook's script; type anything below."))
agent = nt.Agent(
    client=client,
    system="You help a data scientist. Ask before you change anything.",
    frontend_tools=[nt.user_confirm, nt.ask_text, nt.select_option, nt.pick_file],
)
chat = nt.Chat(agent)
chat
"""

RAN_OUT = """
import notebook_tools as nt
from notebook_tools import testing as t

script = t.ScriptedTransport(t.reply("The only reply in this script."))
chat = nt.Chat(nt.Agent(client=script.client(max_retries=0)))
chat
"""

# The turn is over: the new replies are there and the input box takes a message again.
DONE = """([n]) => {
    const chat = document.querySelector('.nt-chat');
    return chat.querySelectorAll('.nt-assistant').length >= n && !chat.querySelector('.nt-compose').disabled;
}"""


@pytest.fixture
def page(browser):
    page = browser.new_page(viewport={"width": 1100, "height": 900})
    yield page
    page.close()


def open_prompt(page):
    """The one open prompt card (a closed card loses the pending class)."""
    card = page.locator("section.nt-prompt.nt-pending").last
    card.wait_for(timeout=PATIENT)
    return card


def confirm(page):
    open_prompt(page).get_by_role("button", name="Carry on").click()


def choose(page):
    card = open_prompt(page)
    card.get_by_label("green").check()
    card.get_by_role("button", name="Submit").click()


def write(page):
    box = open_prompt(page).get_by_label("Your answer")
    box.fill("Ada")
    box.press("Enter")


def upload(page, lab):
    card = open_prompt(page)
    card.locator(".nt-file-input").set_input_files(str(lab.root / "sales.csv"))
    card.get_by_role("button", name="Upload", exact=True).click()


def test_the_no_key_demo_answers_ten_typed_messages_with_no_error(page, lab):
    write_notebook(lab.root / "demo.ipynb", [QUICKSTART])
    open_notebook(page, lab, "demo.ipynb")
    run_all(page)
    chat = page.locator(".nt-chat")
    box = chat.get_by_label("Message", exact=True)
    box.wait_for(timeout=PATIENT)
    typed = [  # (what the person types, what they do with the prompt it opens)
        ("hello", None),
        ("ask me to confirm", confirm),
        ("give me a choice", choose),
        ("ask me for some text", write),
        ("ask for a file", lambda p: upload(p, lab)),
        ("what can you do?", None),
        ("thanks!", None),
        ("is it going to rain in Lisbon tomorrow?", None),
        ("tell me a joke", None),
        ("bye", None),
    ]
    for text, answer in typed:
        before = chat.locator(".nt-assistant").count()
        box.fill(text)
        box.press("Enter")
        if answer is not None:
            answer(page)
        page.wait_for_function(DONE, arg=[before + (2 if answer else 1)], timeout=PATIENT)
    replies = chat.locator(".nt-assistant").all_inner_texts()
    said = "\n".join(replies)
    assert len(replies) == 10 + 4  # a reply to each message, and the four prompt turns' own text
    assert replies[0].startswith("Hello! I am the notebook's script")  # its script first, then the demo
    assert "scripted demo model" in said
    assert 'you answered "yes"' in said and 'you chose "green"' in said and 'you typed "Ada"' in said
    assert "you chose sales.csv (" in said  # inline code renders as its text
    assert 'received: "tell me a joke"' in said
    # no error anywhere: not in the chat, not as a banner, not on stderr in the cell
    assert chat.locator(".nt-notice.nt-error").count() == 0
    assert not chat.locator(".nt-error-banner").is_visible()
    assert page.locator(".jp-OutputArea-output[data-mime-type='application/vnd.jupyter.stderr']").count() == 0


def test_an_error_is_a_sentence_with_its_details_folded_and_no_retry(page, lab):
    write_notebook(lab.root / "ran_out.ipynb", [RAN_OUT])
    open_notebook(page, lab, "ran_out.ipynb")
    run_all(page)
    chat = page.locator(".nt-chat")
    box = chat.get_by_label("Message", exact=True)
    box.wait_for(timeout=PATIENT)
    box.fill("first")
    box.press("Enter")
    page.wait_for_function(DONE, arg=[1], timeout=PATIENT)
    box.fill("a follow-up the script has no reply for")
    box.press("Enter")
    notice = chat.locator(".nt-notice.nt-error")
    notice.wait_for(timeout=PATIENT)
    sentence = notice.locator(".nt-notice-text").inner_text()
    assert sentence.startswith("The scripted model has no reply left in its script")
    assert "ANTHROPIC_API_KEY" in sentence and "script.add" in sentence
    details = notice.locator("details.nt-notice-details")
    assert details.get_attribute("open") is None and not details.locator("pre").is_visible()
    # what the person sees of the notice: the sentence and "Details", no class names or JSON
    shown = notice.inner_text()
    assert "BadRequestError" not in shown and "{" not in shown and "Details" in shown
    assert notice.get_by_role("button", name="Retry the request").count() == 0
    details.locator("summary").click()
    assert details.locator("pre").is_visible()
    assert details.locator("pre").inner_text().startswith("BadRequestError (HTTP 400")
    assert "the script has no step left for request 2" in details.locator("pre").inner_text()
    assert page.locator(".jp-OutputArea-output[data-mime-type='application/vnd.jupyter.stderr']").count() == 0
