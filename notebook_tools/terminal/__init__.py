"""The terminal front end: `TerminalChat`, and `python -m notebook_tools chat`.

For IPython in a terminal, plain scripts and SSH sessions. Like the notebook's `Chat`, it is one
adapter of the agent's event bus: it renders display events and answers prompts through the same
`FrontendSession` (broker and turn driver), with the same answer shapes, so both front ends produce the same
action events. Nothing in `notebook_tools` imports this package; it loads only when used.

It uses two libraries, imported only here:

- `rich` for output: it renders panels, tables and styled text, and degrades to plain text when
  stdout is not a terminal (and here also under NO_COLOR), so logs and tests read cleanly.
- `prompt_toolkit` for input: line editing and history, key bindings (menus driven by arrows,
  y/n and numbers), multiline text, path completion, and it works over SSH in any VT100
  terminal. Without a terminal (piped stdin) answers are read a line at a time instead.

Example::

    import asyncio
    import notebook_tools as nt
    from notebook_tools.terminal import TerminalChat

    agent = nt.Agent(frontend_tools=[nt.user_confirm, nt.ask_text, nt.select_option, nt.pick_file])
    asyncio.run(TerminalChat(agent).run())

`FRONTEND` is the name the terminal goes by when it answers prompts (the broker's record of who is there).
"""

from ._chat import FRONTEND, TerminalChat
from ._main import build_agent, main

__all__ = ["FRONTEND", "TerminalChat", "build_agent", "main"]
