"""The wire protocol's one source: the committed schema and TypeScript are current, and what
each side sends is what the other side's types declare."""

import asyncio
import json
import shutil
import subprocess
import typing
from pathlib import Path

import anywidget
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import TypeAdapter, ValidationError

import notebook_tools as nt
from notebook_tools import testing as t
from notebook_tools.widgets._messages import HANDLERS
from notebook_tools.widgets._wire import (
    KernelMessage,
    Traits,
    ViewMessage,
    json_schema,
    kernel_message,
    parse_view_message,
    schema_text,
)
from tests.support.browser_double import FakeView, pending_ids, until

ROOT = Path(__file__).resolve().parents[2]
GENERATED = ROOT / "js" / "src" / "generated"
REGENERATE = "regenerate with `cd js && npm run gen` and commit js/src/generated/"
MAX_REASON = 300

# What the front end (js/src) and ScriptedUser send, one or more per type.
VIEW_EXAMPLES = [
    {"type": "hello", "view_id": "view-lx2k3-ab12cd"},
    {"type": "hello"},
    {"type": "ping", "view_id": "scripted-user"},
    {"type": "bye", "view_id": "view-lx2k3-ab12cd"},
    {"type": "retry"},
    {"type": "manual_tool", "name": "refresh", "input": {"source": "s3"}, "request_id": "run-lx2k3-ab12"},
    {"type": "clear"},
    {"type": "send", "text": "typed in the widget"},
    {"type": "stop"},
    {"type": "answer", "tool_use_id": "c1", "answer": {"value": "yes", "at": 1717171717171}},
    {"type": "answer", "tool_use_id": "s1", "answer": {"value": ["b", "c"], "at": 1717171717.25}},
    {"type": "answer", "tool_use_id": "t1", "answer": {"skip": True}},
    {"type": "answer", "tool_use_id": "a1", "answer": {"status": "success", "output": "fine"}},
    {
        "type": "answer",
        "tool_use_id": "a2",
        "answer": {"status": "failed", "error_text": "it crashed", "at": 3},
    },
    {"type": "answer", "tool_use_id": "a3", "answer": {"status": "timeout"}},
    {
        "type": "answer",
        "tool_use_id": "a4",
        "answer": {"value": {"approved": True, "edited_input": {"n": 1}, "remember": None}, "at": 4},
    },
    {
        "type": "upload_start",
        "upload_id": "up-lx2k3-ab12cd34",
        "tool_use_id": "f1",
        "name": "sales.csv",
        "size": 812,
        "media_type": "text/csv",
    },
    {"type": "upload_start", "upload_id": "scripted-1", "tool_use_id": "f1", "name": "a", "size": 0},
    {"type": "upload_chunk", "upload_id": "up-lx2k3-ab12cd34", "seq": 0},
    {"type": "list_dir", "request_id": "ls-0.123", "path": "data"},
    {"type": "list_dir", "request_id": "ls-0.456"},
    {"type": "list_dir", "request_id": "ls-0.789", "path": "data", "accept": "image/*"},
    {"type": "download", "request_id": "dl-1", "tool_use_id": "toolu_d"},
    {"type": "answer", "tool_use_id": "toolu_c", "answer": {"skip": True, "reason": "none fits", "at": 1.0}},
    {"type": "plugin", "name": "cleaning", "action": "expand", "request_id": "plugin-lx2k3-ab12"},
    {"type": "plugin", "name": "cleaning", "action": "collapse", "request_id": "plugin-lx2k3-ab13"},
    {"type": "result_page", "request_id": "page-lx2k3-ab14", "tool_use_id": "toolu_t", "start": 50},
    {"type": "continue"},
    {"type": "app_open", "request_id": "app-1", "tool_use_id": "toolu_app"},
    {
        "type": "app_request",
        "request_id": "app-2",
        "tool_use_id": "toolu_app",
        "method": "tools/call",
        "params": {"name": "get-time", "arguments": {}},
    },
    {
        "type": "app_request",
        "request_id": "app-3",
        "tool_use_id": "toolu_app",
        "method": "ui/message",
        "params": {},
    },
]

