"""AG-UI client tools: schemas, names and timeouts refused up front, or run checking the model's arguments."""

from __future__ import annotations

import http.server
import json
import re
import threading
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import notebook_tools as nt
from notebook_tools import testing as t
from notebook_tools.api import request_errors
from tests.support.agui_app import TOOL, App, body, events, post, refused, tool, waiting
from tests.support.http_helpers import (
    free_port,
)
from tests.support.server_agents import approval_agent
from tests.support.server_requests import _agui_app, _agui_body, _agui_events, _pick, client, run, valid


@pytest.mark.parametrize("timeout", ["Infinity", "NaN", "1e308", "1e20", "-Infinity"])
def test_an_absurd_client_tool_timeout_is_refused_not_a_broken_stream(timeout: str):
    app, store = _agui_app(t.turn("Picking.", t.tool_use("pick", {"hint": "a"})))
    body = json.dumps(_agui_body(tools=[_pick(timeout=12345)])).replace("12345", timeout)

    async def go() -> None:
        async with client(app) as c:
            r = await c.post("/agui", content=body.encode(), headers={"content-type": "application/json"})
            assert r.status_code in (400, 422), r.text[-400:]
            assert store.list_sessions() == []

    run(go())


def test_a_client_tool_schema_nested_too_deep_is_refused_not_a_500():
    schema: dict[str, Any] = {"type": "object"}
    inner = schema
    for _ in range(400):
        inner["properties"] = {"a": {"type": "object"}}
        inner = inner["properties"]["a"]
    app, _store = _agui_app(t.reply("ok"))

    async def go() -> None:
        async with client(app) as c:
            r = await c.post("/agui", json=_agui_body(tools=[_pick(parameters=schema)]))
            assert r.status_code in (200, 422), r.text[-300:]

    run(go())


@pytest.mark.parametrize(
    "parameters",
    [
        {"type": "object", "properties": {"x": {"$ref": "http://127.0.0.1:9/evil.json"}}},
        {"type": "object", "properties": {"x": {"$ref": "#/nowhere"}}},
        {"type": "object", "properties": {"x": {"pattern": "(unclosed"}}},
        {"type": "object", "$defs": {"a": {"$ref": "#/$defs/a"}}, "properties": {"x": {"$ref": "#/$defs/a"}}},
        {
            "type": "object",
            "properties": {"x": {"type": "string", "format": "email"}},
            "required": ["x", "x"],
        },
        {"type": "object", "additionalProperties": False, "properties": {}},
    ],
)
def test_odd_client_tool_schemas_are_refused_or_run_without_a_500(parameters: dict[str, Any]):
    app, store = _agui_app(t.turn("Picking.", t.tool_use("pick", {"x": "a"})), t.reply("done"))

    async def go() -> None:
        async with client(app) as c:
            r = await c.post("/agui", json=_agui_body(tools=[_pick(parameters=parameters)]))
            assert r.status_code in (200, 422), r.text[-300:]
            if r.status_code == 200:
                found = _agui_events(r)
                assert found[-1]["type"] in ("RUN_FINISHED", "RUN_ERROR"), found[-1]
            for u in store.list_sessions():
                valid(store.load(u))

    run(go())


@pytest.mark.parametrize(
    ("tool", "status"),
    [
        ({"name": "pick", "description": "d", "metadata": ["timeout", 5]}, 422),
        ({"name": "pick", "description": "d", "metadata": {"timeout": "30"}}, 422),
        ({"name": "pick", "description": "d", "metadata": {"timeout": True}}, 422),
        ({"name": "pick", "description": "d", "parameters": {"type": "array"}}, 422),
        ({"name": "pick", "description": "d", "parameters": "not a schema"}, 422),
        ({"name": "bad name!", "description": "d"}, 422),
        ({"name": "x" * 65, "description": "d"}, 422),
        (
            {
                "name": "pick",
                "description": "d",
                "parameters": {"type": "object", "properties": {"a": {"type": 5}}},
            },
            422,
        ),
    ],
)
def test_odd_client_tools_are_refused_with_a_clear_4xx(tool: dict[str, Any], status: int):
    app, store = _agui_app(t.reply("ok"))

    async def go() -> None:
        async with client(app) as c:
            r = await c.post("/agui", json=_agui_body(tools=[tool]))
            assert r.status_code in (status, 413), r.text[:300]
            assert store.list_sessions() == []

    run(go())


