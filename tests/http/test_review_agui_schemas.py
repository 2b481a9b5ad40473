"""A hostile review of client tool schemas and resumes, as real AG-UI clients and clumsy integrators send them.

Client tools (`RunAgentInput.tools`) as CopilotKit, the Vercel AI SDK (zod) and OpenAI function
calling users write them: `$defs` and `$ref` (recursive too), `anyOf` with null, type lists,
formats, mixed enums, `additionalProperties: false`, odd names, many tools, broken schemas. Then
resumes carrying answers those schemas or the server's tools refuse, the reference contract with the
same kinds of content, and two resumes racing on SQLite. The rules: a clean 4xx naming the problem
and nothing changed, or a run that works and checks what it is given; never a 500, a traceback, a
request the server makes on a client's behalf, or a stream that dies of an internal error.
"""

from __future__ import annotations

import asyncio
import http.server
import json
import re
import threading
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from ag_ui_validate.pytest_plugin import assert_valid_agui
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import notebook_tools as nt
from notebook_tools import testing as t
from notebook_tools.api._rules import history_errors, request_errors
from notebook_tools.server import create_app
from notebook_tools.session import _transitions as tr
from tests.support.http_helpers import AUTH, TOKEN, element, elements, free_port, parse_sse
from tests.support.server_agents import approval_agent

TOOL = "pick"


def valid(state: nt.AgentState | None) -> None:
    assert state is not None
    tr.check_invariant(state)
    errors, _ = history_errors(state.messages)
    assert errors == [], errors


class App:
    """An app on a scripted model (a fresh script per app) and a store."""

    def __init__(self, *steps: Any, store: nt.SessionStore | None = None, **agent: Any) -> None:
        self.script = t.ScriptedTransport(*steps)
        self.store = store if store is not None else nt.InMemoryStore()
        the_client = self.script.client()
        self.app = create_app(
            lambda: nt.Agent(client=the_client, model="claude-test", **agent), store=self.store, token=TOKEN
        )

    def client(self) -> httpx.AsyncClient:
        transport = httpx.ASGITransport(app=self.app, raise_app_exceptions=False)
        return httpx.AsyncClient(transport=transport, base_url="http://t", headers=AUTH)


def body(tools: list[Any] | None = None, thread: str = "th", run: str = "r1", **extra: Any) -> dict[str, Any]:
    found: dict[str, Any] = {
        "threadId": thread,
        "runId": run,
        "messages": [{"id": "u", "role": "user", "content": "hi"}],
        **extra,
    }
    if tools is not None:
        found["tools"] = tools
    return found


def tool(parameters: Any = None, name: str = TOOL, description: str = "Pick one.") -> dict[str, Any]:
    return {"name": name, "description": description, "parameters": parameters}


def events(r: httpx.Response) -> list[dict[str, Any]]:
    assert r.status_code == 200, r.text[:500]
    # SSE lines end only at CR or LF (str.splitlines would also split at U+2028 inside a JSON string)
    found = [json.loads(line[6:]) for line in r.text.split("\n") if line.startswith("data: ")]
    assert_valid_agui(found, max_warnings=0)
    assert found[-1]["type"] == "RUN_FINISHED", found[-1]
    return found


def refused(r: httpx.Response, status: int, *named: str) -> dict[str, Any]:
    assert r.status_code == status, r.text[:500]
    answer: dict[str, Any] = r.json()
    assert "Traceback" not in r.text
    for word in named:
        assert word in answer["error"], (word, answer)
    return answer


def post(app: App, *payloads: dict[str, Any] | bytes) -> list[httpx.Response]:
    async def go() -> list[httpx.Response]:
        out = []
        async with app.client() as c:
            for p in payloads:
                if isinstance(p, bytes):
                    out.append(await c.post("/agui", content=p, headers={"content-type": "application/json"}))
                else:
                    out.append(await c.post("/agui", json=p))
        return out

    return asyncio.run(go())


# -- remote references: the server must never fetch what a client's schema names ---------------------


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


# -- references that fail only when the model calls the tool --------------------------------------


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
            resume=[{"interruptId": "tool_call:toolu_scripted_0002", "status": "resolved", "payload": "ok"}],
        ),
    )
    [interrupt] = events(first)[-1]["outcome"]["interrupts"]
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


# -- names, counts and sizes -----------------------------------------------------------------------


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
    [interrupt] = found[-1]["outcome"]["interrupts"]
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


# -- numbers JSON can write but a float cannot hold ---------------------------------------------------


