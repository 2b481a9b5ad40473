"""A local stand-in of the Messages API: a real HTTP server on 127.0.0.1 serving a script's JSON and SSE.

The SDK is pointed at it with `base_url`, so a recording goes through real sockets, real
headers and a real streamed body. It refuses a request without a key (`x-api-key` or a bearer token), as the API does.
"""

from __future__ import annotations

import httpx2
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from notebook_tools import testing as t


def standin_app(script: t.ScriptedTransport, priced: bool = True) -> Starlette:
    """An ASGI app answering `POST /v1/messages` from `script`; `app.state.headers` keeps what came in.

    It stands for the real API (the Claude Code CLI, recordings of the cassette machinery), so by default
    its usage is the API's own, with no `"scripted"` mark. `priced=False` keeps the mark: the example
    notebooks' cassettes are recorded that way, so their replays say a scripted model answered and cost
    nothing, not what Claude would have charged for replies it never wrote.
    """
    script.priced = priced
    seen: list[dict[str, str]] = []

    async def messages(request: Request) -> Response:
        seen.append(dict(request.headers))
        if not (
            request.headers.get("x-api-key") or request.headers.get("authorization", "").startswith("Bearer ")
        ):
            error = {"type": "authentication_error", "message": "an API key is required"}
            return JSONResponse({"type": "error", "error": error}, status_code=401)
        body = await request.body()
        betas = (
            {"anthropic-beta": request.headers["anthropic-beta"]}
            if "anthropic-beta" in request.headers
            else {}
        )
        served = await script.handle(httpx2.Request("POST", str(request.url), content=body, headers=betas))
        content = await served.aread()
        kind = served.headers.get("content-type", "application/json")
        return Response(content, status_code=served.status_code, media_type=kind.split(";")[0])

    app = Starlette(routes=[Route("/v1/messages", messages, methods=["POST"])])
    app.state.headers = seen
    return app
