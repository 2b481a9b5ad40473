"""How a CallToolResult becomes content blocks: outputSchema honoured (never fetching a remote $ref),
binary content that the API cannot take described instead of sent."""

import pytest
from anthropic.lib.tools import ToolError

import notebook_tools as nt
from notebook_tools import testing as t
from notebook_tools.api import request_errors
from notebook_tools.mcp._plugins import _schema, result_blocks, safe_name

SCHEMA = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}


def test_structured_content_is_checked_against_the_output_schema():
    ok = {"content": [], "structuredContent": {"n": 1}}
    assert result_blocks(ok, SCHEMA) == [{"type": "text", "text": '{"n": 1}'}]
    with pytest.raises(ToolError, match="does not fit its outputSchema"):
        result_blocks({"content": [], "structuredContent": {"n": "one"}}, SCHEMA)


def test_a_schema_with_a_remote_ref_is_never_fetched_it_becomes_a_plain_object():
    remote = {"type": "object", "properties": {"n": {"$ref": "http://127.0.0.1:9/schema.json"}}}
    assert _schema(remote) == {"type": "object"}  # input schemas too: the server checks its arguments
    assert result_blocks({"content": [], "structuredContent": {"n": 1}}, remote)[0]["text"] == '{"n": 1}'
    with pytest.raises(ToolError, match="outputSchema"):
        result_blocks({"content": [], "structuredContent": [1]}, remote)
    dangling = {"type": "object", "properties": {"n": {"$ref": "#/$defs/missing"}}}
    assert _schema(dangling) == {"type": "object"}  # validating would raise, not answer
    local = {
        "type": "object",
        "$defs": {"n": {"type": "integer"}},
        "properties": {"n": {"$ref": "#/$defs/n"}},
    }
    assert _schema(local) == local
    with pytest.raises(ToolError, match="outputSchema"):
        result_blocks({"content": [], "structuredContent": {"n": "x"}}, local)


PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGNgYGD4DwABBAEAwS2OUAAAAABJRU5ErkJggg=="


def test_binary_the_api_cannot_take_is_described_with_what_was_left_out_and_why():
    result = {
        "content": [
            {"type": "audio", "data": "AAAA", "mimeType": "audio/wav"},
            {"type": "image", "data": "AAAA", "mimeType": "image/svg+xml"},
            {"type": "image", "data": "not base64!", "mimeType": "image/png"},
            {"type": "image", "data": "R0lGODlh", "mimeType": "image/png"},  # a GIF's bytes
            {"type": "image", "data": PNG, "mimeType": "image/png"},
            {
                "type": "resource",
                "resource": {"uri": "file:///x.bin", "blob": "AAAA", "mimeType": "application/zip"},
            },
            {"type": "something-new"},
        ]
    }
    blocks = result_blocks(result, None)
    assert blocks[4] == {
        "type": "image",
        "source": {"type": "base64", "media_type": "image/png", "data": PNG},
    }
    texts = [b["text"] for b in blocks if b["type"] == "text"]
    assert texts == [
        "[audio content audio/wav, about 3 bytes: left out, the model reads only text and images]",
        "[image content image/svg+xml, about 3 bytes: left out, "
        "the model takes JPEG, PNG, GIF and WebP images only, not 'image/svg+xml']",
        "[image content image/png, about 8 bytes: left out, its data is not valid base64]",
        "[image content image/png, about 6 bytes: left out, its data is not the image/png image it claims to be]",
        "[binary resource <file:///x.bin> application/zip, about 3 bytes: left out, "
        "the model reads only text and images]",
        "[content of type 'something-new']",
    ]
    assert (
        request_errors({"model": "m", "max_tokens": 1, "messages": [{"role": "user", "content": blocks}]})
        == []
    )


def test_names_fit_the_api_and_stay_unique():
    taken = set()
    names = [safe_name(n, taken) for n in ["a b", "a_b", "", "x" * 100, "x" * 100]]
    assert names == ["a_b", "a_b_2", "tool", "x" * 64, "x" * 62 + "_2"]


def test_an_agent_made_again_with_the_same_server_replaces_the_old_ones_listener():
    server = nt.MCPServer.stdio("/nonexistent/server", name="s")
    heard = []
    server.on_tools_changed.append(heard.append)  # someone else's listener stays
    agents = [nt.Agent(t.ScriptedTransport(t.reply("x")).client(), mcp_servers=[server]) for _ in range(5)]
    mine = [c for c in server.on_tools_changed if c != heard.append]
    assert len(mine) == 1 and mine[0].__self__ is agents[-1].loop.mcp  # the newest agent's, once