@pytest.fixture
def schema_host() -> Iterator[tuple[str, list[str]]]:
    """An HTTP server that serves a schema and records every request it gets."""
    hits: list[str] = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            hits.append(self.path)
            data = b'{"type": "string"}'
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args: Any) -> None:
            pass

    server = http.server.HTTPServer(("127.0.0.1", free_port()), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}", hits
    finally:
        server.shutdown()
        server.server_close()


def test_a_remote_ref_in_a_client_tool_schema_is_refused_and_never_fetched(schema_host):
    # Found: jsonschema's default registry still fetches a remote $ref with urllib (blocking the event
    # loop, no timeout), so a client's tool schema made the server GET any URL (169.254.169.254 ...).
    base, hits = schema_host
    app = App(t.turn("Picking.", t.tool_use(TOOL, {"x": "a"})), t.reply("done"))
    for ref in (f"{base}/latest/meta-data", f"{base}/schema.json#/x", "//127.0.0.1:1/x"):
        parameters = {"type": "object", "properties": {"x": {"$ref": ref}}}
        [r] = post(app, body([tool(parameters)]))
        refused(r, 422, "$ref", "nothing is fetched")
    nested = {"type": "object", "$id": f"{base}/root.json", "properties": {"x": {"$ref": "other.json"}}}
    [r] = post(app, body([tool(nested)]))
    refused(r, 422, "other.json")
    assert hits == [] and app.store.list_sessions() == [] and app.script.requests == []


def test_the_core_validator_never_fetches_a_remote_ref(schema_host):
    base, hits = schema_host
    backend = nt.Tool(
        lambda **kw: None,
        name="fetchy",
        description="d",
        executor="frontend",
        input_schema={"type": "object", "properties": {"x": {"$ref": f"{base}/s.json"}}},
        output_schema={"$ref": f"{base}/out.json"},
    )
    with pytest.raises(Exception, match="Unresolvable"):
        backend.input_errors({"x": 1})
    with pytest.raises(Exception, match="Unresolvable"):
        backend.output_value_errors(1)
    assert hits == []
    metaschema = nt.Tool(
        lambda **kw: None,
        name="meta",
        description="d",
        executor="frontend",
        input_schema={
            "type": "object",
            "properties": {"s": {"$ref": "https://json-schema.org/draft/2020-12/schema"}},
        },
    )
    assert metaschema.input_errors({"s": {"type": "object"}}) == []  # the metaschemas are still known
    assert metaschema.input_errors({"s": {"type": 5}}) != []