# What _messages.py, _transcript.py and _chat.py send, one or more per type.
KERNEL_EXAMPLES = [
    {"type": "items", "items": [{"id": "u0", "kind": "user", "text": "go"}]},
    {
        "type": "items",
        "items": [
            {
                "id": "toolu_1",
                "kind": "tool",
                "name": "add",
                "status": "done",
                "result": "3",
                "is_error": False,
                "duration": 0.012,
            },
            {"id": "r1", "discarded": True},
            {"id": "n1", "kind": "notice", "text": "overloaded", "level": "error", "retry": True},
        ],
    },
    {"type": "delta", "id": "r1", "text": " more words"},
    {"type": "snapshot", "items": [{"id": "h0", "kind": "user", "text": "hi"}], "page": 0, "pages": 1},
    {"type": "upload_ack", "upload_id": "u1", "received": 0, "ok": True},
    {"type": "upload_ack", "upload_id": "u1", "received": 812, "ok": True, "done": True},
    {"type": "upload_ack", "upload_id": "big", "received": 0, "ok": False, "error": "too big"},
    {
        "type": "listing",
        "request_id": "r1",
        "path": "",
        "folder": "/home/me/project",
        "entries": [
            {"name": "data", "path": "data", "is_dir": True, "size": 0, "media_type": ""},
            {"name": "pic.png", "path": "pic.png", "is_dir": False, "size": 28, "media_type": "image/png"},
        ],
        "other": 2,
        "hidden": 1,
    },
    {"type": "listing", "request_id": "r2", "path": "../etc", "entries": [], "error": "outside the folder"},
    {"type": "manual_result", "request_id": "m1", "ok": True, "is_error": False},
    {"type": "manual_result", "request_id": "m2", "ok": False, "error": "cannot be run by hand"},
    {"type": "plugin_result", "request_id": "p1", "ok": True},
    {"type": "plugin_result", "request_id": "p2", "ok": False, "error": "no plugin named 'x'"},
    {"type": "items", "items": [{"id": "toolu_2", "kind": "event", "text": "cleaning expanded · 1 tool: a"}]},
    {
        "type": "items",
        "items": [
            {"id": "k1.0", "kind": "thinking", "status": "running", "text": "Let me look"},
            {"id": "k1.1", "kind": "thinking", "status": "done", "redacted": True, "text": ""},
            {
                "id": "srvtoolu_1",
                "kind": "server_tool",
                "name": "web_search",
                "input": {"query": "tides"},
                "text": "Searched the web: tides",
                "status": "done",
                "links": [{"title": "Tides", "url": "https://example.org/t", "detail": "2 days ago"}],
            },
            {
                "id": "srvtoolu_2",
                "kind": "server_tool",
                "execution": {
                    "code": "print(1)",
                    "language": "python",
                    "stdout": "1\n",
                    "stderr": "",
                    "return_code": 0,
                },
            },
            {"id": "srvtoolu_3", "found": ["get_weather"]},
            {
                "id": "r1",
                "marks": [{"at": 12, "n": 1, "quote": "High tide at 6"}],
                "sources": [
                    {"n": 1, "title": "Tides", "url": "https://example.org/t", "quote": "High tide at 6"}
                ],
            },
            {"id": "b1.4", "kind": "compaction", "text": "Earlier, we talked about tides."},
            {
                "id": "tn3",
                "kind": "notice",
                "level": "warning",
                "text": "Claude declined to answer.",
                "explanation": "cyber: not allowed",
                "advice": "Rephrase the request.",
                "can_continue": False,
            },
        ],
    },
    {"type": "cleared"},
    {"type": "renderers", "renderers": {"pick_color": "export default () => {};"}},
    {
        "type": "download_chunk",
        "request_id": "dl-1",
        "seq": 0,
        "last": True,
        "filename": "report.csv",
        "size": 8,
        "media_type": "text/csv",
    },
    {
        "type": "download_chunk",
        "request_id": "dl-2",
        "seq": 0,
        "last": True,
        "filename": "",
        "size": 0,
        "media_type": "",
        "error": "'../x' is outside the folder files may be chosen from",
    },
    {
        "type": "items",
        "items": [
            {
                "id": "toolu_t",
                "kind": "tool",
                "status": "done",
                "result": "DataFrame: 500 rows x 1 columns",
                "shown": {
                    "kind": "table",
                    "summary": "DataFrame: 500 rows x 1 columns",
                    "mime_type": None,
                    "display": {"view": "table", "language": None, "collapsed": False, "max_height": None},
                    "data": {"columns": ["n"], "dtypes": ["int64"], "shape": [500, 1], "rows": [[0]]},
                    "files": [],
                },
            },
            {
                "id": "toolu_i",
                "shown": {
                    "kind": "binary",
                    "summary": "a.pdf (9000000 bytes)",
                    "mime_type": "application/pdf",
                    "display": {"view": None, "language": None, "collapsed": True, "max_height": 400},
                    "data": {"filename": "a.pdf", "mime_type": "application/pdf", "size": 9000000},
                    "files": [
                        {"mime_type": "image/png", "filename": None, "size": 3, "data": "AAAA"},
                        {
                            "mime_type": "application/pdf",
                            "filename": "a.pdf",
                            "size": 9000000,
                            "note": "too big",
                        },
                    ],
                    "note": "Shortened: texts longer than 200,000 characters are cut.",
                },
            },
        ],
    },
    {
        "type": "result_rows",
        "request_id": "page-1",
        "tool_use_id": "toolu_t",
        "start": 50,
        "index": [50, 51],
        "rows": [[50], [51]],
    },
    {
        "type": "result_rows",
        "request_id": "page-2",
        "tool_use_id": "gone",
        "start": 0,
        "index": [],
        "rows": [],
        "error": "this table is no longer in the kernel",
    },
    {
        "type": "app_resource",
        "request_id": "app-1",
        "tool_use_id": "toolu_app",
        "html": "<!doctype html><p>hi</p>",
        "csp": "default-src 'none'",
        "allow": "",
        "prefers_border": None,
        "tool": {"name": "get-time"},
    },
    {
        "type": "app_resource",
        "request_id": "app-0",
        "tool_use_id": "gone",
        "html": "",
        "csp": "",
        "allow": "",
        "prefers_border": None,
        "tool": {},
        "error": "no tool call of this chat has that id",
    },
    {"type": "app_reply", "request_id": "app-2", "tool_use_id": "toolu_app", "result": {"content": []}},
    {
        "type": "app_reply",
        "request_id": "app-3",
        "tool_use_id": "toolu_app",
        "error": {"code": -1, "message": "The user did not allow this tool call."},
    },
]


