"""Prompts: what a person is asked, and the one object a front end holds to drive an agent.

A front end holds a `FrontendSession`: the agent, the `PromptBroker` of its open prompts (answers by
id, checked against their prompt; timeouts; what happens with no front end, `NoFrontendPolicy`)
and the task its turns run in. Files a person sends arrive in a `FileInbox` (`FileRecord` each,
`FileAccessError` for a path outside its root). `PromptUI` asks `confirm`/`text`/`select`/`file`
without an agent. An MCP server's questions become ordinary prompts: `MCPElicitation` (a form or a
URL consent card), `MCPSampling` (approved by the person, sent through the agent's client),
`MCPSignIn` (OAuth sign-in) and `MCPAppHost` (an app's requests). A test moves time on with a
`FakeClock`. The widget, the terminal and the HTTP server's held runs share all of it; none of it
imports Jupyter.
"""

from ._broker import NoFrontendPolicy, PromptBroker
from ._clock import FakeClock
from ._files import FileAccessError, FileInbox, FileRecord
from ._mcp_apps import MCPAppHost
from ._mcp_auth_prompts import MCPSignIn
from ._mcp_prompts import MCPElicitation
from ._mcp_sampling import MCPSampling
from ._session import FrontendSession
from ._ui import PromptUI

__all__ = [
    "FakeClock",
    "FileAccessError",
    "FileInbox",
    "FileRecord",
    "FrontendSession",
    "MCPAppHost",
    "MCPElicitation",
    "MCPSampling",
    "MCPSignIn",
    "NoFrontendPolicy",
    "PromptBroker",
    "PromptUI",
]
