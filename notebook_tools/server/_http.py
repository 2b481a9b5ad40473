"""What every endpoint shares: the bearer-token check, bounded JSON bodies, errors that echo no secret.

Bodies are read in chunks and refused (413) as soon as they pass the limit, so a huge
upload costs the server no more than the limit; they must be JSON objects that the
endpoint's pydantic model accepts (422 otherwise, naming the field). Error texts pass
through `redact`, which removes the server's token, the API key and anything shaped
like an Anthropic key, whatever raised them.
"""

from __future__ import annotations

import hmac
import html
import json
import math
import os
import re
from typing import Annotated, Any, TypeVar

import pydantic
from starlette.requests import Request
from starlette.responses import JSONResponse

from .._exceptions import (
    AgentBusyError,
    HTTPRefusal,
    InvalidToolResultError,
    SessionNotFoundError,
    StaleSessionError,
    ToolDefinitionError,
    ToolResultIdsError,
)

__all__ = [
    "MAX_DEPTH",
    "AnId",
    "HTTPRefusal",
    "Limits",
    "as_refusal",
    "check_token",
    "printable_id",
    "read_body",
    "redact",
    "refusal",
]

M = TypeVar("M", bound=pydantic.BaseModel)
MAX_DEPTH = 100
"""How deep a body may nest. A value saved in a session (an approval's edited arguments) more than about
240 levels deep cannot be saved (pydantic's serializer stops at 255): refused here, before anything runs."""
BUSY_CALLS = (
    "tool calls of this session are still open: answer them (POST /agent/tool_results, or tool messages or a "
    "resume on /agui), carry the turn on (POST /agent/continue), or stop it (POST /agent/stop)"
)
_KEY_SHAPE = re.compile(r"sk-ant-[A-Za-z0-9_\-]{8,}")


class Limits:
    """Request size limits.

    Args:
        max_body_bytes: Largest request body.
        max_message_chars: Longest user message a run may start with.
    """

    def __init__(self, max_body_bytes: int = 1_000_000, max_message_chars: int = 100_000) -> None:
        self.max_body_bytes = max_body_bytes
        self.max_message_chars = max_message_chars


def refusal(exc: HTTPRefusal, token: str | None = None) -> JSONResponse:
    """The JSON response of a refusal, without the server's `token` or a key anywhere in it."""
    headers = {"WWW-Authenticate": "Bearer"} if exc.status == 401 else None
    secrets = (token,) if token else ()
    body = {"error": redact(exc.message, secrets), **exc.details}
    text = redact(json.dumps(body, ensure_ascii=False), secrets)  # ids the client sent are echoed in details
    return JSONResponse(json.loads(text), status_code=exc.status, headers=headers)


def redact(text: str, secrets: tuple[str, ...] = ()) -> str:
    """`text` without the token, the API key or anything shaped like an Anthropic key.

    Also their JSON- and HTML-escaped forms: `text` may be an encoded frame.
    """
    for secret in (*secrets, os.environ.get("ANTHROPIC_API_KEY", "")):
        if len(secret) >= 8:
            quoted = json.dumps(secret)[1:-1]
            for form in {secret, quoted, html.escape(secret), html.escape(quoted)}:
                text = text.replace(form, "[redacted]")
    return _KEY_SHAPE.sub("[redacted]", text)


def printable_id(value: str) -> str:
    """A session or call id from a client: printable text (it becomes a store key and is echoed)."""
    if not value.isprintable():
        raise HTTPRefusal(422, "must be printable text (no control characters)")  # a ValueError: pydantic's
    return value


AnId = Annotated[str, pydantic.Field(min_length=1, max_length=200), pydantic.AfterValidator(printable_id)]
"""An id field of a request body: 1-200 printable characters."""


def check_token(request: Request, token: str | None) -> None:
    """Refuse (401) a request without `Authorization: Bearer <token>` when a token is set."""
    if token is None:
        return
    header = request.headers.get("authorization", "")
    scheme, _, given = header.partition(" ")
    if scheme.lower() != "bearer" or not hmac.compare_digest(given.strip().encode(), token.encode()):
        raise HTTPRefusal(401, "missing or wrong bearer token")