def union_members(alias):
    return typing.get_args(typing.get_args(alias.__value__)[0])


def tag(model_type):
    return typing.get_args(typing.get_type_hints(model_type)["type"])[0]


# -- one source: the committed files are what the Python gives --------------------------------------


def test_the_committed_schema_is_current():
    committed = (GENERATED / "protocol.schema.json").read_text(encoding="utf-8")
    assert committed == schema_text(), f"js/src/generated/protocol.schema.json is stale: {REGENERATE}"


def test_the_committed_typescript_is_current():
    node = shutil.which("node")
    if node is None or not (ROOT / "js/node_modules/json-schema-to-typescript").is_dir():
        pytest.skip("needs node and js/node_modules (cd js && npm ci)")
    generated = subprocess.run(
        [node, "scripts/gen-protocol.mjs", "--stdout"],
        input=schema_text(),
        capture_output=True,
        text=True,
        encoding="utf-8",
        cwd=ROOT / "js",
        check=True,
        timeout=60,
    ).stdout
    committed = (GENERATED / "protocol.ts").read_text(encoding="utf-8")
    assert committed == generated, f"js/src/generated/protocol.ts is stale: {REGENERATE}"
    assert committed.startswith("// generated from notebook_tools/widgets/_wire.py — do not edit")


def test_the_schema_is_one_deterministic_document_with_every_shape():
    schema = json_schema()
    assert json.dumps(schema) == json.dumps(json_schema(), sort_keys=True)
    defs = schema["$defs"]
    for name in (
        "ViewMessage",
        "KernelMessage",
        "Answer",
        "Traits",
        "PromptState",
        "Item",
        "Entry",
        "ToolInfo",
    ):
        assert name in defs
    view = {ref["$ref"].rsplit("/", 1)[1] for ref in defs["ViewMessage"]["oneOf"]}
    kernel = {ref["$ref"].rsplit("/", 1)[1] for ref in defs["KernelMessage"]["oneOf"]}
    for name in view | kernel:
        assert defs[name]["additionalProperties"] is False
        assert defs[name]["required"][0] == "type"  # the tag is never optional on the wire


