"""From a cell into the chat and back: `%load_ext notebook_tools`, the `%%claude` magic, `%claude_cells`.

`%%claude` sends the cell's text as a message to the notebook's chat and shows the chat under the
cell; the turn runs in the background, so the cell returns at once and the chat keeps answering.
The chat is made on first use: an `Agent` with `KernelTools` on this notebook's namespace, talking
to Claude with the key in `ANTHROPIC_API_KEY` (`%%claude --chat my_chat` uses an `nt.Chat` or
`nt.Agent` of your own instead, and it stays the notebook's chat from then on).

`%claude_cells` puts the code Claude ran in the last turn (as it ran: your edits included) into the
notebook: as a new cell below, where the front end supports IPython's `set_next_input` payload
(JupyterLab, Notebook 7), and always as text in the cell's output too. Nothing is inserted without
the command.
"""

from __future__ import annotations

import argparse
import os
import shlex
from typing import Any

from IPython.core.error import UsageError

__all__ = ["ClaudeMagics"]


def _kernel_tools(chat: Any) -> Any:
    """The chat's agent's `KernelTools`, or None."""
    from ..kernel_tools import KernelTools

    agent = chat.driver.agent if getattr(chat, "driver", None) is not None else None
    plugins = agent.toolset.plugins.values() if agent is not None else []
    return next((p for p in plugins if isinstance(p, KernelTools)), None)


class ClaudeMagics:
    """The magics of one IPython shell, and the notebook's chat."""

    def __init__(self, shell: Any) -> None:
        self.shell = shell
        self.chat: Any = None
        self._last_turn: tuple[Any, int] | None = None  # (agent, its message count when the turn began)

    @classmethod
    def register(cls, shell: Any) -> ClaudeMagics:
        """`%load_ext notebook_tools`: register %%claude and %claude_cells in `shell` (once)."""
        magics = shell.user_ns.get("_nt_claude_magics")
        if isinstance(magics, cls):
            return magics
        magics = cls(shell)
        shell.register_magic_function(magics.claude, magic_kind="cell", magic_name="claude")
        shell.register_magic_function(magics.claude_cells, magic_kind="line", magic_name="claude_cells")
        shell.user_ns["_nt_claude_magics"] = magics
        return magics

    def _chat_from(self, name: str | None) -> Any:
        from . import Chat

        if name:
            found = self.shell.user_ns.get(name)
            if isinstance(found, Chat):
                self.chat = found
            else:
                from ..agent import Agent

                if not isinstance(found, Agent):
                    raise UsageError(f"%%claude --chat {name}: {name} is not an nt.Chat or an nt.Agent")
                self.chat = Chat(found)
        elif self.chat is None:
            if not os.environ.get("ANTHROPIC_API_KEY"):
                raise UsageError(
                    "%%claude talks to Claude with the key in ANTHROPIC_API_KEY, which is not set; or give "
                    "it a chat of your own: %%claude --chat my_chat"
                )
            from ..agent import Agent
            from ..kernel_tools import KernelTools

            self.chat = Chat(Agent(plugins=[KernelTools(self.shell.user_ns)]))
        return self.chat

    def claude(self, line: str, cell: str) -> None:
        """%%claude [--chat NAME]: send the cell's text to the notebook's chat (shown under the cell)."""
        parser = argparse.ArgumentParser(prog="%%claude", add_help=False, exit_on_error=False)
        parser.add_argument("--chat", default=None)
        try:
            options = parser.parse_args(shlex.split(line))
        except (argparse.ArgumentError, ValueError) as exc:
            raise UsageError(f"%%claude takes [--chat NAME]: {exc}") from None
        text = cell.strip()
        if not text:
            raise UsageError("%%claude needs a message: write it in the cell below the magic")
        chat = self._chat_from(options.chat)
        from IPython.display import display

        display(chat)  # type: ignore[no-untyped-call]
        agent = chat.require_driver().agent
        self._last_turn = (agent, len(agent.state.messages))
        chat.send_nowait(text)

    def _last_calls(self) -> list[str]:
        """The tool calls of the last %%claude turn (so far, when it is still running)."""
        if self._last_turn is None:
            return []
        agent, before = self._last_turn
        calls = []
        for message in agent.state.messages[before:]:
            content = message.get("content")
            if message.get("role") == "assistant" and isinstance(content, list):
                calls += [b["id"] for b in content if isinstance(b, dict) and b.get("type") == "tool_use"]
        return calls

    def claude_cells(self, line: str) -> None:
        """%claude_cells: the code Claude ran in the last %%claude turn, as a new cell below (and as text)."""
        kernel = _kernel_tools(self.chat) if self.chat is not None else None
        if kernel is None:
            print("No code to put into the notebook: run a %%claude turn with the kernel tools first.")
            return
        code = kernel.code_of(self._last_calls())
        if not code:
            print("Claude ran no code in the last %%claude turn.")
            return
        self.shell.set_next_input(code, replace=False)
        print("The code Claude ran (also put into a new cell below, where the front end supports it):\n")
        print(code)
