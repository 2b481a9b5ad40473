"""The AG-UI endpoint's input: RunAgentInput's ids, the new user message, client tools, tool messages.

Everything here refuses with `HTTPRefusal` (422 unless said otherwise) before anything
runs. The ids are echoed in every event, so they must be short printable text. The
client's tools become schema-only frontend tools for this request; their parameters must
be a JSON Schema (Draft 2020-12) of an object, as the Messages API requires, whose references
resolve within it (see `_client_schemas`), and a tool may say how long a person has to answer
with `metadata.timeout` (seconds; none by default).
"""

from __future__ import annotations

import json
import re
from typing import Any

from ag_ui.core import RunAgentInput, ToolMessage, UserMessage

from .._exceptions import ToolDefinitionError
from ..api._rules import TOOL_NAME_RE
from ..session._state import ToolResult
from ..tools._tool import Tool
from ._client_schemas import MAX_SCHEMA_NODES, schema_nodes, schema_problem
from ._http import HTTPRefusal, Limits

__all__ = [
    "MAX_CLIENT_TOOLS",
    "MAX_TIMEOUT",
    "check_client_id",
    "check_ids",
    "client_tools",
    "new_message",
    "tool_answers",
]

MAX_CLIENT_TOOLS = 64
MAX_ID = 200
MAX_TIMEOUT = 30 * 24 * 3600
"""The longest `metadata.timeout` a client tool may ask for (30 days; its expiresAt must be a date)."""


def check_ids(body: RunAgentInput) -> None:
    """Refuse a threadId or runId that is empty, over 200 characters, or not printable text."""
    for field, value in (("threadId", body.thread_id), ("runId", body.run_id)):
        if not value or len(value) > MAX_ID or not value.isprintable():
            raise HTTPRefusal(422, f"{field} must be 1-{MAX_ID} printable characters (no control characters)")


_DERIVED = re.compile(r"msg_\d+(_.*)?|result_.*|activity_.*|.*_reasoning_\d+", re.DOTALL)
"""The ids the server gives messages (`_agui_messages`): a client's own may not look like them."""


def check_client_id(value: str, what: str) -> None:
    """Refuse (422) a message id a client gives that the server could not keep as the message's id."""
    if not value or len(value) > MAX_ID or not value.isprintable():
        raise HTTPRefusal(422, f"{what}: a message id must be 1-{MAX_ID} printable characters")
    if _DERIVED.fullmatch(value):
        raise HTTPRefusal(
            422,
            f"{what}: ids like msg_<n>, result_<id>, activity_<id> and <id>_reasoning_<n> are the server's",
        )


def new_message(body: RunAgentInput, known: set[str], limits: Limits) -> tuple[str, str] | None:
    """The person's new message ending `messages` (its text and the client's id), else None.

    The last message is new when it is the person's and its id is not one the thread already
    holds (`known`); the rest of `messages` is the client's copy of the conversation, and the
    server's stored history is authoritative, so it is not read.
    """
    last = body.messages[-1] if body.messages else None
    if not isinstance(last, UserMessage) or last.id in known:
        return None
    check_client_id(last.id, "the user message")
    content = last.content
    if isinstance(content, str):
        text = content
    else:
        kinds = sorted({getattr(p, "type", "?") for p in content} - {"text"})
        if kinds:
            raise HTTPRefusal(422, f"only text parts are taken in a user message, not {', '.join(kinds)}")
        text = "\n".join(str(getattr(p, "text", "")) for p in content)
    if not text.strip():
        raise HTTPRefusal(422, "the user message is empty")
    if len(text) > limits.max_message_chars:
        raise HTTPRefusal(413, f"the message is over {limits.max_message_chars} characters")
    return text, last.id


def _no_body(**arguments: Any) -> Any:
    """A client tool: the browser answers it; never called in Python."""
    return None


def client_tools(body: RunAgentInput) -> list[Tool]:
    """The client's tools (`RunAgentInput.tools`) as schema-only frontend tools."""
    given = body.tools or []
    if len(given) > MAX_CLIENT_TOOLS:
        raise HTTPRefusal(422, f"at most {MAX_CLIENT_TOOLS} client tools")
    if sum(schema_nodes(item.parameters) for item in given) > MAX_SCHEMA_NODES:
        raise HTTPRefusal(422, f"the client tools' parameters hold over {MAX_SCHEMA_NODES} objects and lists")
    tools: list[Tool] = []
    seen: set[str] = set()
    for index, item in enumerate(given):
        where = f"tools.{index}"
        if not TOOL_NAME_RE.match(item.name):
            raise HTTPRefusal(422, f"{where}.name must be 1-64 letters, digits, '_' or '-'")
        if item.name in seen:
            raise HTTPRefusal(422, f"{where}: two client tools are named {item.name!r}")
        seen.add(item.name)
        schema = item.parameters
        if schema is None or schema == {}:  # no parameters, or any value: clients send both for none
            schema = {"type": "object", "properties": {}}
        problem = schema_problem(schema)
        if problem is not None:
            raise HTTPRefusal(422, f"{where} ({item.name}): {problem}")
        timeout = (item.metadata or {}).get("timeout")
        number = isinstance(timeout, int | float) and not isinstance(timeout, bool)
        if timeout is not None and not (number and 0 < timeout <= MAX_TIMEOUT):
            raise HTTPRefusal(
                422, f"{where}.metadata.timeout must be a number of seconds over 0 and at most {MAX_TIMEOUT}"
            )
        try:
            tools.append(
                Tool(
                    _no_body,
                    name=item.name,
                    description=item.description or item.name,
                    executor="frontend",
                    input_schema=schema,
                    timeout=timeout,
                )
            )
        except ToolDefinitionError as exc:
            raise HTTPRefusal(422, f"{where} ({item.name}): {exc}") from None
    return tools


def tool_answers(body: RunAgentInput) -> list[tuple[str, ToolResult]] | None:
    """The tool messages ending `messages` (AG-UI's answer to client tools): (client id, result) each.

    None when `messages` does not end with a tool message.
    """
    trailing: list[ToolMessage] = []
    for message in reversed(body.messages):
        if not isinstance(message, ToolMessage):
            break
        trailing.insert(0, message)
    if not trailing:
        return None
    results = []
    for message in trailing:
        content = message.content
        if isinstance(content, str):
            text = content
        elif all(getattr(p, "type", "") == "text" for p in content):  # text parts are text, as in new_message
            text = "\n".join(str(getattr(p, "text", "")) for p in content)
        else:
            text = json.dumps([p.model_dump(mode="json") for p in content])
        call = message.tool_call_id
        if message.error:
            results.append((message.id, ToolResult(tool_use_id=call, content=message.error, is_error=True)))
        elif not text:
            raise HTTPRefusal(422, f"the tool message answering {call!r} is empty")
        else:
            results.append((message.id, ToolResult(tool_use_id=call, content=text)))
    return results
