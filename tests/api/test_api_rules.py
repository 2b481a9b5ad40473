"""The Messages API's rules (notebook_tools.api._rules) and the strict scripted API built on them.

Each rule test starts from a minimal valid body, makes the one change that breaks it, and
checks the error names the problem. The transport tests go through the real SDK.
"""

from __future__ import annotations

import asyncio
import base64
import copy
import sys
from typing import Any

import anthropic
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from notebook_tools import testing as t
from notebook_tools.api import content_block_errors, history_errors, request_errors

PNG = base64.b64encode(
    bytes.fromhex(
        "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
        "1f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082"
    )
).decode()
PDF = base64.b64encode(b"%PDF-1.4\n%%EOF\n").decode()
TOOLS = [{"name": "add", "description": "Add.", "input_schema": {"type": "object", "properties": {}}}]
CACHE = {"type": "ephemeral"}


def body(*messages: dict[str, Any], **extra: Any) -> dict[str, Any]:
    """A request body; with no messages, one user message."""
    return {
        "model": "claude-test",
        "max_tokens": 100,
        "messages": list(messages) or [user("Hi")],
        **extra,
    }


def user(*content: Any) -> dict[str, Any]:
    return {
        "role": "user",
        "content": content[0] if len(content) == 1 and isinstance(content[0], str) else list(content),
    }


def assistant(*content: Any) -> dict[str, Any]:
    return {
        "role": "assistant",
        "content": content[0] if len(content) == 1 and isinstance(content[0], str) else list(content),
    }


def text(value: str, **extra: Any) -> dict[str, Any]:
    return {"type": "text", "text": value, **extra}


def use(ident: str, name: str = "add") -> dict[str, Any]:
    return {"type": "tool_use", "id": ident, "name": name, "input": {"a": 1}}


def result(ident: str, content: Any = "3", **extra: Any) -> dict[str, Any]:
    return {"type": "tool_result", "tool_use_id": ident, "content": content, **extra}


def image(data: str = PNG, media_type: str = "image/png") -> dict[str, Any]:
    return {"type": "image", "source": {"type": "base64", "media_type": media_type, "data": data}}


def tool_round(*results: dict[str, Any], ids: tuple[str, ...] = ("toolu_1",)) -> list[dict[str, Any]]:
    """user, assistant calling `ids`, user answering with `results` (by default each id answered "3")."""
    return [
        user("Add"),
        assistant(text("Adding."), *[use(i) for i in ids]),
        user(*(results or [result(i) for i in ids])),
    ]


def one_error(request: dict[str, Any], expected: str) -> None:
    errors = request_errors(request)
    assert errors, f"expected an error about {expected!r}"
    assert any(expected in e for e in errors), errors


# -- valid bodies --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "messages",
    [
        [user("Hi")],
        [user(text("Hi"), text("there"))],
        [user("Hi"), assistant("Hello"), user("Bye")],
        [user("Hi"), assistant("The answer is (")],  # a prefill
        [user("Hi"), assistant()],  # an empty final assistant message
        [user("Hi"), assistant("")],
        [user("Hi"), assistant(text("Hello   ")), user("again")],  # trailing space is fine before the end
    ],
)
def test_valid_conversations_pass(messages):
    assert request_errors(body(*messages)) == []


def test_the_body_the_library_sends_passes():
    tools = [
        *copy.deepcopy(TOOLS),
        {"name": "ask", "input_schema": {"type": "object"}, "cache_control": CACHE},
    ]
    request = body(
        user("Look at this"),
        assistant(text("Calling."), use("toolu_01A"), use("toolu_01B", "ask")),
        user(
            result("toolu_01A", [text("Here:"), image(), text("done")]),
            result("toolu_01B", "Interrupted.", is_error=True),
            text("[The user ran a tool by hand]"),
        ),
        assistant(text("Thanks.")),
        user("More"),
        system=[text("Be brief.", cache_control=CACHE)],
        tools=tools,
        stream=True,
    )
    assert request_errors(request) == []
    assert request_errors({**request, "system": "Be brief."}) == []
    assert request_errors({**request, "max_tokens": 0}) == []  # documented: warms the cache


# -- the request ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        ({"model": ""}, "model"),
        ({"model": 3}, "model"),
        ({"max_tokens": -1}, "max_tokens"),
        ({"max_tokens": "100"}, "max_tokens"),
        ({"max_tokens": True}, "max_tokens"),
        ({"messages": []}, "messages: must be a non-empty list"),
        ({"messages": "Hi"}, "messages: must be a non-empty list"),
        ({"temprature": 1}, "temprature: Extra inputs are not permitted"),
        ({"system": 3}, "system: must be a string or a list of text blocks"),
        ({"system": [image()]}, "`image` blocks are not allowed in the system prompt"),
        ({"system": [text("")]}, "system.0 (text): text content blocks must be non-empty"),
        ({"tools": {"name": "add"}}, "tools: must be a list"),
    ],
)
def test_request_fields(change, expected):
    one_error({**body(), **change}, expected)