def test_every_handler_has_a_message_and_every_message_a_handler():
    assert {tag(model) for model in union_members(ViewMessage)} == set(HANDLERS)
    assert {tag(shape) for shape in union_members(KernelMessage)} == {
        "items",
        "delta",
        "snapshot",
        "upload_ack",
        "listing",
        "manual_result",
        "plugin_result",
        "cleared",
        "renderers",
        "download_chunk",
        "result_rows",
        "app_resource",
        "app_reply",
    }


# -- browser -> kernel --------------------------------------------------------------------------------


@pytest.mark.parametrize("content", VIEW_EXAMPLES, ids=lambda c: c["type"])
def test_what_the_front_end_sends_is_accepted_and_round_trips(content):
    message, reason = parse_view_message(content)
    assert message is not None and reason == ""
    assert message.type == content["type"]
    assert message.model_dump(mode="json", exclude_unset=True) == content
    assert parse_view_message(json.loads(json.dumps(message.model_dump(mode="json")))) == (message, "")


def test_every_message_type_has_an_example():
    assert {c["type"] for c in VIEW_EXAMPLES} == set(HANDLERS)
    assert {c["type"] for c in KERNEL_EXAMPLES} == {tag(s) for s in union_members(KernelMessage)}


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        ("just a string", "a message must be an object with a 'type'"),
        ([{"type": "stop"}], "a message must be an object with a 'type'"),
        (None, "a message must be an object with a 'type'"),
        ({"type": 42}, "a message must be an object with a 'type'"),
        ({"view_id": "v"}, "a message must be an object with a 'type'"),
        ({"type": "launch_missiles"}, "unknown message type 'launch_missiles'"),
        ({"type": "answer", "answer": {"value": "yes"}}, "answer: 'tool_use_id' must be a non-empty string"),
        (
            {"type": "answer", "tool_use_id": "", "answer": {}},
            "answer: 'tool_use_id' must be a non-empty string",
        ),
        (
            {"type": "answer", "tool_use_id": 7, "answer": {}},
            "answer: 'tool_use_id' must be a non-empty string",
        ),
        (
            {"type": "answer", "tool_use_id": "c1"},
            "answer: 'answer' must be an answer: {'value': ...} or {'skip': true}",
        ),
        ({"type": "stop", "now": True}, "stop: unexpected field 'now'"),
        ({"type": "hello", "view_id": 3}, "hello: 'view_id' must be a string"),
        ({"type": "send", "text": ""}, "send: 'text' must be non-empty text"),
        ({"type": "send", "text": " \n\t"}, "send: 'text' must be non-empty text"),
        ({"type": "send", "text": ["hi"]}, "send: 'text' must be non-empty text"),
        (
            {"type": "upload_chunk", "upload_id": "u", "seq": True},
            "upload_chunk: 'seq' must be a whole number, 0 or more",
        ),
        (
            {"type": "upload_chunk", "upload_id": "u", "seq": "3"},
            "upload_chunk: 'seq' must be a whole number, 0 or more",
        ),
        (
            {"type": "upload_chunk", "upload_id": "u", "seq": 1.0},
            "upload_chunk: 'seq' must be a whole number, 0 or more",
        ),
        (
            {"type": "upload_chunk", "upload_id": "u", "seq": -1},
            "upload_chunk: 'seq' must be a whole number, 0 or more",
        ),
        (
            {"type": "upload_start", "upload_id": "u", "tool_use_id": "f", "name": "a", "size": "3"},
            "upload_start: 'size' must be a whole number, 0 or more",
        ),
        (
            {
                "type": "upload_start",
                "upload_id": "u",
                "tool_use_id": "f",
                "name": "a",
                "size": 1,
                "media_type": None,
            },
            "upload_start: 'media_type' must be a string",
        ),
        (
            {"type": "manual_tool", "name": "t", "input": ["a"], "request_id": "m"},
            "manual_tool: 'input' must be an object of arguments",
        ),
        (
            {"type": "manual_tool", "name": "t", "input": {1: "a"}, "request_id": "m"},
            "manual_tool: 'input' must be an object of arguments",
        ),
        ({"type": "list_dir", "request_id": "r", "path": None}, "list_dir: 'path' must be a string"),
        ({"type": "list_dir", "path": ""}, "list_dir: 'request_id' must be a non-empty string"),
    ],
)
def test_a_bad_message_is_refused_with_its_type_and_first_bad_field(content, reason):
    assert parse_view_message(content) == (None, reason)