def test_a_number_too_large_for_a_float_is_refused_anywhere_in_an_agui_body():
    # Found: 1e400 parsed as Infinity (only the literal NaN/Infinity were refused): as a schema bound it
    # ended the run with "ValueError: Out of range float values are not JSON compliant" (the thread was
    # made), and as a resume payload the model was told '{"v": Infinity}', which is not JSON.
    app = App(t.turn("Picking.", t.tool_use(TOOL, {"x": 1})), t.reply("done"))
    schema = json.dumps(body([tool({"type": "object", "properties": {"x": {"maximum": 12345}}})]))
    [r] = post(app, schema.replace("12345", "1e400").encode())
    refused(r, 400, "1e400")
    assert app.store.list_sessions() == [] and app.script.requests == []
    [first] = post(app, body([tool()]))
    [interrupt] = events(first)[-1]["outcome"]["interrupts"]
    before = app.store.load("th")
    for number in ("1e400", "-1E+999", "123456789e999"):
        entry = {"interruptId": interrupt["id"], "status": "resolved", "payload": {"v": 12345}}
        raw = json.dumps(body([tool()], run="r2", resume=[entry])).replace("12345", number)
        [r] = post(app, raw.encode())
        refused(r, 400, "too large")
        assert app.store.load("th") == before
    ok = {"interruptId": interrupt["id"], "status": "resolved", "payload": {"v": 1e300, "w": 10**30}}
    [r] = post(app, body([tool()], run="r3", resume=[ok]))
    events(r)
    assert (
        app.script.requests[-1]["messages"][-1]["content"][0]["content"]
        == '{"v": 1e+300, "w": 1000000000000000000000000000000}'
    )


@nt.tool(executor="frontend", output_schema={"type": "number", "multipleOf": 0.5}, timeout=None)
def rate(prompt: str) -> str:
    """Ask the person for a rating in halves.

    Args:
        prompt: What to rate.
    """
    return ""


def test_a_huge_integer_answer_to_a_schema_with_a_float_keyword_is_refused_not_a_500():
    # Found: jsonschema raised OverflowError (int too large to convert to float) checking 10**400
    # against multipleOf 0.5: the AG-UI resume was answered 500, and the model's arguments would end a run.
    huge = "1" + "0" * 400
    app = App(
        *[t.turn("Rating.", t.tool_use("rate", {"prompt": "the chart"})), t.reply("ok")] * 2,
        frontend_tools=[rate],
    )
    [first] = post(app, body())
    [interrupt] = events(first)[-1]["outcome"]["interrupts"]
    before = app.store.load("th")
    entry = {"interruptId": interrupt["id"], "status": "resolved", "payload": 12345}
    [r] = post(app, json.dumps(body(run="r2", resume=[entry])).replace("12345", huge).encode())
    refused(r, 422, "too large to check")
    assert app.store.load("th") == before
    [r] = post(app, body(run="r3", resume=[{**entry, "payload": 2.5}]))
    events(r)
    valid(app.store.load("th"))

    async def reference() -> None:
        async with app.client() as c:
            messages = parse_sse((await c.post("/agent/run", json={"message": "rate it"})).text)
            agent_uuid = element(messages[0][1])["agent_uuid"]
            [call] = elements(messages, "awaiting_frontend_tools")[0]
            stored = app.store.load(agent_uuid)
            results = [{"tool_use_id": call["tool_use_id"], "content": huge}]
            r = await c.post("/agent/tool_results", json={"agent_uuid": agent_uuid, "tool_results": results})
            refused(r, 422, "too large to check")
            assert app.store.load(agent_uuid) == stored

    asyncio.run(reference())
    schema = {"type": "object", "properties": {"n": {"multipleOf": int(huge)}}}
    assert nt.Tool(lambda **kw: None, name="n", executor="frontend", input_schema=schema).input_errors(
        {"n": 1.5}
    )


# -- resumes carrying what the schemas refuse ---------------------------------------------------------


def _paused(app: App, tools: list[Any] | None = None) -> tuple[str, nt.AgentState]:
    [first] = post(app, body(tools))
    [interrupt] = events(first)[-1]["outcome"]["interrupts"]
    state = app.store.load("th")
    assert state is not None
    return interrupt["id"], state