@pytest.mark.parametrize("missing", ["model", "max_tokens", "messages"])
def test_required_fields(missing):
    request = body()
    del request[missing]
    one_error(request, f"{missing}: Field required")


@pytest.mark.parametrize(
    ("tool", "expected"),
    [
        (
            {"name": "add two", "input_schema": {"type": "object"}},
            "tools.1.name: String should match pattern",
        ),
        ({"name": "x" * 65, "input_schema": {"type": "object"}}, "tools.1.name: String should match pattern"),
        ({"name": "add", "input_schema": {"type": "object"}}, "Tool names must be unique"),
        (
            {"name": "sub", "input_schema": {"type": "array"}},
            'tools.1.input_schema: must be a JSON Schema object with "type": "object"',
        ),
        ({"name": "sub"}, "tools.1.input_schema"),
        (
            {"name": "sub", "input_schema": {"type": "object"}, "parameters": {}},
            "tools.1.parameters: Extra inputs",
        ),
        (
            {"name": "sub", "input_schema": {"type": "object"}, "cache_control": {"type": "forever"}},
            "tools.1.cache_control: must be",
        ),
    ],
)
def test_tool_definitions(tool, expected):
    one_error(body(tools=[*TOOLS, tool]), expected)


def test_a_server_tool_is_checked_by_name_only():
    assert (
        request_errors(
            body(tools=[*TOOLS, {"type": "web_search_20250305", "name": "web_search", "max_uses": 3}])
        )
        == []
    )


def test_at_most_four_cache_breakpoints_in_the_whole_request():
    four = body(
        user(text("a", cache_control=CACHE), text("b", cache_control=CACHE)),
        system=[text("s", cache_control=CACHE)],
        tools=[{**TOOLS[0], "cache_control": CACHE}],
    )
    assert request_errors(four) == []
    five = copy.deepcopy(four)
    five["messages"][0]["content"].append(text("c", cache_control=CACHE))
    one_error(five, "A maximum of 4 blocks with cache_control may be provided. Found 5.")
    nested = copy.deepcopy(four)
    nested["messages"] += [
        assistant(use("toolu_1")),
        user(result("toolu_1", [text("r", cache_control=CACHE)])),
    ]
    one_error(nested, "Found 5.")  # blocks inside a tool_result count too
    one_error(
        body(user(text("a", cache_control={"type": "ephemeral", "ttl": "2h"}))), "cache_control: must be"
    )


# -- messages and roles --------------------------------------------------------------------------


def test_a_message_has_exactly_role_and_content():
    one_error(
        body({"role": "user", "content": "Hi", "name": "me"}),
        "messages.0.name: Extra inputs are not permitted",
    )
    one_error(body({"role": "user"}), "messages.0.content: Field required")
    one_error(body("Hi"), "messages.0: must be an object")


def test_roles_are_user_or_assistant():
    one_error(
        body({"role": "system", "content": "Be brief."}, user("Hi")),
        "messages.0.role: must be 'user' or 'assistant'",
    )


def test_the_first_message_is_the_users():
    one_error(body(assistant("Hello"), user("Hi")), 'first message must use the "user" role')


def test_roles_alternate():
    one_error(
        body(user("Hi"), user("again")),
        'roles must alternate between "user" and "assistant", but found multiple "user" roles',
    )
    one_error(body(user("Hi"), assistant("a"), assistant("b")), 'multiple "assistant" roles in a row')


@pytest.mark.parametrize("empty", ["", []])
def test_only_the_final_assistant_message_may_be_empty(empty):
    message = "all messages must have non-empty content except for the optional final assistant message"
    one_error(body({"role": "user", "content": empty}), f"messages.0: {message}")
    one_error(
        body(user("Hi"), {"role": "assistant", "content": empty}, user("again")), f"messages.1: {message}"
    )
    assert request_errors(body(user("Hi"), {"role": "assistant", "content": empty})) == []


def test_content_is_a_string_or_a_list():
    one_error(
        body({"role": "user", "content": {"type": "text", "text": "Hi"}}),
        "messages.0.content: must be a string or a list",
    )