@pytest.mark.parametrize(
    ("parameters", "named"),
    [
        ({"type": "object", "properties": {"x": {"$ref": "#/nowhere"}}}, "#/nowhere"),
        ({"type": "object", "properties": {"x": {"$ref": "#/$defs/missing"}}, "$defs": {}}, "#/$defs/missing"),
        ({"type": "object", "properties": {"x": {"$ref": "#no-such-anchor"}}}, "#no-such-anchor"),
        ({"type": "object", "properties": {"x": {"allOf": [{}]}, "y": {"$ref": "#/properties/x/allOf/abc"}}}, "allOf/abc"),
        ({"type": "object", "properties": {"x": {"enum": [{"allOf": 5}]}, "y": {"$ref": "#/properties/x/enum/0"}}}, "enum/0"),
        ({"type": "object", "properties": {"x": {"type": "string"}, "y": {"$ref": "#/properties/x/type"}}}, "x/type"),
        ({"type": "object", "properties": {"x": {"$dynamicRef": "#nowhere"}}}, "$dynamicRef"),
        ({"type": "object", "$defs": {"a": {"$ref": "#/$defs/a"}}, "properties": {"x": {"$ref": "#/$defs/a"}}}, "loop"),
        ({"type": "object", "$defs": {"a": {"allOf": [{"$ref": "#/$defs/b"}]}, "b": {"not": {"$ref": "#/$defs/a"}}}, "properties": {"x": {"$ref": "#/$defs/a"}}}, "loop"),
        ({"type": "object", "anyOf": [{"$ref": "#"}]}, "loop"),
        ({"type": "object", "properties": {"x": {"if": {"type": "string"}, "then": {"$ref": "#/properties/x"}}}}, "loop"),
    ],
)  # fmt: skip
def test_client_tool_schemas_whose_references_break_at_call_time_are_refused_up_front(
    parameters: dict[str, Any], named: str
):
    # Found: these passed the metaschema check, then the model's call of the tool raised inside the run
    # (PointerToNowhere, ValueError, RecursionError): the stream died with RUN_ERROR naming jsonschema's
    # private classes, after the thread was created.
    app = App(t.turn("Picking.", t.tool_use(TOOL, {"x": "a", "y": "b"})), t.reply("done"))
    [r] = post(app, body([tool(parameters)]))
    refused(r, 422, named, TOOL)
    assert app.store.list_sessions() == [] and app.script.requests == []


TREE = {
    "type": "object",
    "$defs": {
        "node": {
            "type": "object",
            "properties": {
                "label": {"type": "string"},
                "children": {"type": "array", "items": {"$ref": "#/$defs/node"}},
            },
            "required": ["label"],
            "additionalProperties": False,
        }
    },
    "properties": {"root": {"$ref": "#/$defs/node"}},
    "required": ["root"],
}
REAL_WORLD = [
    pytest.param(
        TREE,
        {"root": {"label": "a", "children": [{"label": "b", "children": []}]}},
        {"root": {"label": "a", "children": [{"lbl": "b"}]}},
        "'label' is a required property",
        id="recursive-defs",
    ),
    pytest.param(
        {"type": "object", "properties": {"name": {"type": "string"}, "child": {"$ref": "#"}}},
        {"name": "a", "child": {"name": "b", "child": {}}},
        {"name": "a", "child": {"name": 5}},
        "child/name",
        id="recursive-root",
    ),
    pytest.param(
        {
            "type": "object",
            "properties": {
                "when": {"anyOf": [{"type": "string", "format": "date-time"}, {"type": "null"}]},
                "email": {"type": ["string", "null"], "format": "email"},
                "mode": {"enum": ["a", 1, None, True, {"k": [1]}]},
            },
            "required": ["when", "email", "mode"],
            "additionalProperties": False,
        },
        {"when": None, "email": "a@b.example", "mode": {"k": [1]}},
        {"when": 5, "email": "a@b.example", "mode": "z"},
        "'z' is not one of",
        id="openai-strict",
    ),
    pytest.param(
        {
            "type": "object",
            "properties": {
                "url": {"type": "string", "format": "uri"},
                "tags": {"type": "array", "items": {"type": "string"}},
                "kind": {"$ref": "#/definitions/kind"},
            },
            "required": ["url"],
            "additionalProperties": False,
            "definitions": {"kind": {"type": "string", "enum": ["a", "b"]}},
            "$schema": "http://json-schema.org/draft-07/schema#",
        },
        {"url": "https://example.com", "kind": "a"},
        {"tags": [1], "kind": "c"},
        "'url' is a required property",
        id="zod-draft-07",
    ),
    pytest.param(
        {
            "$defs": {"Color": {"enum": ["red", "green"], "title": "Color", "type": "string"}},
            "properties": {
                "color": {"$ref": "#/$defs/Color"},
                "alt": {"anyOf": [{"$ref": "#/$defs/Color"}, {"type": "null"}], "default": None},
            },
            "required": ["color"],
            "title": "Pick",
            "type": "object",
        },
        {"color": "red", "alt": None},
        {"color": "blue"},
        "'blue' is not one of",
        id="pydantic",
    ),
    pytest.param(
        {"type": "object", "$defs": {"n": {"$anchor": "count", "type": "integer"}}, "properties": {"n": {"$ref": "#count"}}},
        {"n": 1},
        {"n": "x"},
        "'x' is not of type 'integer'",
        id="anchor",
    ),
    pytest.param(
        {"type": "object", "properties": {"x": {"type": "string"}}, "required": ["x", "absent"]},
        {"x": "a", "absent": 1},
        {"x": "a"},
        "'absent' is a required property",
        id="required-absent-property",
    ),
]  # fmt: skip


