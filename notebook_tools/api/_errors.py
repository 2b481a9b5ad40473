"""What a failed turn tells the person: one sentence of what happened and what to do, details folded.

Front ends (the widget's notice, the terminal's problem line, the saved transcript) show
`explain(exc).sentence` and fold `details` away (a `<details>` in HTML, a dim line in the
terminal). `retry` says whether asking again as is can help: a 400, a refused key or an unknown
model fails the same way every time, so no Retry is offered for them; the sentence says what to
do instead.
"""

from __future__ import annotations

from dataclasses import dataclass

import anthropic

from .._exceptions import (
    CassetteError,
    CassetteMismatchError,
    IncompleteResponseError,
    NoFrontendError,
    SessionInvariantError,
    StaleSessionError,
    StoreError,
    ToolResultError,
)

__all__ = ["SCRIPT_ENDED", "Explained", "explain"]

SCRIPT_ENDED = "the script has no step left"
"""How the scripted Messages API's 400 begins when its script is used up (`testing.ScriptedTransport`)."""


@dataclass(frozen=True)
class Explained:
    """A failure as a person reads it."""

    sentence: str
    """What happened and what to do, in one sentence."""
    details: str
    """The technical details (class, status, request id, the API's own message), shown folded."""
    retry: bool
    """Whether asking again as is may work (a Retry button or /retry is offered only then)."""


_CASSETTE = (
    "This request differs from the one the notebook's cassette recorded: record the notebook again "
    "(the details say what differs and how)."
)


def _api_message(exc: anthropic.APIStatusError) -> str:
    body = exc.body
    if isinstance(body, dict):
        error = body.get("error")
        if isinstance(error, dict) and isinstance(error.get("message"), str):
            return str(error["message"])
    return str(exc.message)


def _details(exc: BaseException) -> str:
    name = type(exc).__name__
    if isinstance(exc, anthropic.APIStatusError):
        request_id = getattr(exc, "request_id", None)
        rid = f", request id {request_id}" if request_id else ""
        return f"{name} (HTTP {exc.status_code}{rid}): {_api_message(exc)}"
    text = str(exc)
    return f"{name}: {text}" if text else name


def _status_sentence(exc: anthropic.APIStatusError) -> tuple[str, bool]:
    status, message = exc.status_code, _api_message(exc)
    if isinstance(exc, anthropic.BadRequestError):
        if message.startswith(SCRIPT_ENDED):
            return (
                "The scripted model has no reply left in its script, so asking again cannot help: set "
                "ANTHROPIC_API_KEY to talk to Claude, or add replies with script.add(...).",
                False,
            )
        if message.lower().startswith("cassette "):  # a replayed notebook's request is not the recorded one
            return _CASSETTE, False
        if "prompt is too long" in message or "too many tokens" in message:
            return (
                "The conversation is now longer than the model accepts: start a new chat (or /clear) "
                "and carry on with a shorter message.",
                False,
            )
        return (
            "The API refused this request as invalid, so sending it again will fail the same way: "
            "see the details, then start a new chat (or /clear) if the conversation itself is at fault.",
            False,
        )
    if isinstance(exc, anthropic.AuthenticationError):
        return (
            "The API did not accept the API key: set a valid ANTHROPIC_API_KEY (console.anthropic.com) "
            "and restart the kernel or the chat.",
            False,
        )
    if isinstance(exc, anthropic.PermissionDeniedError):
        return (
            "This API key may not use this model or feature: choose another model, or ask your "
            "organisation's admin for access.",
            False,
        )
    if isinstance(exc, anthropic.NotFoundError):
        return (
            "The API does not know this model or address: check the model name (agent.model) and "
            "ANTHROPIC_BASE_URL.",
            False,
        )
    if isinstance(exc, anthropic.RateLimitError):
        return "The API's rate limit was reached: wait a minute, then Retry.", True
    if status == 413:
        return (
            "The request is too large for the API (large files or images): remove some, then send a "
            "new message.",
            False,
        )
    if isinstance(exc, anthropic.InternalServerError) or status >= 500:
        if status == 529 or "overloaded" in message.lower():
            return "The API is overloaded right now: wait a moment, then Retry.", True
        return "The API had an error on its side: wait a moment, then Retry.", True
    return f"The API refused the request (HTTP {status}): see the details for why.", status in (408, 409)


def explain(exc: BaseException) -> Explained:
    """The sentence, the folded details and whether Retry can help, for the error that ended a turn."""
    details = _details(exc)
    if isinstance(exc, anthropic.APIStatusError):
        sentence, retry = _status_sentence(exc)
    elif isinstance(exc, anthropic.APITimeoutError):  # before APIConnectionError: it is one
        sentence, retry = (
            "The API did not answer in time: Retry (a long reply may need a longer timeout).",
            True,
        )
    elif isinstance(exc, anthropic.APIConnectionError):
        sentence, retry = (
            "The API could not be reached: check the network (and ANTHROPIC_BASE_URL), then Retry.",
            True,
        )
    elif isinstance(exc, IncompleteResponseError):
        sentence, retry = "The reply was cut off several times before it finished: Retry to ask again.", True
    elif isinstance(exc, CassetteMismatchError):
        sentence, retry = _CASSETTE, False
    elif isinstance(exc, CassetteError):
        sentence, retry = "The recorded replies of this notebook cannot be used: see the details.", False
    elif isinstance(exc, StaleSessionError):
        sentence, retry = (
            "Another kernel or tab saved this session in the meantime: reload it with agent.load(...) "
            "and send your message again.",
            False,
        )
    elif isinstance(exc, StoreError):
        sentence, retry = "The session could not be saved or read: see the details, then Retry.", True
    elif isinstance(exc, NoFrontendError):
        sentence, retry = (
            "A prompt needed a person but no chat was showing: display the chat, then Retry.",
            True,
        )
    elif isinstance(exc, (SessionInvariantError, ToolResultError)):
        sentence, retry = (
            "The session was left in a state the API would refuse, so nothing was sent: start a new chat "
            "(or /clear); the details say what was wrong.",
            False,
        )
    elif isinstance(exc, anthropic.AnthropicError):
        sentence, retry = "The Anthropic client failed: see the details, then Retry.", True
    else:
        sentence, retry = (
            f"Something failed in the kernel ({type(exc).__name__}): see the details, then Retry.",
            True,
        )
    return Explained(sentence=sentence, details=details, retry=retry)