def test_text_blocks_are_non_empty_and_not_only_whitespace():
    one_error(body(user(text(""))), "messages.0.content.0 (text): text content blocks must be non-empty")
    one_error(body(user(text(" \n"))), "text content blocks must contain non-whitespace text")
    one_error(body(user(" \n")), "text content blocks must contain non-whitespace text")
    one_error(
        body(user("Hi"), assistant(text("\n\n")), user("again")),
        "messages.1.content.0 (text): text content blocks must contain non-whitespace text",
    )
    one_error(
        body(user("Hi"), assistant(text(""))), "text content blocks must be non-empty"
    )  # even in a prefill


def test_the_final_assistant_content_has_no_trailing_whitespace():
    one_error(
        body(user("Hi"), assistant("The answer is ")),
        "final assistant content cannot end with trailing whitespace",
    )
    one_error(
        body(user("Hi"), assistant(text("a"), text("b\n"))),
        "final assistant content cannot end with trailing whitespace",
    )


# -- blocks --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("block", "expected"),
    [
        (text("Hi", foo=1), "messages.0.content.0 (text): foo: Extra inputs are not permitted"),
        ({**image(), "alt": "x"}, "(image): alt: Extra inputs are not permitted"),
        (
            {
                "type": "document",
                "source": {"type": "base64", "media_type": "application/pdf", "data": PDF},
                "name": "a",
            },
            "(document): name: Extra inputs",
        ),
        ({"type": "image"}, "(image): source: Field required"),
        ({"type": "text"}, "(text): text: Field required"),
        ({"type": "audio", "source": {}}, "`audio` blocks are not allowed in user messages"),
        ({"text": "Hi"}, "must be a content block object with a string `type`"),
        (text("Hi", cache_control={"type": "ephemeral", "scope": "all"}), "(text): cache_control: must be"),
    ],
)
def test_blocks_have_only_their_types_keys(block, expected):
    one_error(body(user(block)), expected)


def test_thinking_blocks_pass_back_without_extra_keys():
    thinking = {"type": "thinking", "thinking": "hmm", "signature": "sig"}
    assert request_errors(body(user("Hi"), assistant(thinking, text("Hello")), user("ok"))) == []
    one_error(
        body(user("Hi"), assistant({**thinking, "cache_control": CACHE}, text("Hello")), user("ok")),
        "(thinking): cache_control: Extra inputs",
    )
    redacted = {"type": "redacted_thinking", "data": "xyz"}
    assert request_errors(body(user("Hi"), assistant(redacted, text("Hello")), user("ok"))) == []


@pytest.mark.parametrize(
    ("messages", "expected"),
    [
        (
            [user("Hi"), assistant(result("toolu_1"))],
            "`tool_result` blocks are not allowed in assistant messages",
        ),
        ([user(use("toolu_1"))], "`tool_use` blocks are not allowed in user messages"),
        (
            [user("Hi"), assistant(image()), user("ok")],
            "`image` blocks are not allowed in assistant messages",
        ),
        (
            [
                user("Hi"),
                assistant({"type": "thinking", "thinking": "x", "signature": "s"}, text("a")),
                user({"type": "thinking", "thinking": "x", "signature": "s"}),
            ],
            "`thinking` blocks are not allowed in user messages",
        ),
    ],
)
def test_block_types_per_role(messages, expected):
    one_error(body(*messages, tools=TOOLS), expected)


# -- tool use ------------------------------------------------------------------------------------


def test_a_tool_round_passes():
    assert request_errors(body(*tool_round(), tools=TOOLS)) == []
    both = tool_round(result("toolu_2"), result("toolu_1"), ids=("toolu_1", "toolu_2"))  # any order
    assert request_errors(body(*both, tools=TOOLS)) == []


def test_tool_use_ids_match_the_pattern_and_are_unique():
    one_error(
        body(*tool_round(result("toolu 1"), ids=("toolu 1",)), tools=TOOLS),
        "(tool_use): id: String should match pattern '^[a-zA-Z0-9_-]+$'",
    )
    twice = [*tool_round(), assistant(use("toolu_1")), user(result("toolu_1"))]
    one_error(body(*twice, tools=TOOLS), "messages.3.content.0: `tool_use` ids must be unique")


def test_a_tool_use_needs_its_result_in_the_next_message():
    unanswered = [user("Add"), assistant(use("toolu_1")), user("never mind")]
    one_error(
        body(*unanswered, tools=TOOLS),
        "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_1",
    )
    partly = tool_round(result("toolu_1"), ids=("toolu_1", "toolu_2"))
    one_error(body(*partly, tools=TOOLS), "immediately after: toolu_2.")
    later = [user("Add"), assistant(use("toolu_1")), user("wait"), assistant("ok"), user(result("toolu_1"))]
    errors = request_errors(body(*later, tools=TOOLS))
    assert any("immediately after: toolu_1" in e for e in errors) and any(
        "unexpected `tool_use_id`" in e for e in errors
    )