@pytest.mark.parametrize(("parameters", "good", "bad", "complaint"), REAL_WORLD)
def test_real_world_client_schemas_run_and_check_the_models_arguments(
    parameters: dict[str, Any], good: dict[str, Any], bad: dict[str, Any], complaint: str
):
    app = App(
        t.turn("Picking.", t.tool_use(TOOL, good)),
        t.turn("Again.", t.tool_use(TOOL, bad)),
        t.reply("I will fix that."),
    )
    first, second = post(
        app,
        body([tool(parameters)]),
        body(
            [tool(parameters)],
            run="r2",
            resume=[{"interruptId": "tool_call:toolu_scripted_0001", "status": "resolved", "payload": "ok"}],
        ),
    )
    [interrupt] = waiting(events(first))
    assert interrupt["metadata"]["arguments"] == good
    found = events(second)
    result = [e for e in found if e["type"] == "TOOL_CALL_RESULT"][-1]
    assert complaint in result["content"], result
    assert app.script.refused == []
    valid(app.store.load("th"))


def _doubling(levels: int) -> dict[str, Any]:
    """Each level an `anyOf` of two references to the next: 2**levels subschemas for a failing value."""
    defs: dict[str, Any] = {
        f"a{i}": {"anyOf": [{"$ref": f"#/$defs/a{i + 1}"}, {"$ref": f"#/$defs/a{i + 1}"}]}
        for i in range(levels)
    }
    defs[f"a{levels}"] = {"type": "string"}
    return {"type": "object", "$defs": defs, "properties": {"x": {"$ref": "#/$defs/a0"}}}


def test_a_schema_whose_alternatives_multiply_is_refused_before_it_can_stall_the_worker():
    # Found: 18 such levels took jsonschema 33 s to check the model's {"x": 1} (every branch of a failing
    # anyOf is tried), on the event loop: every request of the worker waited; 30 levels would take years.
    app = App(t.turn("Picking.", t.tool_use(TOOL, {"x": 1})), t.reply("done"))
    [r] = post(app, body([tool(_doubling(30))]))
    refused(r, 422, "multiply")
    assert app.store.list_sessions() == [] and app.script.requests == []
    # a wide but flat union (a generated API client's 300 types, each a base and its own fields) is fine
    types = {
        f"T{i}": {"allOf": [{"$ref": "#/$defs/Base"}, {"properties": {f"f{i}": {"type": "string"}}}]}
        for i in range(300)
    }
    wide = {
        "type": "object",
        "$defs": {"Base": {"type": "object", "required": ["kind"]}, **types},
        "properties": {"x": {"anyOf": [{"$ref": f"#/$defs/T{i}"} for i in range(300)]}},
    }
    [r] = post(app, body([tool(wide)]))
    found = events(r)
    assert next(e for e in found if e["type"] == "TOOL_CALL_RESULT")["content"].startswith("Invalid input")
    [r] = post(App(t.reply("fine")), body([tool(_doubling(10))]))  # about 4 * 2**10 subschemas at most
    events(r)


