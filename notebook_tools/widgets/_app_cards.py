"""Which tool cards show an MCP app: a tool whose server ships an interface gets `app` on its item.

Live, a card gets it when its call starts. A transcript rebuilt from a saved history (after a kernel
restart) knows only tool names, and an MCP server's tools are listed on first use: `attach_later`
lists them in the background and then gives the cards of app tools their `app`, and the result
the session kept for each (`AgentState.app_results`) as the card's `shown`, as the live card had it.
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING

from ..mcp._plugins import app_shown, result_blocks
from ._shown import shown_form
from ._transcript import Transcript
from ._wire_kernel import AppRef, Item

if TYPE_CHECKING:
    from ..agent._agent import Agent

__all__ = ["app_ref", "attach_later"]

log = logging.getLogger("notebook_tools")
_TASKS: set[asyncio.Task[None]] = set()


def app_ref(agent: Agent | None, name: str) -> AppRef | None:
    """The app a call of tool `name` shows (None: the tool has none, or is not listed yet)."""
    tool = agent.toolset.tools.get(name) if agent is not None else None
    display = tool.display if tool is not None else {}
    uri, server, remote = display.get("mcp_app"), display.get("mcp_server"), display.get("mcp_tool")
    if isinstance(uri, str) and isinstance(server, str) and isinstance(remote, str):
        return {"server": server, "uri": uri, "tool": remote}
    return None


def attach_later(agent: Agent, transcript: Transcript) -> None:
    """List the agent's MCP servers in the background, then mark the rebuilt cards of app tools."""
    mcp = agent.loop.mcp
    cards = [i for i in transcript.items.values() if i.get("kind") == "tool" and "app" not in i]
    if mcp is None or not cards:
        return

    async def attach() -> None:
        try:
            await mcp.ready()
        except Exception:  # a server that cannot start shows no app: its card keeps its result text
            log.info("MCP servers could not be listed for the rebuilt transcript", exc_info=True)
            return
        for item in cards:
            ref = app_ref(agent, str(item.get("name", "")))
            if ref is None:
                continue
            update: Item = {"id": item["id"], "app": ref}
            kept = agent.state.app_results.get(item["id"])
            if kept is not None and not item.get("is_error"):
                try:
                    update["shown"] = shown_form(app_shown(kept, result_blocks(kept, None)))
                except Exception:  # a session edited by hand: the app gets the result's text
                    log.info("a kept MCP app result could not be shown", exc_info=True)
            transcript.upsert(update)

    try:
        task = asyncio.get_running_loop().create_task(attach())
    except RuntimeError:  # no running loop (a script): the cards keep their text
        return
    _TASKS.add(task)
    task.add_done_callback(_TASKS.discard)