def test_a_final_assistant_message_cannot_call_a_tool():
    one_error(
        body(user("Add"), assistant(text("Adding."), use("toolu_1")), tools=TOOLS),
        "messages.1: `tool_use` ids were found without `tool_result` blocks",
    )


def test_tool_results_come_first():
    late = tool_round(text("Here you go"), result("toolu_1"))
    one_error(
        body(*late, tools=TOOLS),
        "messages.2: Did not find 1 tool_result block(s) at the beginning of this message",
    )
    assert request_errors(body(*tool_round(result("toolu_1"), text("and more")), tools=TOOLS)) == []


def test_a_tool_result_answers_a_tool_use_of_the_previous_message():
    one_error(
        body(*tool_round(result("toolu_9")), tools=TOOLS),
        "messages.2.content.0: unexpected `tool_use_id` found in `tool_result` blocks: toolu_9",
    )
    one_error(body(user(result("toolu_1")), tools=TOOLS), "messages.0.content.0: unexpected `tool_use_id`")


def _search(ident: str = "srvtoolu_1") -> dict[str, Any]:
    return {"type": "server_tool_use", "id": ident, "name": "tool_search_tool_bm25", "input": {"query": "x"}}


def _found(ident: str = "srvtoolu_1") -> dict[str, Any]:
    content = {"type": "tool_search_tool_search_result", "tool_references": []}
    return {"type": "tool_search_tool_result", "tool_use_id": ident, "content": content}


SEARCH = [*TOOLS, {"type": "tool_search_tool_bm25_20251119", "name": "tool_search_tool_bm25"}]


def test_a_server_call_may_get_its_result_in_the_next_response_while_client_calls_go_on():
    """vercel/ai's deferred tool-search recording: the call's message stopped for a client call; the
    next response opens with the call's result."""
    deferred = [user("Add"), assistant(text("Adding."), use("toolu_1"), _search()), user(result("toolu_1"))]
    assert request_errors(body(*deferred, tools=SEARCH)) == []
    answered = [*deferred, assistant(_found(), text("Found it.")), user("thanks")]
    assert request_errors(body(*answered, tools=SEARCH)) == []
    # The next response did not complete it: the call was left without its result.
    dropped = [*deferred, assistant(text("Done.")), user("thanks")]
    one_error(
        body(*dropped, tools=SEARCH),
        "messages.1: tool_search_tool_bm25 tool use with id srvtoolu_1 was found without a corresponding "
        "tool_search_tool_bm25_tool_result block",
    )
    # With no client call in its message, the result had to come in the same message.
    alone = [user("Add"), assistant(text("Searching."), _search()), user("go on")]
    one_error(body(*alone, tools=SEARCH), "messages.1: tool_search_tool_bm25 tool use with id srvtoolu_1")


def test_a_server_result_needs_its_call_before_it():
    orphan = [*tool_round(), assistant(_found("srvtoolu_9"), text("Found it.")), user("thanks")]
    one_error(
        body(*orphan, tools=SEARCH),
        "messages.3.content.0: unexpected `tool_use_id` found in `tool_search_tool_result` blocks: srvtoolu_9",
    )
    # What the agent sent before keeping deferred calls: the call dropped, its result kept.
    kept_result_only = [
        user("Add"),
        assistant(text("Adding."), use("toolu_1")),
        user(result("toolu_1")),
        assistant(_found(), text("Found it.")),
        user("thanks"),
    ]
    one_error(
        body(*kept_result_only, tools=SEARCH), "unexpected `tool_use_id` found in `tool_search_tool_result`"
    )
    assert request_errors(body(user("Add"), assistant(_search(), _found(), text("Found.")), user("ok"))) == []


def test_exactly_one_result_per_tool_use():
    one_error(
        body(*tool_round(result("toolu_1"), result("toolu_1")), tools=TOOLS),
        "a second `tool_result` for tool_use id toolu_1",
    )


def test_tool_blocks_need_tool_definitions():
    one_error(
        body(*tool_round()), "Requests which include `tool_use` or `tool_result` blocks must define tools."
    )
    one_error(body(*tool_round(), tools=[]), "must define tools")


