"""A failed turn as a person reads it: one sentence of what happened and what to do, details folded.

Each SDK error is the one the real `AsyncAnthropic` raises from an HTTP response (or a transport
failure) of an `httpx2.MockTransport`, so the mapping follows the SDK's own classes and bodies.
"""

from __future__ import annotations

import asyncio
import io

import anthropic
import httpx2
import pytest
from rich.console import Console

import notebook_tools as nt
from notebook_tools import testing as t
from notebook_tools._exceptions import IncompleteResponseError, NoFrontendError, StaleSessionError
from notebook_tools.api import explain
from notebook_tools.terminal import TerminalChat
from notebook_tools.widgets._export import to_html
from tests.support.browser_double import FakeView


def raised_by_the_sdk(respond) -> BaseException:
    """What the real client raises for one request answered by `respond(request)` (no retries)."""

    def handler(request: httpx2.Request) -> httpx2.Response:
        return respond(request)

    client = anthropic.AsyncAnthropic(
        api_key="test-key",
        http_client=httpx2.AsyncClient(transport=httpx2.MockTransport(handler)),
        max_retries=0,
    )

    async def call() -> None:
        await client.messages.create(
            model="claude-test", max_tokens=10, messages=[{"role": "user", "content": "hi"}]
        )

    with pytest.raises(anthropic.AnthropicError) as raised:
        asyncio.run(call())
    return raised.value


def status(code: int, kind: str, message: str):
    body = {"type": "error", "error": {"type": kind, "message": message}}
    return lambda request: httpx2.Response(code, headers={"request-id": "req_0123"}, json=body)


def fails(error: type[Exception], message: str):
    def respond(request: httpx2.Request) -> httpx2.Response:
        raise error(message)

    return respond


CASES = [  # (what the API answered, the SDK's class, the start of the sentence, whether Retry helps)
    (
        status(400, "invalid_request_error", "messages: roles must alternate"),
        anthropic.BadRequestError,
        "The API refused this request as invalid, so sending it again will fail the same way",
        False,
    ),
    (
        status(400, "invalid_request_error", "prompt is too long: 210000 tokens > 200000 maximum"),
        anthropic.BadRequestError,
        "The conversation is now longer than the model accepts",
        False,
    ),
    (
        status(400, "invalid_request_error", "the script has no step left for request 3"),
        anthropic.BadRequestError,
        "The scripted model has no reply left in its script, so asking again cannot help",
        False,
    ),
    (
        status(401, "authentication_error", "invalid x-api-key"),
        anthropic.AuthenticationError,
        "The API did not accept the API key: set a valid ANTHROPIC_API_KEY",
        False,
    ),
    (
        status(
            403, "permission_error", "Your API key does not have permission to use the specified resource."
        ),
        anthropic.PermissionDeniedError,
        "This API key may not use this model or feature",
        False,
    ),
    (
        status(404, "not_found_error", "model: claude-nope"),
        anthropic.NotFoundError,
        "The API does not know this model or address: check the model name",
        False,
    ),
    (
        status(413, "request_too_large", "Request exceeds the maximum allowed number of bytes."),
        anthropic.APIStatusError,
        "The request is too large for the API",
        False,
    ),
    (
        status(429, "rate_limit_error", "Number of request tokens has exceeded your per-minute rate limit"),
        anthropic.RateLimitError,
        "The API's rate limit was reached: wait a minute, then Retry.",
        True,
    ),
    (
        status(500, "api_error", "Internal server error"),
        anthropic.InternalServerError,
        "The API had an error on its side: wait a moment, then Retry.",
        True,
    ),
    (
        status(529, "overloaded_error", "Overloaded"),
        anthropic.InternalServerError,
        "The API is overloaded right now: wait a moment, then Retry.",
        True,
    ),
    (
        fails(httpx2.ConnectError, "[Errno 111] Connection refused"),
        anthropic.APIConnectionError,
        "The API could not be reached: check the network",
        True,
    ),
    (
        fails(httpx2.ReadTimeout, "timed out"),
        anthropic.APITimeoutError,
        "The API did not answer in time: Retry",
        True,
    ),
]


@pytest.mark.parametrize(("respond", "cls", "sentence", "retry"), CASES)
def test_each_sdk_error_is_one_sentence_with_what_to_do_and_the_details_folded(respond, cls, sentence, retry):
    exc = raised_by_the_sdk(respond)
    assert isinstance(exc, cls)
    said = explain(exc)
    assert said.sentence.startswith(sentence), said.sentence
    assert said.retry is retry
    # one sentence: one full stop, at the end; no class names, status codes or JSON in it
    assert said.sentence.endswith(".") and said.sentence.count(". ") == 0
    assert type(exc).__name__ not in said.sentence and "{" not in said.sentence
    # the details carry what a bug report needs
    assert said.details.startswith(type(exc).__name__)
    if isinstance(exc, anthropic.APIStatusError):
        assert f"HTTP {exc.status_code}" in said.details and "req_0123" in said.details
        assert exc.body["error"]["message"] in said.details  # type: ignore[index]


def test_our_own_errors_are_sentences_too():
    cases = {
        IncompleteResponseError("the stream was cut off 3 times"): ("The reply was cut off", True),
        StaleSessionError("abc", "SQLiteStore('x.db')", 2, 3): ("Another kernel or tab saved", False),
        NoFrontendError("nobody"): ("A prompt needed a person but no chat was showing", True),
        RuntimeError("disk full"): ("Something failed in the kernel (RuntimeError)", True),
    }
    for exc, (start, retry) in cases.items():
        said = explain(exc)
        assert said.sentence.startswith(start) and said.retry is retry, said
        assert said.details.startswith(type(exc).__name__)


def test_a_script_that_ran_out_shows_a_sentence_in_the_widget_and_offers_no_retry(make_agent):
    agent, _ = make_agent(t.reply("the only reply"))
    chat = nt.Chat(agent)
    FakeView(chat)

    async def main() -> None:
        await chat.send("first")
        with pytest.raises(anthropic.BadRequestError):
            await chat.send("a follow-up the script has no step for")

    asyncio.run(main())
    [notice] = [i for i in chat.transcript.items.values() if i.get("level") == "error"]
    assert notice["text"].startswith("The scripted model has no reply left in its script")
    assert notice["retry"] is False  # asking again as is would fail the same way
    assert notice["details"].startswith("BadRequestError (HTTP 400")
    assert "the script has no step left for request 2" in notice["details"]
    assert "BadRequestError" not in notice["text"] and "{" not in notice["text"]
    # the saved notebook's static copy folds the details the same way
    html = to_html([notice])
    assert "<details><summary>Details</summary><pre>BadRequestError (HTTP 400" in html


def test_the_terminal_shows_the_sentence_and_the_details_on_a_dim_second_line():
    script = t.ScriptedTransport(t.HTTPFault(401, "invalid x-api-key"))
    agent = nt.Agent(client=script.client(max_retries=0))
    out = io.StringIO()
    console = Console(file=out, color_system=None, width=200, highlight=False, emoji=False)
    chat = TerminalChat(agent, console=console, input=["hello", "/exit"])
    assert asyncio.run(asyncio.wait_for(chat.run(), 20)) == 0
    screen = out.getvalue()
    assert "! The API did not accept the API key: set a valid ANTHROPIC_API_KEY" in screen
    assert "  details: AuthenticationError (HTTP 401" in screen and "invalid x-api-key" in screen
    assert "/retry requests again" not in screen  # a refused key fails the same way again