async def read_body(request: Request, model: type[M], limits: Limits) -> M:
    """The request's JSON body as `model`, read no further than the size limit.

    Raises:
        HTTPRefusal: 413 too large, 415 not JSON, 400 malformed JSON, 422 nested over `MAX_DEPTH` or
            422 the wrong shape.
    """
    kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if kind != "application/json":
        raise HTTPRefusal(415, "the body must be JSON (Content-Type: application/json)")
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limits.max_body_bytes:
        raise HTTPRefusal(413, f"the body is over {limits.max_body_bytes} bytes")
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limits.max_body_bytes:
            raise HTTPRefusal(413, f"the body is over {limits.max_body_bytes} bytes")
        chunks.append(chunk)
    raw = b"".join(chunks)
    try:
        data = json.loads(raw, parse_constant=_not_json, parse_float=_finite)
        if b"\\u" in raw:  # a lone surrogate (\ud800) decodes, then breaks every store and stream
            json.dumps(data, ensure_ascii=False).encode()
    except (ValueError, RecursionError) as exc:
        raise HTTPRefusal(400, f"the body is not valid JSON: {exc}") from None
    if not isinstance(data, dict):
        raise HTTPRefusal(422, "the body must be a JSON object")
    if _too_deep(data):
        raise HTTPRefusal(422, f"the body is nested more than {MAX_DEPTH} levels deep")
    try:
        return model.model_validate(data)
    except pydantic.ValidationError as exc:
        problems = [
            {"field": ".".join(str(p) for p in e["loc"]) or "(body)", "problem": e["msg"]}
            for e in exc.errors(include_url=False, include_input=False)[:20]
        ]
        raise HTTPRefusal(422, "the body has the wrong shape", problems=problems) from None


def _too_deep(data: Any) -> bool:
    """Whether `data` nests lists and objects more than `MAX_DEPTH` levels deep."""
    todo = [(data, 1)]
    while todo:
        value, depth = todo.pop()
        children = value.values() if isinstance(value, dict) else value if isinstance(value, list) else None
        if children is None:
            continue
        if depth > MAX_DEPTH:
            return True
        todo += [(child, depth + 1) for child in children]
    return False


def _finite(text: str) -> float:
    """A JSON number as a float, refusing one too large for a float (1e400 would become Infinity)."""
    value = float(text)
    if not math.isfinite(value):
        raise HTTPRefusal(400, f"{text[:40]} is too large a number")  # a ValueError: read_body's JSON refusal
    return value


def _not_json(name: str) -> Any:
    """NaN and Infinity, which Python's json takes but JSON has not (and which break what echoes them)."""
    raise HTTPRefusal(400, f"{name} is not a JSON number")  # a ValueError: read_body's JSON refusal


def as_refusal(exc: BaseException) -> HTTPRefusal | None:
    """The HTTP answer for an exception that refused a request before it changed anything, or None."""
    if isinstance(exc, HTTPRefusal):
        return exc
    if isinstance(exc, SessionNotFoundError):  # (its id is not echoed: a client may send a secret as one)
        return HTTPRefusal(404, "no such session")
    if isinstance(exc, ToolResultIdsError):
        ids = {"missing": exc.missing, "unknown": exc.unknown, "not_pending": exc.not_pending}
        return HTTPRefusal(400, str(exc), **ids, duplicate=exc.duplicate)
    if isinstance(exc, InvalidToolResultError):
        return HTTPRefusal(422, str(exc), tool_use_id=exc.tool_use_id)
    if isinstance(exc, StaleSessionError):
        return HTTPRefusal(409, "another request changed this session first; nothing was changed")
    if isinstance(exc, AgentBusyError):
        return HTTPRefusal(409, BUSY_CALLS)
    if isinstance(exc, ToolDefinitionError):
        return HTTPRefusal(422, str(exc))
    return None