def test_an_error_result_has_content():
    one_error(
        body(*tool_round(result("toolu_1", "", is_error=True)), tools=TOOLS),
        "content cannot be empty if `is_error` is true",
    )
    one_error(
        body(*tool_round(result("toolu_1", [], is_error=True)), tools=TOOLS),
        "content cannot be empty if `is_error` is true",
    )
    one_error(
        body(*tool_round(result("toolu_1", "x", is_error="yes")), tools=TOOLS),
        "is_error: must be true or false",
    )
    assert request_errors(body(*tool_round(result("toolu_1", "")), tools=TOOLS)) == []
    assert (
        request_errors(body(*tool_round({"type": "tool_result", "tool_use_id": "toolu_1"}), tools=TOOLS))
        == []
    )


def test_tool_result_content_is_checked_inside_the_request():
    bad = tool_round(result("toolu_1", [text("Here:"), image(data="%%%")]))
    one_error(
        body(*bad, tools=TOOLS),
        "messages.2.content.0 (tool_result): content: block 1 (image): source.data is not valid base64",
    )


# -- tool_result content -------------------------------------------------------------------------


def test_valid_result_content():
    assert content_block_errors("") == []  # an empty string: the API refuses it only with is_error
    assert content_block_errors([]) == []
    assert content_block_errors("3") == []
    gif = base64.b64encode(b"GIF89a" + b"\0" * 10).decode()
    webp = base64.b64encode(b"RIFF\0\0\0\0WEBPVP8 ").decode()
    jpeg = base64.b64encode(b"\xff\xd8\xff\xe0" + b"\0" * 10).decode()
    blocks = [
        text("Here"),
        image(),
        image(gif, "image/gif"),
        image(webp, "image/webp"),
        image(jpeg, "image/jpeg"),
        {"type": "image", "source": {"type": "url", "url": "https://example.com/a.png"}},
        {
            "type": "document",
            "source": {"type": "base64", "media_type": "application/pdf", "data": PDF},
            "title": "a",
        },
        {"type": "document", "source": {"type": "text", "media_type": "text/plain", "data": "notes"}},
        {"type": "document", "source": {"type": "content", "content": [text("a"), image()]}},
        {"type": "document", "source": {"type": "url", "url": "https://example.com/a.pdf"}},
        {"type": "search_result", "source": "https://example.com", "title": "A", "content": [text("found")]},
    ]
    assert content_block_errors(blocks) == []


@pytest.mark.parametrize(
    ("block", "expected"),
    [
        (image(data="not base64!"), "block 2 (image): source.data is not valid base64"),
        (image(data=PNG + "\n"), "block 2 (image): source.data is not valid base64"),
        (image(data=""), "block 2 (image): source.data: is empty"),
        (image(data=123), "block 2 (image): source.data: must be a base64 string"),
        (
            image(media_type="image/bmp"),
            "block 2 (image): source.media_type: Input should be 'image/jpeg', 'image/png', 'image/gif' or 'image/webp'",
        ),
        (
            image(media_type="image/jpeg"),
            "block 2 (image): source.data: Image does not match the provided media type image/jpeg",
        ),
        (image(data="A" * (5 * 1024 * 1024 + 4)), "block 2 (image): source.data: exceeds 5 MB maximum"),
        (
            {"type": "image", "source": {"type": "url", "url": "ftp://example.com/a.png"}},
            "block 2 (image): source.url: must be an http(s) URL",
        ),
        (
            {"type": "image", "source": {"type": "text", "media_type": "text/plain", "data": "a"}},
            "block 2 (image): source.type: must be one of",
        ),
        (
            {"type": "image", "source": {"type": "url", "url": "https://e.com/a", "alt": "x"}},
            "block 2 (image): source.alt: Extra inputs",
        ),
        (
            {"type": "document", "source": {"type": "base64", "media_type": "text/plain", "data": PDF}},
            "block 2 (document): source.media_type: Input should be 'application/pdf'",
        ),
        (
            {"type": "document", "source": {"type": "text", "media_type": "text/markdown", "data": "a"}},
            "block 2 (document): source: a text source needs",
        ),
        (
            {"type": "document", "source": {"type": "content", "content": [text("")]}},
            "block 2 (document): source.content.0 (text): text content blocks must be non-empty",
        ),
        (
            {"type": "search_result", "source": "s", "title": "t", "content": [text(" ")]},
            "block 2 (search_result): content.0 (text): text content blocks must contain non-whitespace",
        ),
        (
            {"type": "search_result", "source": "s", "content": []},
            "block 2 (search_result): title: Field required",
        ),
        (text(""), "block 2 (text): text content blocks must be non-empty"),
        (text("  "), "block 2 (text): text content blocks must contain non-whitespace text"),
        (text(5), "block 2 (text): text: must be a string"),
        (result("toolu_1"), "block 2: `tool_result` blocks are not allowed in tool_result content"),
        ({"type": "tool_reference", "tool_name": "add"}, "block 2: `tool_reference` blocks are not allowed"),
        ("just text", "block 2: must be a content block object"),
    ],
)
def test_result_content_rules(block, expected):
    errors = content_block_errors([text("a"), text("b"), block])
    assert len(errors) == 1 and expected in errors[0], errors
    assert errors[0].startswith("tool_result content: ")