@pytest.mark.parametrize(
    "name", ["pick\n", "pick\r\n", "pïck", "pick🎨", "pick tool", "", "a" * 65, "pick.v2"]
)
def test_client_tool_names_the_messages_api_refuses_are_refused_before_anything_runs(name: str):
    # Found: "pick\n" passed `^...$` (a "$" matches before a final newline), so the run started, the
    # Messages API refused the request (400) and the stream ended in RUN_ERROR after the thread was made.
    app = App(t.turn("Picking.", t.tool_use(TOOL, {})), t.reply("done"))
    [r] = post(app, body([tool(name=name)]))
    assert r.status_code == 422, r.text[:300]
    assert app.store.list_sessions() == [] and app.script.requests == []
    with pytest.raises(nt.ToolDefinitionError):
        nt.tool(name=name, executor="frontend")(lambda: None)


def test_many_tools_huge_and_unicode_descriptions_and_collisions():
    app = App(
        t.turn("Picking.", t.tool_use("t_63", {})),
        t.reply("done"),
        tools=[approval_agent().tools["drop_rows"]],
    )
    many = [tool(name=f"t_{i}", description="🎨 Ünïcode « quotes » \u2028 " * 200) for i in range(64)]
    [r] = post(app, body(many))
    found = events(r)
    [interrupt] = waiting(found)
    assert interrupt["metadata"]["toolName"] == "t_63"
    assert len(app.script.requests[0]["tools"]) == 65
    other = App(t.reply("one"), t.reply("two"), tools=[approval_agent().tools["drop_rows"]])
    cases = [
        ([tool(name=f"t_{i}") for i in range(200)], 422, "at most 64"),
        ([tool(), tool()], 422, "two client tools"),
        ([tool(name="drop_rows")], 409, "clashes"),
        ([tool({"type": "string"})], 422, '"type": "object"'),
        ([tool({"type": "object", "properties": {"x": {"type": "strng"}}})], 422, "not a valid JSON Schema"),
        ([tool({"type": "object", "required": "x"})], 422, "not a valid JSON Schema"),
    ]
    for tools, status, named in cases:
        [r] = post(other, body(tools))
        refused(r, status, named)
    assert other.store.list_sessions() == [] and other.script.requests == []
    for parameters in (None, {}):  # no parameters, or any value: a tool that takes none
        [r] = post(other, body([{"name": "bare", "description": "no schema", "parameters": parameters}]))
        events(r)
        assert other.script.requests[-1]["tools"][-1]["input_schema"] == {"type": "object", "properties": {}}


def test_client_tool_schemas_too_large_to_check_quickly_are_refused_before_checking(monkeypatch):
    # Found: checking a schema against the metaschema takes about 0.1 ms an object, on the event loop:
    # one 1 MB tool schema (40,000 properties) held every request of the worker for 10 s.
    from notebook_tools.server import _client_schemas
    from notebook_tools.server._client_schemas import MAX_SCHEMA_NODES

    checked: list[Any] = []
    check = _client_schemas._problem
    monkeypatch.setattr(_client_schemas, "_KNOWN", {})
    monkeypatch.setattr(_client_schemas, "_problem", lambda schema: checked.append(schema) or check(schema))
    app = App(t.reply("never"))
    huge = {"type": "object", "properties": {f"p{i}": {"type": "string"} for i in range(30_000)}}
    spread = [
        tool({"type": "object", "properties": {f"p{i}": {} for i in range(70)}}, name=f"t{j}")
        for j in range(60)
    ]
    for tools in ([tool(huge)], spread):
        [r] = post(app, body(tools))
        refused(r, 422, str(MAX_SCHEMA_NODES))
    assert checked == []  # refused by their size before any schema was checked
    assert app.store.list_sessions() == [] and app.script.requests == []
    fine = [
        tool({"type": "object", "properties": {f"p{i}": {"type": "string"} for i in range(30)}}, name=f"t{j}")
        for j in range(60)
    ]
    [r] = post(App(t.reply("ok")), body(fine))
    events(r)
    assert len(checked) == 1  # sixty tools, one schema: checked once
    [r] = post(App(t.reply("ok")), body(fine))  # the same tools again: their answer is remembered
    events(r)
    assert len(checked) == 1