@pytest.mark.parametrize(
    ("payload", "status"),
    [
        ("x" * 100_001, 422),  # over max_result_chars
        ({"k": "x" * 100_000}, 422),  # its JSON text is over it
        ("x" * 1_100_000, 413),  # over the body limit
        ("🎨" * 30_000, 200),
        ("\u2028\u2029\x00\x1b[31m", 200),
        (json.loads("[" * 90 + "]" * 90), 200),
        (json.loads("[" * 200 + "]" * 200), 422),  # deeper than any body may nest
        ({"a": [{"b": [{"c": None}] * 50}] * 50}, 200),
    ],
)
def test_resume_payloads_huge_odd_or_deep_are_refused_whole_or_taken_as_json_text(payload: Any, status: int):
    app = App(t.turn("Picking.", t.tool_use(TOOL, {"hint": "a"})), t.reply("Thanks."))
    interrupt, before = _paused(app, [tool()])
    entry = {"interruptId": interrupt, "status": "resolved", "payload": payload}
    [r] = post(app, body([tool()], run="r2", resume=[entry]))
    if status != 200:
        refused(r, status)
        assert app.store.load("th") == before
        return
    events(r)
    sent = app.script.requests[-1]["messages"][-1]["content"][0]["content"]
    assert sent == (payload if isinstance(payload, str) else json.dumps(payload, ensure_ascii=False))
    valid(app.store.load("th"))


def test_a_resume_of_an_interrupt_after_the_thread_moved_on_changes_nothing():
    app = App(
        t.turn("Picking.", t.tool_use(TOOL, {"hint": "a"})),
        t.reply("Thanks."),
        t.turn("Again.", t.tool_use(TOOL, {"hint": "b"})),
    )
    interrupt, _ = _paused(app, [tool()])
    old = {"interruptId": interrupt, "status": "resolved", "payload": "first"}
    [resumed, moved_on] = post(
        app,
        body([tool()], run="r2", resume=[old]),
        body([tool()], run="r3", messages=[{"id": "u2", "role": "user", "content": "more"}]),
    )
    events(resumed)
    [open_now] = events(moved_on)[-1]["outcome"]["interrupts"]
    assert open_now["id"] != interrupt
    before = app.store.load("th")
    requests = len(app.script.requests)
    for stale in (
        [{**old, "payload": "changed my mind"}],
        [{**old, "status": "cancelled"}],
        [{**old, "interruptId": "confirmation:" + interrupt.partition(":")[2]}],
    ):
        [r] = post(app, body([tool()], run="r4", resume=stale))
        found = events(r)
        assert [i["id"] for i in found[-1]["outcome"]["interrupts"]] == [open_now["id"]]
    mixed = [old, {"interruptId": open_now["id"], "status": "resolved", "payload": "x"}]
    [r] = post(app, body([tool()], run="r5", resume=mixed))
    assert refused(r, 422)["already_resolved"] == [interrupt]
    assert app.store.load("th") == before and len(app.script.requests) == requests


@pytest.mark.parametrize(
    "edited",
    [
        {"table": "sales"},  # count missing
        {"table": "sales", "count": "12"},  # a string where the schema says integer
        {"table": "sales", "count": 1.5},
        {"table": "sales", "count": 12, "where": "1=1"},  # additionalProperties: false
        {"table": ["sales"], "count": 12},
        {"table": "sales", "count": True},
        {},
    ],
)
def test_a_confirmation_with_edited_args_the_tool_refuses_is_422_and_changes_nothing(edited: dict[str, Any]):
    store = nt.InMemoryStore()
    app = create_app(approval_agent, store=store, token=TOKEN)

    async def go() -> None:
        async with httpx.AsyncClient(
            transport=httpx.ASGITransport(app=app), base_url="http://t", headers=AUTH
        ) as c:
            [interrupt] = events(await c.post("/agui", json=body()))[-1]["outcome"]["interrupts"]
            assert interrupt["reason"] == "confirmation"
            before = store.load("th")
            payload = {"approved": True, "editedArgs": edited}
            entry = {"interruptId": interrupt["id"], "status": "resolved", "payload": payload}
            r = await c.post("/agui", json=body(run="r2", resume=[entry]))
            refused(r, 422, "edited arguments")
            assert store.load("th") == before
            # the reference contract refuses the same edit the same way
            approvals = [{"tool_use_id": interrupt["toolCallId"], "approved": True, "edited_input": edited}]
            r = await c.post("/agent/tool_results", json={"agent_uuid": "th", "approvals": approvals})
            refused(r, 422, "edited arguments")
            assert store.load("th") == before
            good = {**entry, "payload": {"approved": True, "editedArgs": {"table": "sales", "count": 2}}}
            found = events(await c.post("/agui", json=body(run="r3", resume=[good])))
            assert any(
                "dropped 2 rows" in e.get("content", "") for e in found if e["type"] == "TOOL_CALL_RESULT"
            )
            valid(store.load("th"))

    asyncio.run(go())