def test_result_content_that_is_neither_string_nor_list():
    assert content_block_errors({"type": "text", "text": "a"}, where="answer") == [
        "answer: must be a string or a list of content blocks"
    ]


def test_a_pdf_over_32_mb_is_refused():
    big = {
        "type": "document",
        "source": {"type": "base64", "media_type": "application/pdf", "data": "A" * (32 * 1024 * 1024 + 4)},
    }
    assert "exceeds 32 MB maximum" in content_block_errors([big])[0]


# -- histories at rest ---------------------------------------------------------------------------


def test_history_at_rest():
    assert history_errors([]) == ([], [])
    assert history_errors([user("Hi")]) == ([], [])
    assert history_errors(tool_round()) == ([], [])
    paused = [user("Add"), assistant(text("Asking."), use("toolu_2"), use("toolu_1"))]
    assert history_errors(paused) == ([], ["toolu_2", "toolu_1"])
    assert history_errors([user("Hi"), assistant("Done.\n")]) == (
        [],
        [],
    )  # not a prefill: it is not final next time


def test_history_at_rest_refuses_what_the_next_request_would_refuse():
    errors, open_ids = history_errors([user("Hi"), assistant()])  # the next user message would follow it
    assert open_ids == [] and "messages.1: all messages must have non-empty content" in errors[0]
    errors, _ = history_errors([user("Hi"), assistant(text(" "))])
    assert "text content blocks must contain non-whitespace text" in errors[0]
    errors, _ = history_errors([*tool_round(), user("again")])
    assert 'multiple "user" roles in a row' in errors[0]
    errors, open_ids = history_errors([user("Add"), assistant(use("toolu_1")), user("hmm")])
    assert "immediately after: toolu_1" in errors[0] and open_ids == []
    assert history_errors({"role": "user"})[0] == ["messages: must be a list of messages"]  # type: ignore[arg-type]


def _long_history(rounds: int) -> list[dict[str, Any]]:
    messages = [user("Start")]
    for i in range(rounds):
        messages.append(assistant(text("Working on it."), use(f"toolu_{i:04d}")))
        messages.append(user(result(f"toolu_{i:04d}", [text("done"), image()])))
    messages.pop()
    return messages


def _lines_run(function: Any, *args: Any) -> int:
    """How many lines of the rules module `function(*args)` runs: its work, whatever the machine's load."""
    counted = 0
    module = history_errors.__code__.co_filename

    def trace(frame: Any, event: str, arg: Any) -> Any:
        nonlocal counted
        if frame.f_code.co_filename != module:
            return None
        if event == "line":
            counted += 1
        return trace

    sys.settrace(trace)
    try:
        function(*args)
    finally:
        sys.settrace(None)
    return counted


def test_history_errors_does_work_linear_in_the_history_s_length():
    """Checked on every save and request: ten times the history is about ten times the work (a check
    quadratic in it would be a hundred). Counted in lines run, not timed: a loaded machine's speed is
    no pass condition (a 25 ms bound failed a loaded run at 25.5 ms)."""
    assert history_errors(_long_history(500)) == ([], ["toolu_0499"])
    short, long = (
        _lines_run(history_errors, _long_history(50)),
        _lines_run(history_errors, _long_history(500)),
    )
    assert long <= 12 * short, (short, long)


# -- the scripted API ----------------------------------------------------------------------------

INVALID = [user("Add"), assistant(use("toolu_1")), user("never mind")]


def test_the_scripted_api_refuses_an_invalid_request_through_the_sdk():
    script = t.ScriptedTransport(t.reply("unused"))
    client = script.client(max_retries=0)

    async def main():
        with pytest.raises(anthropic.BadRequestError) as caught:
            await client.messages.create(model="claude-test", max_tokens=10, messages=INVALID, tools=TOOLS)
        return caught.value

    error = asyncio.run(main())
    assert error.status_code == 400
    assert error.body["type"] == "error" and error.body["error"]["type"] == "invalid_request_error"
    assert (
        "`tool_use` ids were found without `tool_result` blocks immediately after: toolu_1"
        in error.body["error"]["message"]
    )
    assert error.response.headers["request-id"].startswith("req_")
    assert script.remaining == 1  # no step was used
    assert len(script.requests) == 1 and len(script.refused) == 1
    refused = script.refused[0]
    assert refused.body["messages"] == INVALID and refused.errors[0] == error.body["error"]["message"]


