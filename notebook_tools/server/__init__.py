"""Serve an agent over HTTP: the frontend-tools contract, the ack endpoint and AG-UI.

An optional part (`pip install "notebook_tools[server]"`); the core never imports it.

    from notebook_tools.server import create_app
    app = create_app(build_agent, store=nt.SQLiteStore("sessions.sqlite"))   # any ASGI server

or from the command line: `python -m notebook_tools serve my_agents.py:build --workers 4
--store sqlite:sessions.sqlite`. A factory of `nt.ClaudeCode` (or of an ACP agent) is served too,
one agent per thread in one worker, its permission cards and questions answered by
`POST /api/tools/ack` while its turn runs (see `_external`). The bearer token clients send is read
from the environment variable named by `TOKEN_ENV` (`NOTEBOOK_TOOLS_SERVER_TOKEN`) unless given.
"""

from ._app import TOKEN_ENV, create_app
from ._http import Limits
from ._serve import serve, store_from_url

__all__ = ["TOKEN_ENV", "Limits", "create_app", "serve", "store_from_url"]