def test_reasons_stay_short_whatever_the_message_holds():
    huge = "x" * 100_000
    nested: list = []
    for _ in range(5_000):
        nested = [nested]
    for content in (
        {"type": huge},
        {"type": "stop", huge: 1},
        {"type": "manual_tool", "name": "t", "input": {"a": nested}, "request_id": "m", huge: nested},
        {"type": "answer", "tool_use_id": nested, "answer": nested},
        {"type": "upload_chunk", "upload_id": huge, "seq": huge},
    ):
        message, reason = parse_view_message(content)
        assert message is None and 0 < len(reason) <= MAX_REASON


def json_like(floats):
    return st.recursive(
        st.none() | st.booleans() | st.integers() | floats | st.text(max_size=20),
        lambda children: (
            st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=10), children, max_size=4)
        ),
        max_leaves=30,
    )


json_values = json_like(st.floats())
finite_json = json_like(st.floats(allow_nan=False, allow_infinity=False))


@settings(max_examples=300, deadline=None)
@given(json_values)
def test_parse_never_raises_on_any_json_value(content):
    message, reason = parse_view_message(content)
    assert (message is None) != (reason == "")
    assert len(reason) <= MAX_REASON


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(sorted(HANDLERS)), st.dictionaries(st.text(max_size=12), json_values, max_size=5))
def test_parse_never_raises_on_a_known_type_with_random_fields(kind, fields):
    content = {**fields, "type": kind}
    message, reason = parse_view_message(content)
    if message is None:
        assert reason.startswith(f"{kind}: ") and len(reason) <= MAX_REASON
    else:
        assert parse_view_message(message.model_dump())[1] == ""


