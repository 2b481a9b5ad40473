"""A hostile review of the MCP client (issue 28): each test shows a bug found, and fails without its fix.

- two elicitations alike (same server, same message) asked at once shared one prompt id: the second
  form was never shown and got the first one's answer, while the first waited for ever;
- a tool whose inputSchema `$ref`s loop, point away with `$dynamicRef`, or nest deeply was offered
  as is, and checking the model's arguments raised (RecursionError, a referencing error) out of
  the turn, or the whole server's listing failed;
- a cassette whose MCP part was edited by hand (a wrong type in a field) replayed into TypeError,
  KeyError or ValueError instead of a clear cassette mismatch;
- results, elicitation params and checkpoints fuzzed: never a builtin exception out of the handler.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import notebook_tools as nt
from notebook_tools import testing as t
from notebook_tools.mcp import MCPElicitation
from notebook_tools.mcp._plugins import _schema, result_blocks
from notebook_tools.prompts import PromptBroker
from notebook_tools.tools import Checkpoint
from tests.mcp.servers import results, text_of
from tests.support.browser_double import until

# -- elicitations alike, at once -----------------------------------------------------------------

FIRST = {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]}
SECOND = {"type": "object", "properties": {"b": {"type": "integer"}}, "required": ["b"]}


def test_two_alike_elicitations_at_once_each_get_their_own_prompt_and_answer():
    broker = PromptBroker()
    broker.seen("tab")
    elicit = MCPElicitation(broker)

    async def main() -> tuple[Any, Any]:
        first = asyncio.ensure_future(
            elicit("srv", {"mode": "form", "message": "Q", "requestedSchema": FIRST})
        )
        second = asyncio.ensure_future(
            elicit("srv", {"mode": "form", "message": "Q", "requestedSchema": SECOND})
        )
        await until(lambda: len(broker.prompts) == 2)  # (one prompt only, before the fix: this times out)
        by_form = {
            p.output_schema["properties"].keys().__iter__().__next__(): p for p in broker.prompts.values()
        }
        assert broker.answer(by_form["b"].tool_use_id, {"value": json.dumps({"b": 3})}, "tab") is None
        assert broker.answer(by_form["a"].tool_use_id, {"value": json.dumps({"a": "x"})}, "tab") is None
        return await asyncio.wait_for(first, 10), await asyncio.wait_for(second, 10)

    first, second = asyncio.run(main())
    assert first == {"action": "accept", "content": {"a": "x"}}
    assert second == {"action": "accept", "content": {"b": 3}}
    assert len(set(broker.prompts)) == 2 and elicit._prompts.asking == set()


# -- hostile input schemas -----------------------------------------------------------------------


def nested(depth: int) -> dict[str, Any]:
    node: dict[str, Any] = {"type": "object"}
    for _ in range(depth):
        node = {"type": "object", "properties": {"a": node}}
    return node


HOSTILE_SCHEMAS = {
    "looped": {"type": "object", "allOf": [{"$ref": "#"}]},
    "looped_defs": {
        "type": "object",
        "properties": {"x": {"$ref": "#/$defs/a"}},
        "$defs": {"a": {"anyOf": [{"$ref": "#/$defs/b"}]}, "b": {"not": {"$ref": "#/$defs/a"}}},
    },
    "elsewhere": {"type": "object", "$dynamicRef": "https://example.com/schema"},
    "deep": nested(150),
}


class FakeServer(nt.MCPServer):
    """An MCP server in this process: it lists what it is given and records each call."""

    def __init__(self, listing: list[dict[str, Any]]) -> None:
        super().__init__(lambda: None, name="review", label="review")  # type: ignore[arg-type,return-value]
        self.listing = listing
        self.calls: list[tuple[str, dict[str, Any]]] = []

    async def start(self) -> Any:
        return None

    @property
    def running(self) -> bool:
        return True

    async def list_tools(self) -> list[dict[str, Any]]:
        return self.listing

    async def call_tool(self, name: str, arguments: dict[str, Any], progress: Any = None) -> dict[str, Any]:
        self.calls.append((name, arguments))
        return {"content": [{"type": "text", "text": f"ran {name}"}]}


def test_a_tool_whose_input_schema_loops_or_nests_deeply_never_breaks_the_turn():
    server = FakeServer([{"name": name, "inputSchema": schema} for name, schema in HOSTILE_SCHEMAS.items()])
    script = t.ScriptedTransport(
        t.turn(t.tool_use("review", id="open")),
        t.turn(*(t.tool_use(name, {"x": {"y": 1}}, id=name) for name in HOSTILE_SCHEMAS)),
        t.reply("done"),
    )
    agent = nt.Agent(script.client(), mcp_servers=[server])
    result = asyncio.run(agent.run("go"))  # before: RecursionError / a referencing error out of the turn
    assert result.stop_reason == "end_turn"
    got = results(script.requests[2])
    assert {name: text_of(got[name][1]) for name in HOSTILE_SCHEMAS} == {
        n: f"ran {n}" for n in HOSTILE_SCHEMAS
    }
    assert sorted(name for name, _ in server.calls) == sorted(HOSTILE_SCHEMAS)


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "object", "properties": {"child": {"$ref": "#"}}},  # a tree: recursion as deep as the value
        {
            "type": "object",
            "properties": {"kids": {"type": "array", "items": {"$ref": "#/$defs/n"}}},
            "$defs": {"n": {"type": "object", "properties": {"k": {"$ref": "#/$defs/n"}}}},
        },
    ],
)
def test_a_recursive_schema_that_ends_is_still_offered_as_the_server_gave_it(schema):
    assert _schema(schema) == schema


# -- a cassette edited by hand -------------------------------------------------------------------

CALL = {"op": "call_tool", "name": "echo", "arguments": {"m": 1}, "result": {"content": []}}
EDITED = {
    "server_info": {"server_info": "x", "traffic": [{"op": "list_tools", "tools": []}]},
    "instructions": {"instructions": 5, "traffic": [{"op": "list_tools", "tools": [{"name": "a"}]}]},
    "tools": {"traffic": [{"op": "list_tools", "tools": 5}]},
    "progress": {"traffic": [{**CALL, "progress": [1, 2]}]},
    "asked_kind": {"traffic": [{**CALL, "asked": [{"params": {}}]}]},
    "asked": {"traffic": [{**CALL, "asked": "x"}]},
    "no_result": {"traffic": [{k: v for k, v in CALL.items() if k != "result"}]},
    "result": {"traffic": [{**CALL, "result": "x"}]},
    "result_list": {"traffic": [{**CALL, "result": [1]}]},
}


@pytest.mark.parametrize("edited", EDITED.values(), ids=list(EDITED))
def test_a_hand_edited_mcp_cassette_is_a_clear_mismatch_never_a_type_error(tmp_path: Path, edited):
    path = tmp_path / "edited.json"
    path.write_text(
        json.dumps({"notebook_tools_cassette": 1, "exchanges": [], "answers": [], "mcp": [edited]})
    )
    cas = t.Cassette(path, "replay")
    server = cas.mcp(nt.MCPServer.stdio("/nonexistent/mcp-server"))

    async def replay() -> None:
        await server.list_tools() if edited["traffic"][0]["op"] == "list_tools" else None
        await server.call_tool_or_ask("echo", {"m": 1})

    with pytest.raises(nt.CassetteMismatchError, match="edited by hand"):
        asyncio.run(replay())
    assert cas.mismatch is not None  # the replay fails with it, even where the call's error was kept


# -- fuzzing -------------------------------------------------------------------------------------

FUZZ = settings(max_examples=50, deadline=None, suppress_health_check=list(HealthCheck))
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=4),
    max_leaves=20,
)
item_types = st.sampled_from(["text", "image", "audio", "resource_link", "resource", "other"])
content_items = st.dictionaries(
    st.sampled_from(["text", "data", "mimeType", "resource", "uri", "name"]), json_values
)
items = st.builds(lambda kind, rest: {**rest, "type": kind}, item_types, content_items) | json_values


@FUZZ
@given(content=st.lists(items, max_size=6) | json_values, structured=json_values)
@example(content=[{"type": "image", "mimeType": ["image/png"], "data": "x"}], structured=None)
@example(content=[{"type": "resource", "resource": "x"}], structured=None)
@example(content=5, structured=None)
def test_result_blocks_of_any_result_are_blocks_or_a_tool_error(content, structured):
    from anthropic.lib.tools import ToolError

    try:
        blocks = result_blocks({"content": content, "structuredContent": structured}, None)
    except ToolError:
        return
    assert blocks and all(b["type"] in ("text", "image") for b in blocks)  # before: AttributeError, TypeError


params = st.fixed_dictionaries(
    {},
    optional={
        "mode": st.sampled_from(["form", "url", "other"]) | json_values,
        "message": st.text(max_size=30) | json_values,
        "url": st.sampled_from(["https://example.com/x", "javascript:alert(1)"]) | json_values,
        "requestedSchema": st.fixed_dictionaries(
            {"type": st.just("object")},
            optional={
                "properties": st.dictionaries(
                    st.text(max_size=5),
                    st.fixed_dictionaries(
                        {"type": st.sampled_from(["string", "integer"]) | json_values},
                        optional={"format": st.sampled_from(["email"]) | json_values},
                    ),
                    max_size=3,
                ),
                "required": st.lists(json_values, max_size=2),
            },
        )
        | json_values,
        "elicitationId": json_values,
    },
)


@FUZZ
@given(asked=params)
@example(asked={"message": "m", "requestedSchema": {"type": "object", "properties": {"a": {"type": ["x"]}}}})
@example(
    asked={
        "message": "m",
        "requestedSchema": {"type": "object", "properties": {"a": {"type": "string", "format": []}}},
    }
)
@example(
    asked={
        "message": "m",
        "requestedSchema": {"type": "object", "properties": {"a": {"type": "string"}}, "required": [[]]},
    }
)
def test_an_elicitation_handler_answers_any_params_with_an_action_or_an_error(asked):
    broker = PromptBroker(on_no_frontend="fail")  # nobody attached: every form is a cancel, at once
    answer = asyncio.run(MCPElicitation(broker)("srv", asked))  # before: TypeError (unhashable) on some
    assert answer.get("action") in ("decline", "cancel") or isinstance(answer.get("code"), int)


def test_a_checkpoint_nested_too_deep_for_json_is_refused_as_not_json():
    data: dict[str, Any] = {}
    node = data
    for _ in range(5_000):
        node["a"] = {}
        node = node["a"]
    with pytest.raises(nt.ToolDefinitionError, match="must be JSON"):  # before: RecursionError
        asyncio.run(Checkpoint("call").save(data))


class CountedSet(set):
    """A set that counts how often it is asked whether it holds a name."""

    asked = 0

    def __contains__(self, item: object) -> bool:
        CountedSet.asked += 1
        return super().__contains__(item)


def test_a_listing_of_thousands_of_tools_of_one_name_is_named_in_linear_time():
    from notebook_tools.mcp._plugins import plugin_for

    server = FakeServer([{"name": "same"}] * 3_000)
    CountedSet.asked = 0
    plugin = plugin_for(server, server.listing, CountedSet({"same"}), lambda: None)
    assert plugin is not None and len(plugin.by_name) == 3_000 and "same_3001" in plugin.by_name
    # before: each name tried every suffix taken before it, 4.5 million checks (20,000 tools: 34 s
    # of a blocked event loop, again at each list_changed)
    assert CountedSet.asked < 10 * 3_000, CountedSet.asked


# -- a URL read one way by the card, another by the browser ----------------------------------------

SPOOFED = "https://evil.example\\@good.example/login"  # urlsplit: good.example; a browser: evil.example


def test_a_url_a_browser_reads_as_another_host_is_refused_without_a_card():
    from notebook_tools.mcp import MCPSignIn

    broker = PromptBroker()
    broker.seen("tab")
    asked = {"mode": "url", "message": "Sign in", "url": SPOOFED, "elicitationId": "e1"}
    answer = asyncio.run(asyncio.wait_for(MCPElicitation(broker)("srv", asked), 10))
    assert answer.get("code") == -32602  # before: a consent card naming good.example, opening evil.example
    assert asyncio.run(asyncio.wait_for(MCPSignIn(broker)("srv", {"url": SPOOFED}), 10)) == {
        "action": "cancel"
    }
    assert broker.prompts == {}


@pytest.mark.parametrize(
    "url",
    [
        "https://evil.example\\@good.example/",  # a browser opens evil.example
        "http://[::1",  # urlsplit raises on it
        "https://good.example\t.evil/",
        "https://good%2eexample/",
    ],
)
def test_a_url_a_browser_reads_otherwise_is_neither_a_consent_card_nor_a_terminal_link(url):
    from notebook_tools.mcp._elicitation import web_page
    from notebook_tools.terminal._clean import web_link

    assert web_page(url) is False and web_link(url) is None
    broker = PromptBroker()
    broker.seen("tab")
    answer = asyncio.run(MCPElicitation(broker)("s", {"mode": "url", "message": "m", "url": url}))
    assert answer["code"] == -32602 and not broker.prompts  # refused before any card
