"""MCP elicitation as broker prompts: a server's form or URL request, answered by a person.

An MCP server may ask the person something (`elicitation/create`). Each request becomes an
ordinary prompt of the broker, so the widget, the terminal and the HTTP server answer it alike and
a reloaded page shows it again:

- form mode: the requested schema (MCP's flat object of primitives) becomes a form through the
  form engine (a frontend call whose output schema is the requested one); Submit is `accept` with
  content checked against the schema (formats included), Skip is `decline`, and a timeout, Stop or
  no front end is `cancel`, never an accept;
- URL mode: a consent card naming the host (an IDN shown as its punycode, with the Unicode form
  beside it) whose Open button opens the page on the person's click only (the kernel refuses any
  ack but the click's); Skip is `decline`.

What the server writes (its message, the field titles) is untrusted: cards show it as plain text,
beside a question of our own. The handlers return MCP results as JSON (`{"action": ...}`), or
`{"error": why, "code": ...}` for a request that cannot be shown (the server gets an MCP error).
"""

from __future__ import annotations

import datetime
import hashlib
import json
import re
from typing import Any
from urllib.parse import urlsplit

from ..prompts._answers import is_skip
from ..prompts._broker import PromptBroker
from ..prompts._in_call import InCallPrompts
from ..session._state import ToolResult
from ..tools._patterns import schema_pattern_problem, search
from ..tools._tool import Tool
from ._url_done import URLCompletions
from ._urls import host_shown, url_tool, web_page

__all__ = [
    "ELICIT_FORM_QUESTION",
    "ELICIT_URL_QUESTION",
    "MCPElicitation",
    "host_shown",
    "schema_problem",
    "url_tool",
    "web_page",
]

ELICIT_FORM_QUESTION = "An MCP server asks you for information"
ELICIT_URL_QUESTION = "An MCP server asks you to open a page"
INVALID_PARAMS = -32602
_PRIMITIVES = {"string", "number", "integer", "boolean"}
_FORMATS = {"email", "uri", "date", "date-time"}
_EMAIL = r"^[^@\s]+@[^@\s]+\.[^@\s]+$"  # matched by RE2: Python's `re` took 6 s on "a@" + 20,000 dots + "@"


def error(code: int, message: str) -> dict[str, Any]:
    """A refusal the server gets as an MCP error: `{"error": why, "code": MCP's code for it}`."""
    return {"error": message, "code": code}


def schema_problem(schema: Any) -> str:
    """Why `schema` is not an elicitation schema MCP allows ("" when it is): a flat object of primitives."""
    if not isinstance(schema, dict) or schema.get("type") != "object":
        return "requestedSchema must be an object schema"
    props = schema.get("properties")
    if not isinstance(props, dict) or not props:
        return "requestedSchema needs properties"
    for name, prop in props.items():
        if not isinstance(prop, dict):
            return f"property {name!r} is not a schema"
        kind = prop.get("type")
        if kind == "array":  # a multi-select: items an enum, or titled consts
            items = prop.get("items")
            if not isinstance(items, dict) or not (
                isinstance(items.get("enum"), list)
                or isinstance(items.get("anyOf") or items.get("oneOf"), list)
            ):
                return f"property {name!r}: an array must be a multi-select enum"
        elif not isinstance(kind, str) or kind not in _PRIMITIVES:  # (a list or an object is no type here)
            return f"property {name!r}: {kind!r} is not a primitive type (string, number, integer, boolean)"
        if "format" in prop and not (isinstance(prop["format"], str) and prop["format"] in _FORMATS):
            return f"property {name!r}: format {prop['format']!r} is not one of {sorted(_FORMATS)}"
    required = schema.get("required", [])
    if not isinstance(required, list) or any(not isinstance(r, str) or r not in props for r in required):
        return "requestedSchema's required names a property it does not have"
    return schema_pattern_problem(schema, "requestedSchema") or ""  # (answers are checked against it)


def _format_errors(schema: dict[str, Any], value: Any) -> list[str]:
    """What the schema's string formats refuse (jsonschema only notes them)."""
    if not isinstance(value, dict):
        return []
    found = []
    for name, prop in schema.get("properties", {}).items():
        text, fmt = value.get(name), prop.get("format")
        if not isinstance(text, str) or fmt is None:
            continue
        if fmt == "email" and not search(_EMAIL, text):
            found.append(f"{name}: {text!r} is not an email address")
        elif fmt == "uri" and not (urlsplit(text).scheme and (urlsplit(text).netloc or ":" in text)):
            found.append(f"{name}: {text!r} is not a URI")
        elif fmt in ("date", "date-time"):
            try:
                parse = datetime.date.fromisoformat if fmt == "date" else datetime.datetime.fromisoformat
                parse(text.replace("Z", "+00:00"))
            except ValueError:
                found.append(f"{name}: {text!r} is not an ISO {fmt}")
    return found


class _FormTool(Tool):
    """One elicitation's form: its output schema is the server's, formats checked too."""

    def output_value_errors(self, value: object) -> list[str]:
        errors = super().output_value_errors(value)
        return errors or _format_errors(self.output_schema or {}, value)


