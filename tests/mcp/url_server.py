"""A small MCP server (stdio, on the `mcp` SDK's own server) that asks for URL elicitations and says
when they are done: `notifications/elicitation/complete` and the -32042 error, both of MCP 2025-11-25
(2026-07-28 has neither), so it serves only the handshake era: the client's `server/discover` probe
is refused and it speaks 2025-11-25.

Run as `python tests/mcp/url_server.py`.
"""

import asyncio
import logging

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.runner import serve_loop
from mcp.server.stdio import stdio_server
from mcp.shared.exceptions import UrlElicitationRequiredError
from mcp.types import ElicitRequestURLParams

logging.disable(logging.WARNING)
server = MCPServer("pages")
retried: dict[str, asyncio.Task] = {}


@server.tool(name="sign_in")
async def sign_in(ctx: Context) -> str:
    """Asks the person to open a page; once accepted, says it is done (and sends stray completions)."""
    answer = await ctx.elicit_url("Sign in to the pages service", "https://pages.example/sign-in", "e1")
    if answer.action == "accept":
        await ctx.session.send_elicit_complete("nobody-asked-this")  # unknown: ignored
        await ctx.session.send_elicit_complete("e1")
        await ctx.session.send_elicit_complete("e1")  # repeated: ignored
    return f"sign-in {answer.action}"


async def _announce(ctx: Context, elicitation_id: str) -> None:
    """The page's side: says the elicitation is done, again and again, until the call is retried."""
    for _ in range(300):
        await asyncio.sleep(0.1)
        await ctx.session.send_elicit_complete(elicitation_id)


@server.tool(name="needs_page")
async def needs_page(key: str, ctx: Context) -> str:
    """First call: -32042, a page to open first (its completion announced); the retry runs."""
    if key in retried:
        retried.pop(key).cancel()
        return f"ran {key} after the page"
    retried[key] = asyncio.ensure_future(_announce(ctx, f"pre-{key}"))
    page = ElicitRequestURLParams(
        message="Authorize first", url=f"https://pages.example/authorize/{key}", elicitation_id=f"pre-{key}"
    )
    raise UrlElicitationRequiredError([page], "This call needs an authorization page first.")


@server.tool(name="needs_bad_page")
async def needs_bad_page() -> str:
    """Always -32042 with a page that is no web page (refused before any card)."""
    page = ElicitRequestURLParams(message="Open this", url="javascript:alert(1)", elicitation_id="bad")
    raise UrlElicitationRequiredError([page])


async def main() -> None:
    """Serve stdio in the handshake era only (`Server.run` would also serve 2026-07-28)."""
    low = server._lowlevel_server
    async with stdio_server() as (read, write), low.lifespan(low) as state:
        await serve_loop(
            low, read, write, lifespan_state=state, init_options=low.create_initialization_options()
        )


if __name__ == "__main__":
    asyncio.run(main())
