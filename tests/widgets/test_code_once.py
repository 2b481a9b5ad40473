"""The widget's code crosses to a page once: a small loader in the state, the module on request."""

import json

import notebook_tools as nt
from notebook_tools import testing as t
from notebook_tools.widgets._code_once import code_key, loader
from notebook_tools.widgets._view import STATIC
from tests.support.browser_double import FakeView


def make_chat():
    return nt.Chat(nt.Agent(client=t.ScriptedTransport(t.reply("hi")).client()))


def test_the_synced_state_holds_a_small_loader_and_no_stylesheet():
    chat = make_chat()
    state = chat.view.get_state()
    module = (STATIC / "widget.js").read_text()
    assert len(module) > 100_000  # what every chat carried before
    assert len(state["_esm"]) < 3_000 and "_css" not in state
    assert json.dumps(code_key(STATIC / "widget.js")) in state["_esm"]
    assert module[:200] not in state["_esm"]
    assert len(json.dumps(state)) < 10_000


def test_a_code_request_gets_the_module_and_its_stylesheet_and_reaches_no_other_handler():
    chat = make_chat()
    view = FakeView(chat)
    key = code_key(STATIC / "widget.js")
    view.custom({"type": "code", "key": key})
    [(content, buffers)] = view.sent
    assert content == {"type": "code", "key": key}
    assert buffers == [(STATIC / "widget.js").read_bytes(), (STATIC / "widget.css").read_bytes()]
    assert chat.view.error == ""  # not refused as an unknown message by the chat's own handlers


def test_a_request_for_other_code_gets_nothing():
    chat = make_chat()
    view = FakeView(chat)
    for content in ({"type": "code", "key": "widget:stale"}, {"type": "code"}, {"type": "code", "key": 3}):
        view.custom(content)
    assert view.sent == []
    assert chat.view.error == ""


def test_the_key_follows_the_code(tmp_path):
    module = tmp_path / "w.js"
    module.write_text("export default { render() {} };")
    first = code_key(module)
    module.write_text("export default { render() { return 1; } };")
    assert code_key(module) != first
    (tmp_path / "w.css").write_text(".a { color: red }")
    with_style = code_key(module)
    assert with_style != first and json.dumps(with_style) in loader(module)


def test_the_bench_loads_the_same_way():
    bench = nt.ToolBench([])
    state = bench.view.get_state()
    assert len(state["_esm"]) < 3_000 and "_css" not in state
    assert json.dumps(code_key(STATIC / "bench.js")) in state["_esm"]