non_empty = st.text(min_size=1, max_size=20)
count = st.integers(min_value=0, max_value=2**53)
answers = st.one_of(
    st.fixed_dictionaries(
        {"value": finite_json}, optional={"at": st.floats(allow_nan=False, allow_infinity=False)}
    ),
    st.fixed_dictionaries({"skip": st.just(True)}, optional={"at": count}),
    st.fixed_dictionaries({"status": st.just("failed"), "error_text": non_empty}),
)
valid_view_messages = st.one_of(
    st.fixed_dictionaries(
        {"type": st.sampled_from(["hello", "ping", "bye"])}, optional={"view_id": st.text()}
    ),
    st.fixed_dictionaries({"type": st.sampled_from(["retry", "clear", "stop"])}),
    st.fixed_dictionaries(
        {
            "type": st.just("manual_tool"),
            "name": non_empty,
            "input": st.dictionaries(st.text(), finite_json, max_size=3),
            "request_id": non_empty,
        }
    ),
    st.fixed_dictionaries({"type": st.just("send"), "text": st.text(min_size=1).filter(str.strip)}),
    st.fixed_dictionaries({"type": st.just("answer"), "tool_use_id": non_empty, "answer": answers}),
    st.fixed_dictionaries(
        {
            "type": st.just("upload_start"),
            "upload_id": non_empty,
            "tool_use_id": non_empty,
            "name": non_empty,
            "size": count,
        },
        optional={"media_type": st.text()},
    ),
    st.fixed_dictionaries({"type": st.just("upload_chunk"), "upload_id": non_empty, "seq": count}),
    st.fixed_dictionaries(
        {"type": st.just("list_dir"), "request_id": non_empty}, optional={"path": st.text()}
    ),
    st.fixed_dictionaries({"type": st.just("download"), "request_id": non_empty, "tool_use_id": non_empty}),
)


@settings(max_examples=300, deadline=None)
@given(valid_view_messages)
def test_every_valid_message_is_accepted(content):
    message, reason = parse_view_message(content)
    assert reason == "" and message is not None
    assert message.model_dump(exclude_unset=True) == content


wrong_values = st.one_of(
    st.none(), st.booleans(), st.just("3"), st.just(""), st.just(1.5), st.lists(st.integers(), max_size=2)
)


@settings(max_examples=300, deadline=None)
@given(valid_view_messages, st.data())
def test_a_broken_valid_message_is_refused_naming_the_field(content, data):
    fields = sorted(k for k in content if k != "type")
    how = data.draw(st.sampled_from(["extra", "missing", "wrong"] if fields else ["extra"]))
    broken = dict(content)
    if how == "extra":
        name = data.draw(st.text(min_size=1, max_size=10).filter(lambda k: k not in content))
        broken[name] = data.draw(json_values)
    else:
        name = data.draw(st.sampled_from(fields))
        if how == "missing":
            if name in ("view_id", "media_type", "path"):  # optional: leaving them out is fine
                return
            del broken[name]
        else:
            if name == "answer":  # checked by the kernel against the prompt's kind, not here
                return
            broken[name] = data.draw(wrong_values.filter(lambda v: not _fits(name, v)))
    message, reason = parse_view_message(broken)
    assert message is None
    assert reason.startswith(f"{content['type']}: ") and repr(name) in reason
    assert len(reason) <= MAX_REASON


def _fits(name, value):
    if name in ("view_id", "media_type", "path"):
        return isinstance(value, str)
    if name in ("size", "seq"):
        return type(value) is int and value >= 0
    if name == "input":
        return isinstance(value, dict)
    if name == "text":
        return isinstance(value, str) and bool(value.strip())
    return isinstance(value, str) and value != ""  # the ids and names: non-empty strings


# -- kernel -> browser -------------------------------------------------------------------------------


@pytest.mark.parametrize("content", KERNEL_EXAMPLES, ids=lambda c: c["type"])
def test_what_the_kernel_sends_is_declared_and_round_trips(content):
    assert kernel_message(content) == content
    assert kernel_message(json.loads(json.dumps(content))) == content


@pytest.mark.parametrize(
    "content",
    [
        {"type": "party"},
        {"type": "items", "items": [{"kind": "user"}]},  # no id
        {"type": "items", "items": [{"id": "x", "colour": "red"}]},
        {"type": "delta", "id": "r1", "text": 3},
        {"type": "snapshot", "items": [], "page": 0, "pages": "1"},
        {"type": "upload_ack", "upload_id": "u", "received": True, "ok": True},
        {"type": "listing", "request_id": "r", "path": 5, "entries": []},
        {"type": "manual_result", "request_id": "m", "ok": 1},
        {"type": "cleared", "why": "because"},
    ],
)
def test_a_malformed_kernel_message_is_a_bug_that_raises(content):
    with pytest.raises(ValidationError):
        kernel_message(content)