_DEFS = ["a", "b", "c"]
_leaf = st.sampled_from(
    [
        {},
        {"type": "string"},
        {"type": "integer"},
        {"type": ["string", "null"]},
        {"enum": [1, "x", None]},
        True,
    ]
)


def _wrap(inner: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.one_of(
        st.builds(lambda s: {"allOf": [s]}, inner),
        st.builds(lambda s, u: {"anyOf": [s, u]}, inner, inner),
        st.builds(lambda s: {"not": s}, inner),
        st.builds(lambda s: {"if": {"type": "string"}, "then": s}, inner),
        st.builds(lambda s: {"type": "object", "properties": {"k": s}}, inner),
        st.builds(lambda s: {"type": "array", "items": s}, inner),
    )


_subschema = st.recursive(
    st.one_of(_leaf, st.sampled_from([{"$ref": f"#/$defs/{d}"} for d in [*_DEFS, "zz"]] + [{"$ref": "#"}])),
    _wrap,
    max_leaves=6,
)
_value = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(-5, 5), st.sampled_from(["x", "y"])),
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.sampled_from(["k", "x"]), inner, max_size=2)
    ),
    max_leaves=8,
)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    defs=st.dictionaries(st.sampled_from(_DEFS), _subschema, max_size=3),
    x=_subschema,
    arguments=st.dictionaries(st.sampled_from(["x", "y"]), _value, max_size=2),
)
def test_random_schemas_with_references_are_refused_or_run_to_the_end(
    defs: dict[str, Any], x: Any, arguments: dict[str, Any]
):
    parameters = {"type": "object", "$defs": defs, "properties": {"x": x}}
    app = App(t.turn("Picking.", t.tool_use(TOOL, arguments)), t.reply("done"))
    [r] = post(app, body([tool(parameters)]))
    if r.status_code == 422:
        assert app.store.list_sessions() == [] and app.script.requests == []
        return
    found = events(r)  # RUN_FINISHED: the model's call was checked without an error of the server's
    assert not [e for e in found if e["type"] == "RUN_ERROR"]
    valid(app.store.load("th"))
    assert re.fullmatch(r"(interrupt|success)", found[-1]["outcome"]["type"])


@pytest.mark.parametrize("key", ["filter[id]", "Account Number", "prénom", "a" * 65, "", "emoji🎨"])
def test_client_tool_property_names_the_messages_api_refuses_are_refused_before_anything_runs(key: str):
    # Found: the real API refuses a tool whose input_schema has such a top-level property name (400
    # "Property keys should match pattern '^[a-zA-Z0-9_.-]{1,64}$'"), so such a client tool (a REST query
    # parameter's name, a form label) made the run start and die with RUN_ERROR after the thread was
    # made; the scripted API did not know the rule, so no test could see it.
    parameters = {"type": "object", "properties": {key: {"type": "string"}, "ok.name-1": {"type": "string"}}}
    app = App(t.turn("Picking.", t.tool_use(TOOL, {})), t.reply("done"))
    [r] = post(app, body([tool(parameters)]))
    refused(r, 422, repr(key)[:20], "property names")
    assert app.store.list_sessions() == [] and app.script.requests == []
    request = {
        "model": "m",
        "max_tokens": 5,
        "messages": [{"role": "user", "content": "hi"}],
        "tools": [{"name": TOOL, "input_schema": parameters}],
    }
    assert any("Property keys should match pattern" in e for e in request_errors(request))
    nested = {
        "type": "object",
        "properties": {"q": {"type": "object", "properties": {key: {"type": "string"}}}},
    }
    assert request_errors({**request, "tools": [{"name": TOOL, "input_schema": nested}]}) == []
    [r] = post(app, body([tool(nested)]))  # the API checks the top level only
    events(r)
    assert app.script.refused == []
