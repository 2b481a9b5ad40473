"""A scripted Claude: the real `anthropic.AsyncAnthropic` served from a script of turns.

Tests, notebooks without an API key, demos and benchmarks all use it. The SDK
runs unchanged; only its HTTP transport (an `httpx2.MockTransport`, the client
library the SDK 2.x is built on) is replaced. Each request takes the next step of
the script and gets real Messages API JSON, or real SSE bytes when it streams.
Steps can also be faults (HTTP errors, a connection dropped mid-stream, a stream
that just stops) or a function of the request body, so a demo can answer what
the person said. `converse` is such a function that holds a whole conversation: `model_client`
(the no-key path of the example notebooks) hands over to it once the notebook's script is used up.

The scripted API is as strict as the real one: a request the Messages API would
refuse (roles not alternating, a tool_use left unanswered, an empty text block,
bad image data, ...; see `notebook_tools.api`) gets the same HTTP 400
`invalid_request_error`, is recorded in `script.refused`, and uses no step.

Example::

    from notebook_tools import testing

    script = testing.ScriptedTransport(
        testing.turn("Let me ask.", testing.tool_use("user_confirm", {"message": "Go?"})),
        testing.reply("Done."),
    )
    agent = nt.Agent(client=script.client(), frontend_tools=[nt.user_confirm])
    ...
    script.requests[-1]["messages"]  # what the model was sent

`SCRIPTED_NOTICE` is the line a chat shows while the scripted model stands in for Claude;
`CASSETTE_ENV` names the environment variable that picks a cassette's mode (record, replay, auto).
"""

from ..prompts import FakeClock
from ._cassette import CASSETTE_ENV, Cassette, cassette
from ._conversation import converse
from ._step_blocks import (
    cited,
    code_execution,
    compaction,
    container_upload,
    mcp_call,
    redacted_thinking,
    server_tool_use,
    signature_of,
    thinking,
    web_fetch,
    web_search,
)
from ._steps import (
    DropStream,
    HTTPFault,
    Refused,
    Step,
    Streamed,
    TruncatedStream,
    Turn,
    answers_in,
    reply,
    tool_use,
    turn,
)
from ._transport import SCRIPTED_NOTICE, ScriptedTransport, model_client

__all__ = [
    "CASSETTE_ENV",
    "SCRIPTED_NOTICE",
    "Cassette",
    "DropStream",
    "FakeClock",
    "HTTPFault",
    "Refused",
    "ScriptedTransport",
    "Step",
    "Streamed",
    "TruncatedStream",
    "Turn",
    "answers_in",
    "cassette",
    "cited",
    "code_execution",
    "compaction",
    "container_upload",
    "converse",
    "mcp_call",
    "model_client",
    "redacted_thinking",
    "reply",
    "server_tool_use",
    "signature_of",
    "thinking",
    "tool_use",
    "turn",
    "web_fetch",
    "web_search",
]
