"""An MCP server (stdio, the `mcp` SDK's own `MCPServer`) that asks through multi-round-trip requests.

On 2026-07-28 its questions come back as `InputRequiredResult`s (SEP-2322): `ask_name` elicits through a
resolver (`Elicit`), `summarize` samples (`Sample`), `remember` hands its own `request_state` (the
process id that minted it, and a payload of the size asked) and says on the retry what it got back,
`forever` never stops asking, `odd_request` asks with a method no client knows.
Run as `python tests/mcp/rounds_server.py`. The request-state key is fixed so a server started again
(after a kernel restart) can open the state an earlier process sealed.
"""

import json
import logging
import os
from typing import Annotated

from mcp.server.elicitation import AcceptedElicitation, ElicitationResult
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.resolve import Elicit, Resolve, Sample
from mcp.server.request_state import RequestStateSecurity
from mcp.types import (
    CallToolResult,
    CreateMessageResult,
    ElicitRequest,
    ElicitRequestFormParams,
    InputRequiredResult,
    SamplingMessage,
    TextContent,
)
from pydantic import BaseModel

logging.disable(logging.WARNING)
server = MCPServer("rounds", request_state_security=RequestStateSecurity(keys=[b"k" * 32]))


class Name(BaseModel):
    name: str


def ask(ctx: Context) -> Elicit[Name]:
    return Elicit("What is your name?", Name)


def sample(topic: str) -> Sample:
    said = TextContent(type="text", text=f"Summarize {topic}")
    return Sample([SamplingMessage(role="user", content=said)], max_tokens=50)


@server.tool(name="ask_name")
def ask_name(answer: Annotated[ElicitationResult[Name], Resolve(ask)]) -> str:
    """Asks the person's name (an elicitation through a resolver)."""
    if isinstance(answer, AcceptedElicitation):
        return f"hello {answer.data.name}"
    return f"no name: {answer.action}"


@server.tool(name="summarize")
def summarize(topic: str, reply: Annotated[CreateMessageResult, Resolve(sample)]) -> str:
    """Asks the client's model for a summary (sampling through a resolver)."""
    content = reply.content
    return f"summary of {topic}: {content.text if isinstance(content, TextContent) else content}"


def _question(message: str) -> ElicitRequest:
    schema = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}
    return ElicitRequest(params=ElicitRequestFormParams(message=message, requested_schema=schema))


@server.tool(name="remember")
def remember(ctx: Context, size: int = 10) -> CallToolResult | InputRequiredResult:
    """Asks a question and keeps its own state (the minting pid, `size` characters) for the retry."""
    if ctx.request_state is None:
        state = json.dumps({"pid": os.getpid(), "payload": "é✓" * (size // 2)}, ensure_ascii=False)
        return InputRequiredResult(input_requests={"who": _question("Who is there?")}, request_state=state)
    got = json.loads(ctx.request_state)
    answer = (ctx.input_responses or {}).get("who")
    said = answer.content if answer is not None and hasattr(answer, "content") else None
    text = json.dumps(
        {"minted_by": got["pid"], "answered_in": os.getpid(), "payload": len(got["payload"]), "said": said}
    )
    return CallToolResult(content=[TextContent(type="text", text=text)])


@server.tool(name="forever")
def forever(ctx: Context) -> InputRequiredResult:
    """Never stops asking (state-only rounds)."""
    rounds = int(ctx.request_state or "0") + 1
    return InputRequiredResult(request_state=str(rounds))


@server.tool(name="odd_request")
def odd_request() -> InputRequiredResult:
    """Asks with a method no client knows."""
    odd = {"method": "mystery/ask", "params": {"x": 1}}
    return InputRequiredResult.model_construct(input_requests={"odd": odd}, request_state="s")


if __name__ == "__main__":
    server.run()