@nt.tool(executor="frontend", renderer=nt.Renderer(esm="export default ({ submit }) => submit('red');"))
def pick_color() -> str:
    """Ask the user to pick a colour."""


def test_a_real_chat_sends_only_declared_messages_and_syncs_declared_traits(make_agent, tmp_path):
    """Every message the kernel sends in a session that uses each one fits `KernelMessage`."""

    (tmp_path / "notes.txt").write_text("notes")
    agent, script = make_agent(
        t.turn("Let me look.", t.tool_use("add", {"a": 1, "b": 2}, id="a1")),
        t.turn("Which file?", t.tool_use("pick_file", {"prompt": "Data?"}, id="f1")),
        t.turn("Here it is.", t.tool_use("download_file", {"path": "notes.txt"}, id="d1")),
        t.reply("Thanks, " + "word " * 50),
        frontend_tools=[nt.pick_file, nt.download_file, pick_color],
    )
    script.text_chunk = 7
    chat = nt.Chat(agent, root=tmp_path, upload_dir=tmp_path / "up")
    view = FakeView(chat)
    sent_by_view = []

    def custom(content, buffers=None):
        sent_by_view.append(content)
        FakeView.custom(view, content, buffers)

    view.custom = custom

    def synced_traits():
        widget = view.widget  # the anywidget the browser talks to
        names = set(widget.trait_names(sync=True)) - set(anywidget.AnyWidget.class_trait_names(sync=True))
        names = {name for name in names if not name.startswith("_")}
        assert names == set(Traits.__required_keys__)
        TypeAdapter(Traits).validate_python({name: getattr(widget, name) for name in names})

    async def main():
        view.custom({"type": "hello", "view_id": "v1"})
        task = asyncio.ensure_future(chat.send("go"))
        await until(lambda: pending_ids(chat) or task.done())
        synced_traits()  # with a prompt open
        view.custom({"type": "list_dir", "request_id": "r1", "path": ""})
        view.custom(
            {"type": "upload_start", "upload_id": "u1", "tool_use_id": "f1", "name": "a.csv", "size": 4}
        )
        view.custom({"type": "upload_chunk", "upload_id": "u1", "seq": 0}, [b"a,b\n"])
        view.custom(
            {"type": "answer", "tool_use_id": "f1", "answer": {"value": {"uploads": ["u1"]}, "at": 1}}
        )
        await until(lambda: "d1" in pending_ids(chat))
        view.custom({"type": "download", "request_id": "dl1", "tool_use_id": "d1"})
        output = {"filename": "notes.txt", "bytes": 5, "via": "auto"}
        view.custom(
            {"type": "answer", "tool_use_id": "d1", "answer": {"status": "success", "output": output}}
        )
        await task
        view.custom({"type": "manual_tool", "name": "add", "input": {"a": 1, "b": 1}, "request_id": "m1"})
        await until(lambda: view.of_type("manual_result"))
        view.custom({"type": "hello", "view_id": "v2"})
        view.custom({"type": "result_page", "request_id": "pg1", "tool_use_id": "a1", "start": 0})
        view.custom({"type": "plugin", "name": "cleaning", "action": "expand", "request_id": "p1"})
        view.custom({"type": "app_open", "request_id": "ap1", "tool_use_id": "a1"})  # not an app: an error
        request = {"type": "app_request", "request_id": "ap2", "tool_use_id": "a1"}
        view.custom({**request, "method": "ui/open-link", "params": {"url": "https://example.com"}})
        await until(lambda: view.of_type("app_resource") and view.of_type("app_reply"))
        view.custom({"type": "clear"})

    asyncio.run(main())
    synced_traits()
    for content, _buffers in view.sent:
        kernel_message(content)
    assert {content["type"] for content, _ in view.sent} == {tag(s) for s in union_members(KernelMessage)}
    for content in sent_by_view:
        assert parse_view_message(content)[1] == ""
    assert [e for e in chat.errors if "cannot be run by hand" not in e and "no plugin" not in e] == []