def test_a_refused_stream_raises_and_the_next_valid_request_gets_the_step():
    script = t.ScriptedTransport(t.reply("Hello"))
    client = script.client(max_retries=0)

    async def main():
        with pytest.raises(anthropic.BadRequestError) as caught:
            async with client.messages.stream(
                model="claude-test", max_tokens=10, messages=[user(text(""))]
            ) as stream:
                await stream.get_final_message()
        assert "text content blocks must be non-empty" in caught.value.body["error"]["message"]
        async with client.messages.stream(
            model="claude-test", max_tokens=10, messages=[user("Hi")]
        ) as stream:
            return await stream.get_final_message()

    message = asyncio.run(main())
    assert message.content[0].text == "Hello"
    assert len(script.requests) == 2 and len(script.refused) == 1 and script.remaining == 0


def test_validation_comes_before_a_scripted_fault():
    script = t.ScriptedTransport(t.HTTPFault(529))
    client = script.client(max_retries=0)

    async def main():
        with pytest.raises(anthropic.BadRequestError):
            await client.messages.create(model="", max_tokens=10, messages=[user("Hi")])

    asyncio.run(main())
    assert script.remaining == 1 and "model" in script.refused[0].errors[0]


def test_a_truncated_stream_ends_cleanly_without_message_stop():
    script = t.ScriptedTransport(
        t.TruncatedStream(t.reply("Hello there, this gets cut"), after_events=3),
        t.TruncatedStream(after_events=3),
    )
    client = script.client(max_retries=0)

    async def main():
        raw = await client.messages.create(
            model="claude-test", max_tokens=10, messages=[user("Hi")], stream=True
        )
        kinds = [event.type async for event in raw]
        async with client.messages.stream(
            model="claude-test", max_tokens=10, messages=[user("Hi")]
        ) as stream:
            message = await stream.get_final_message()  # no exception: the body just ends
        return kinds, message

    kinds, message = asyncio.run(main())
    assert kinds == ["message_start", "content_block_start", "content_block_delta"]
    assert message.stop_reason is None and message.content[0].text == "This ans"  # one 8-character delta


def test_an_empty_turn_is_a_real_message_with_no_content():
    script = t.ScriptedTransport(t.turn(), t.Turn(content=[]))
    client = script.client(max_retries=0)

    async def main():
        created = await client.messages.create(model="claude-test", max_tokens=10, messages=[user("Hi")])
        async with client.messages.stream(
            model="claude-test", max_tokens=10, messages=[user("Hi")]
        ) as stream:
            streamed = await stream.get_final_message()
        return created, streamed

    for message in asyncio.run(main()):
        assert message.content == [] and message.stop_reason == "end_turn" and message.role == "assistant"


def test_an_agent_history_stays_valid_on_the_strict_api(make_agent):
    agent, script = make_agent(
        t.turn(
            "Let me check.",
            t.tool_use("add", {"a": 1, "b": 2}),
            t.tool_use("user_confirm", {"message": "Go?"}),
        ),
        t.reply("Done."),
        system="Be brief.",
    )

    async def main():
        paused = await agent.run("Add and ask")
        assert paused.stop_reason == "awaiting_frontend_tools"
        pending = paused.pending_frontend_tools[0]
        errors, open_ids = history_errors(agent.state.messages)
        assert errors == [] and pending.tool_use_id in open_ids  # paused: the last assistant turn is open
        return await agent.resume([{"tool_use_id": pending.tool_use_id, "content": "yes"}])

    assert asyncio.run(main()).stop_reason == "end_turn"
    assert script.refused == [] and history_errors(agent.state.messages) == ([], [])
    assert all(request_errors(r) == [] for r in script.requests)


# -- property: valid conversations pass, one breaking change is refused --------------------------

WORDS = st.from_regex(r"[A-Za-z][A-Za-z ,.!?]{0,12}[A-Za-z.!?]", fullmatch=True)


