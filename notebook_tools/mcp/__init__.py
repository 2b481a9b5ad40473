"""MCP: servers whose tools an agent offers, and everything that crosses the border with them.

An `MCPServer` (stdio or streamable HTTP) is started on first use; its tools become one plugin of
the agent, kept in step with what the server lists (`notifications/tools/list_changed`). What a
server sends is untrusted and read leniently: a reply the SDK cannot parse, a bad result or image,
a tool whose schema MCP does not allow is told in words, never as a dump, and costs that item,
not the server. A server that asks for OAuth sign-in keeps its tokens in memory (`MemoryTokens`)
or in the person's file (`FileTokens`); 2026-07-28 servers ask their questions in rounds; apps
(`ui://` resources) are read and framed here and shown by the front ends.

A server's questions become ordinary prompts of a chat's broker, so every front end answers them:
`MCPElicitation` (a form from the server's schema, or a URL consent card), `MCPSampling` (a
request for the agent's model, approved by the person, checked as strictly as the agent's own),
`MCPSignIn` (an OAuth sign-in page, opened on the person's click) and `MCPAppHost` (an app's
requests: its server's tools, messages, links, each through the person's consent).
"""

from ._app_host import MCPAppHost
from ._elicitation import MCPElicitation
from ._sampling import MCPSampling
from ._server import MCPServer
from ._sign_in import MCPSignIn
from ._tokens import FileTokens, MemoryTokens

__all__ = [
    "FileTokens",
    "MCPAppHost",
    "MCPElicitation",
    "MCPSampling",
    "MCPServer",
    "MCPSignIn",
    "MemoryTokens",
]
