"""A request whose client leaves while the app has not noticed yet: the window a quick client's next request can hit.

A client that aborts a streamed run and sends its next message at once (the official AG-UI
client's `abortRun`) closes its connection; the server marks it closed, but the run's stream learns
of it only when its task runs next. The next request may be answered in between. `LeavingClient`
holds that window open: the app is called in this loop (no socket), and after `leave()` its
`receive` answers "http.disconnect" to whoever asks anew (as uvicorn does once the connection is
lost) while the stream's own listener, waiting already, is never woken.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

from tests.support.http_helpers import TOKEN
from tests.support.readiness import CEILING


class LeavingClient:
    """One POST of `body` to `path` on `app`, its SSE data lines read as they come, left at will."""

    def __init__(self, app: Any, path: str, body: dict[str, Any]) -> None:
        self._app = app
        self._path = path
        self._body = json.dumps(body).encode()
        self._sent_body = False
        self._gone = False
        self._told = asyncio.Event()  # (set only by `leave(noticed=True)`: the listener learns of it)
        self._chunks: asyncio.Queue[bytes | None] = asyncio.Queue()
        self.status: int | None = None
        self._task: asyncio.Task[None] | None = None

    async def _receive(self) -> dict[str, Any]:
        if not self._sent_body:
            self._sent_body = True
            return {"type": "http.request", "body": self._body, "more_body": False}
        if self._gone:
            return {"type": "http.disconnect"}
        await self._told.wait()
        return {"type": "http.disconnect"}

    async def _send(self, message: dict[str, Any]) -> None:
        if message["type"] == "http.response.start":
            self.status = message["status"]
        elif message["type"] == "http.response.body":
            if self._gone:
                return  # (uvicorn drops what is sent to a connection that is gone)
            self._chunks.put_nowait(message.get("body", b""))
            if not message.get("more_body", False):
                self._chunks.put_nowait(None)

    def start(self) -> None:
        path = self._path  # (the scope names it twice)
        scope = {
            "type": "http",
            "asgi": {"version": "3.0", "spec_version": "2.3"},
            "http_version": "1.1",
            "method": "POST",
            "scheme": "http",
            "path": path,
            "raw_path": path.encode(),
            "query_string": b"",
            "root_path": "",
            "headers": [
                (b"host", b"testserver"),
                (b"authorization", f"Bearer {TOKEN}".encode()),
                (b"content-type", b"application/json"),
                (b"content-length", str(len(self._body)).encode()),
            ],
            "client": ("127.0.0.1", 50000),
            "server": ("testserver", 80),
        }
        self._task = asyncio.get_running_loop().create_task(self._app(scope, self._receive, self._send))

    async def messages(self) -> AsyncIterator[tuple[str, str]]:
        """The stream's SSE messages, (event, data), as they arrive until it ends (comments skipped)."""
        pending = ""
        while True:
            chunk = await asyncio.wait_for(self._chunks.get(), CEILING)
            if chunk is None:
                return
            pending += chunk.decode().replace("\r\n", "\n")
            *blocks, pending = pending.split("\n\n")
            for block in blocks:
                event, data = "message", []
                for line in block.splitlines():
                    if line.startswith("event:"):
                        event = line[6:].strip()
                    elif line.startswith("data:"):
                        data.append(line[5:].removeprefix(" "))
                if data:
                    yield event, "\n".join(data)

    async def events(self) -> AsyncIterator[dict[str, Any]]:
        """An AG-UI stream's events as they arrive, until it ends."""
        async for _, data in self.messages():
            yield json.loads(data)

    def leave(self, *, noticed: bool = False) -> None:
        """The client hangs up; the app's stream is not told (it finds out only by asking anew),
        unless `noticed`: then the stream's listener wakes as uvicorn wakes it."""
        self._gone = True
        if noticed:
            self._told.set()

    async def ended(self) -> None:
        """Wait until the app has finished answering (its errors raised here)."""
        assert self._task is not None
        await asyncio.wait_for(asyncio.shield(self._task), CEILING)