@nt.tool(needs_approval=True)
def save_blob(blob: dict[str, Any]) -> str:
    """Save a blob of settings.

    Args:
        blob: The settings.
    """
    return f"saved {len(json.dumps(blob))} characters"


@pytest.mark.parametrize("depth", [90, 300, 900])
def test_deeply_nested_edited_args_are_refused_whole_not_a_500(depth: int, tmp_path: Any):
    # Found: editedArgs nested 250+ levels (any JSON parser takes 900) passed every check, then saving
    # the session failed in pydantic ("Maximum serialization depth exceeded"): a 500, on both contracts.
    store = nt.SQLiteStore(str(tmp_path / "deep.sqlite"))
    steps = [t.turn("Saving.", t.tool_use("save_blob", {"blob": {}})), t.reply("Done.")]
    app = App(*steps * 2, store=store, tools=[save_blob])
    interrupt, before = _paused(app)
    nested = '{"a":' * depth + "1" + "}" * depth  # built as text: json.dumps itself stops at depth ~1000
    payload = {"approved": True, "editedArgs": {"blob": "DEEP"}}
    entry = {"interruptId": interrupt, "status": "resolved", "payload": payload}
    raw = json.dumps(body(run="r2", messages=[], resume=[entry])).replace('"DEEP"', nested)
    [r] = post(app, raw.encode())
    approvals = [
        {"tool_use_id": interrupt.partition(":")[2], "approved": True, "edited_input": {"blob": "DEEP"}}
    ]
    reference = json.dumps({"agent_uuid": "th", "approvals": approvals}).replace('"DEEP"', nested)

    async def results() -> httpx.Response:
        async with app.client() as c:
            return await c.post(
                "/agent/tool_results",
                content=reference.encode(),
                headers={"content-type": "application/json"},
            )

    if depth < 100:
        events(r)
        valid(store.load("th"))
        return
    refused(r, 422, "nested")
    refused(asyncio.run(results()), 422, "nested")
    assert store.load("th") == before


# -- the reference contract with the same kinds of content --------------------------------------------