def _schema_only(**arguments: Any) -> None:
    """Schema-only: a person answers it."""


def _form_tool(name: str, schema: dict[str, Any]) -> Tool:
    output = {**schema, "additionalProperties": False}
    return _FormTool(
        _schema_only,
        name=name,
        description="An MCP server asks for information: fill in the form, or Skip to decline.",
        executor="frontend",
        category="mcp",
        input_schema={"type": "object", "properties": {"server": {"type": "string"}}},
        output_schema=output,
    )


class MCPElicitation:
    """Answers a server's `elicitation/create` through a broker's prompts.

    Args:
        broker: The broker whose front ends show the prompts (a `FrontendSession`'s).
        timeout: Seconds a prompt waits before it is cancelled (None: the broker's policies only).
    """

    def __init__(self, broker: PromptBroker, *, timeout: float | None = None) -> None:
        self.broker = broker
        self.timeout = timeout
        self.completions = URLCompletions(broker)
        """The accepted URL cards, updated when the server says a page is done (see `completed`)."""
        self.completed = self.completions.completed
        self._prompts = InCallPrompts(broker, timeout=timeout)

    async def __call__(self, server: str, params: dict[str, Any]) -> dict[str, Any]:
        """The MCP result for one request: `{"action": "accept", "content": {...}}`, decline or cancel."""
        mode = params.get("mode", "form")
        message = params.get("message")
        if not isinstance(message, str):
            return error(INVALID_PARAMS, "elicitation needs a message")
        if mode == "url":
            url = params.get("url")
            if not web_page(url):
                return error(INVALID_PARAMS, "URL elicitation needs an http(s) url with a host")
            assert isinstance(url, str)
            result = await self.consent(server, "url", ELICIT_URL_QUESTION, url, message)
            if result.is_error:
                return self._refusal(result)
            if isinstance(params.get("elicitationId"), str):  # its completion may come: the card shows it
                self.completions.track(server, params["elicitationId"], result.tool_use_id)
            return {"action": "accept"}
        if mode != "form":
            return error(INVALID_PARAMS, f"unknown elicitation mode {mode!r}")
        schema = params.get("requestedSchema")
        problem = schema_problem(schema)
        if problem:
            return error(INVALID_PARAMS, problem)
        assert isinstance(schema, dict)
        arguments = {"message": ELICIT_FORM_QUESTION, "server": server, "server_message": message}
        result = await self._ask(_form_tool(self._name(server, "form"), schema), arguments)
        if result.is_error:
            return self._refusal(result)
        return {"action": "accept", "content": json.loads(str(result.content))}

    def _name(self, server: str, kind: str) -> str:
        """The prompt's tool name, `mcp_<server>_<kind>` (a `ScriptedUser` answers by it), unique."""
        name = base = f"mcp_{re.sub(r'[^A-Za-z0-9_-]', '_', server)[:40]}_{kind}"
        n = 1
        while name in self.broker.tools.maps[0]:  # another of its requests is open
            n += 1
            name = f"{base}_{n}"
        return name

    def _prompt_id(self, arguments: dict[str, Any]) -> str:
        """The prompt's id: the same request asked in the same order gets the same id in every run.

        (A cassette keeps the person's answers by prompt id, so a replay answers the same prompts.)
        """
        digest = hashlib.sha256(json.dumps(arguments, sort_keys=True, default=str).encode()).hexdigest()[:12]
        count = 1
        # asked before in this session, or being asked at once (two requests alike from one server)
        while (
            f"mcp_{digest}_{count}" in self.broker.prompts or f"mcp_{digest}_{count}" in self._prompts.asking
        ):
            count += 1
        return f"mcp_{digest}_{count}"

    @staticmethod
    def _refusal(result: ToolResult) -> dict[str, Any]:
        """Skip is the person's decline; a timeout, Stop, failure or no front end is a cancel."""
        return {"action": "decline" if is_skip(result) else "cancel"}

    async def _ask(self, tool: Tool, arguments: dict[str, Any]) -> ToolResult:
        """Open the prompt and wait for its answer (the tool is forgotten once it is settled)."""
        return await self._prompts.ask(tool, arguments, self._prompt_id(arguments))

    async def consent(self, server: str, kind: str, question: str, url: str, said: str = "") -> ToolResult:
        """A consent card for opening `url` (a checked `web_page`): opened on the click only."""
        arguments = {
            "message": question,
            "consent": True,
            "url": url,
            "host": host_shown(url),
            "server": server,
            "server_message": said,
        }
        return await self._ask(url_tool(self._name(server, kind), url), arguments)

    async def confirm(self, server: str, kind: str, description: str, arguments: dict[str, Any]) -> bool:
        """A yes/no card (the confirm renderer; the server's texts shown as plain lines beside it)."""
        tool = Tool(
            _schema_only,
            name=self._name(server, kind),
            description=description,
            executor="frontend",
            category="mcp",
            input_schema={"type": "object", "properties": {"server": {"type": "string"}}},
            output_schema={"type": "string", "enum": ["yes", "no"]},
            display={"prompt": "confirm"},
        )
        result = await self._ask(tool, arguments)
        return not result.is_error and result.content == "yes"