@st.composite
def conversations(draw: Any) -> list[dict[str, Any]]:
    """Valid conversations: alternating roles, each tool_use answered first thing in the next message."""
    messages: list[dict[str, Any]] = [user(*[text(w) for w in draw(st.lists(WORDS, min_size=1, max_size=3))])]
    counter = 0
    for _ in range(draw(st.integers(0, 4))):
        calls = []
        for _ in range(draw(st.integers(0, 3))):
            counter += 1
            calls.append(use(f"toolu_{counter:03d}"))
        words = draw(st.lists(WORDS, min_size=0 if calls else 1, max_size=2))
        messages.append(assistant(*[text(w) for w in words], *calls))
        results = [
            result(c["id"], draw(st.sampled_from(["ok", [text("ok")], [text("see"), image()], ""])))
            for c in calls
        ]
        results = draw(st.permutations(results)) if results else []
        after = [text(w) for w in draw(st.lists(WORDS, min_size=0 if results else 1, max_size=2))]
        messages.append(user(*results, *after))
    if draw(st.booleans()):
        messages.append(assistant(draw(WORDS)))  # a prefill
    return messages


def _breaking_changes(messages: list[dict[str, Any]]) -> list[str]:
    """The breaking changes `_break` can make to this conversation."""
    names = [
        "first message is the assistant's",
        "a message repeated",
        "an empty first message",
        "an empty text block",
        "a blank text block",
        "an extra message key",
        "an unknown block key",
    ]
    results, uses = _tool_blocks(messages)
    if results:
        names += [
            "a result dropped",
            "a result for an unknown id",
            "results after text",
            "a result repeated",
            "an empty error result",
            "tools dropped",
        ]
    if uses:
        names.append("a bad tool_use id")
    if len(uses) > 1:
        names.append("a tool_use id repeated")
    if messages[-1]["role"] == "assistant":
        names += ["a prefill calling a tool", "a prefill ending in a space"]
    return names


def _tool_blocks(messages: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The tool_result blocks and the tool_use blocks of a conversation (the objects themselves)."""
    blocks = [b for m in messages if isinstance(m["content"], list) for b in m["content"]]
    return [b for b in blocks if b["type"] == "tool_result"], [b for b in blocks if b["type"] == "tool_use"]


def _break(messages: list[dict[str, Any]], name: str) -> list[dict[str, Any]]:
    """A copy of `messages` with one breaking change."""
    m = copy.deepcopy(messages)
    results, uses = _tool_blocks(m)
    first = m[0]["content"]
    answer = next(
        (c for c in (msg["content"] for msg in m) if isinstance(c, list) and results[:1] and results[0] in c),
        [],
    )
    changes = {
        "first message is the assistant's": lambda: m[0].update(role="assistant"),
        "a message repeated": lambda: m.insert(0, copy.deepcopy(m[0])),
        "an empty first message": lambda: m[0].update(content=[]),
        "an empty text block": lambda: first.append(text("")),
        "a blank text block": lambda: first.insert(0, text(" \n ")),
        "an extra message key": lambda: m[-1].update(name="me"),
        "an unknown block key": lambda: first[0].update(kind="x"),
        "a result dropped": lambda: answer.remove(results[0]),
        "a result for an unknown id": lambda: results[0].update(tool_use_id="toolu_999"),
        "results after text": lambda: answer.insert(0, text("first")),
        "a result repeated": lambda: answer.append(copy.deepcopy(results[0])),
        "an empty error result": lambda: results[0].update(content="", is_error=True),
        "a bad tool_use id": lambda: uses[0].update(id="toolu 1"),
        "a tool_use id repeated": lambda: uses[1].update(id=uses[0]["id"]),
        "a prefill calling a tool": lambda: m[-1].update(content=[text("a"), use("toolu_777")]),
        "a prefill ending in a space": lambda: m[-1].update(content=m[-1]["content"] + " "),
    }
    changes[name]()
    return m


@settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(conversations(), st.data())
def test_property_valid_conversations_pass_and_one_breaking_change_is_refused(messages, data):
    assert request_errors(body(*messages, tools=TOOLS)) == []
    assert history_errors(messages) == ([], [])
    name = data.draw(st.sampled_from(_breaking_changes(messages)), label="breaking change")
    if name == "tools dropped":  # only a request can leave them out
        assert any("must define tools" in e for e in request_errors(body(*messages)))
        return
    broken = _break(messages, name)
    assert request_errors(body(*broken, tools=TOOLS)), name
    if not name.startswith("a prefill"):  # at rest, the last message is no prefill
        assert history_errors(broken)[0], name


@settings(max_examples=60, deadline=None)
@given(conversations())
def test_property_a_paused_history_reports_its_open_calls(messages):
    if messages[-1]["role"] == "assistant":
        messages = messages[:-1]
    paused = [*messages, assistant(text("Asking."), use("toolu_p1"), use("toolu_p2"))]
    assert history_errors(paused) == ([], ["toolu_p1", "toolu_p2"])
    assert any(
        "immediately after: toolu_p1, toolu_p2" in e for e in request_errors(body(*paused, tools=TOOLS))
    )