@pytest.mark.parametrize(
    ("item", "status"),
    [
        ({"content": [{"type": "text", "text": "yes"}]}, 422),  # blocks: the contract takes text
        ({"content": [{"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "!!"}}]}, 422),
        ({"content": [{"type": "video", "url": "x"}]}, 422),
        ({"content": "yes", "is_error": "false"}, 422),
        ({"content": "yes", "is_error": 0}, 422),
        ({"content": "yes", "is_error": None}, 422),
        ({"content": "yes", "extra": 1}, 422),
        ({"content": "yes", "isError": True}, 422),
        ({"content": None}, 422),
        ({"content": 5}, 422),
        ({"content": ""}, 422),
        ({"content": "x" * 100_001}, 422),
        ({"content": "yes", "is_error": True}, 200),
        ({"content": "🎨\u2028\x00"}, 422),  # user_confirm answers yes or no (its output schema)
    ],
)  # fmt: skip
def test_reference_tool_results_of_odd_shapes_are_refused_whole_or_taken(item: dict[str, Any], status: int):
    from tests.support.server_agents import confirm_agent

    store = nt.InMemoryStore()
    app = create_app(confirm_agent, store=store, token=TOKEN)

    async def go() -> None:
        async with httpx.AsyncClient(
            transport=httpx.ASGITransport(app=app, raise_app_exceptions=False),
            base_url="http://t",
            headers=AUTH,
        ) as c:
            messages = parse_sse((await c.post("/agent/run", json={"message": "go"})).text)
            agent_uuid = element(messages[0][1])["agent_uuid"]
            [call] = elements(messages, "awaiting_frontend_tools")[0]
            before = store.load(agent_uuid)
            result = {"tool_use_id": call["tool_use_id"], **item}
            r = await c.post("/agent/tool_results", json={"agent_uuid": agent_uuid, "tool_results": [result]})
            if status != 200:
                refused(r, status)
                assert store.load(agent_uuid) == before
            else:
                assert r.status_code == 200, r.text
                assert elements(parse_sse(r.text), "meta_final")[-1]["stop_reason"] == "end_turn", r.text
            valid(store.load(agent_uuid))

    asyncio.run(go())


# -- two resumes of one interrupt racing on SQLite ------------------------------------------------------


def test_two_agui_resumes_of_one_interrupt_racing_on_sqlite_apply_once(tmp_path: Any):
    store = nt.SQLiteStore(str(tmp_path / "race.sqlite"))
    app = App(t.turn("Picking.", t.tool_use(TOOL, {"hint": "a"})), t.reply("Thanks."), store=store)
    app.script.event_delay = 0.002  # the model's reply takes a while, so the two requests overlap
    interrupt, _ = _paused(app, [tool()])

    async def race() -> list[httpx.Response]:
        async with app.client() as c:
            return list(
                await asyncio.gather(
                    *(
                        c.post(
                            "/agui",
                            json=body(
                                [tool()],
                                run=f"race-{i}",
                                resume=[
                                    {"interruptId": interrupt, "status": "resolved", "payload": f"answer {i}"}
                                ],
                            ),
                        )
                        for i in range(2)
                    )
                )
            )

    responses = asyncio.run(race())
    statuses = sorted(r.status_code for r in responses)
    assert statuses in ([200, 409], [200, 200]), [r.text[:300] for r in responses]
    for r in responses:
        if r.status_code == 409:
            refused(r, 409)
        else:
            events(r)
    state = store.load("th")
    valid(state)
    assert state is not None
    results = [
        b
        for m in state.messages
        if isinstance(m["content"], list)
        for b in m["content"]
        if b["type"] == "tool_result"
    ]
    assert len(results) == 1 and results[0]["content"] in ("answer 0", "answer 1")
    assert len(app.script.requests) == 2 and app.script.remaining == 0
    assert statuses == [200, 409], "the two resumes did not overlap"


# -- random schemas with references: refused up front, or a run that checks the call -----------------

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


@pytest.mark.parametrize(
    ("extra", "status", "told"),
    [
        ({"content": [{"type": "text", "text": "blue"}, {"type": "text", "text": "and green"}]}, 200, "blue\nand green"),
        ({"content": []}, 422, None),
        ({"content": ""}, 422, None),
        ({"content": "x" * 100_001}, 422, None),
        ({"content": "ok", "error": "x" * 100_001}, 422, None),
        ({"content": [{"type": "binary", "mimeType": "image/png", "data": "!!"}]}, 422, None),
        ({"content": "ok", "error": "the picker crashed"}, 200, "the picker crashed"),
    ],
)  # fmt: skip
def test_classic_tool_messages_of_every_shape_are_refused_whole_or_told_as_text(
    extra: dict[str, Any], status: int, told: str | None
):
    # Found: a tool message whose content is text parts (what AG-UI allows besides a string) reached the
    # model as the parts' JSON ('[{"type": "text", "text": "blue"}]'), where a user message's parts are text.
    app = App(t.turn("Picking.", t.tool_use(TOOL, {})), t.reply("Thanks."))
    [first] = post(app, body([tool()]))
    call = events(first)[-1]["outcome"]["interrupts"][0]["toolCallId"]
    before = app.store.load("th")
    message = {"id": "tm", "role": "tool", "toolCallId": call, **extra}
    [r] = post(app, body([tool()], run="r2", messages=[message]))
    if status != 200:
        refused(r, status)
        assert app.store.load("th") == before
        return
    events(r)
    assert app.script.requests[-1]["messages"][-1]["content"][0]["content"] == told
    valid(app.store.load("th"))


_json = st.recursive(
    st.one_of(
        st.none(),
        st.booleans(),
        st.integers(min_value=-(10**400), max_value=10**400),
        st.floats(allow_nan=False, allow_infinity=False),
        st.text(max_size=30),
    ),
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=20,
)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(payload=_json, output=st.booleans())
def test_random_resume_payloads_are_refused_whole_or_told_to_the_model(payload: Any, output: bool):
    frontend = [rate] if output else []
    name = "rate" if output else TOOL
    app = App(
        t.turn("Asking.", t.tool_use(name, {"prompt": "x"})), t.reply("Thanks."), frontend_tools=frontend
    )
    tools = None if output else [tool()]
    interrupt, before = _paused(app, tools)
    entry = {"interruptId": interrupt, "status": "resolved", "payload": payload}
    [r] = post(app, body(tools, run="r2", messages=[], resume=[entry]))
    assert r.status_code in (200, 422), r.text[:300]
    if r.status_code == 422:
        refused(r, 422)
        assert app.store.load("th") == before
        return
    events(r)
    valid(app.store.load("th"))
