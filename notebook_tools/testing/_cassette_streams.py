"""The response bodies of a cassette: one teed to the file as it streams, one replayed as it dropped."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Any

import httpx2

__all__ = ["Dropped", "Tee"]


class Tee(httpx2.AsyncByteStream):
    """A response body passed on as it streams, and handed whole to `done` when it ends.

    A body that ends early is handed on too: the connection dropped (with the error), or the
    reader stopped (a Stop, enough read), so a replay streams what the agent saw, and how it ended.
    """

    def __init__(
        self,
        inner: Any,
        done: Callable[[bytes, Exception | None], None],
        transport: httpx2.AsyncHTTPTransport,
    ) -> None:
        self._inner, self._done, self._transport = inner, done, transport
        self._chunks: list[bytes] = []
        self._over = False  # done was called

    async def __aiter__(self) -> AsyncIterator[bytes]:
        try:
            async for chunk in self._inner:
                self._chunks.append(chunk)
                yield chunk
        except Exception as exc:  # not GeneratorExit or a cancellation: a reader stopping early is aclose's
            self._over = True
            self._done(b"".join(self._chunks), exc)
            raise
        self._over = True
        self._done(b"".join(self._chunks), None)

    async def aclose(self) -> None:
        try:
            if not self._over and self._chunks:  # the reader stopped early: keep the events it read
                self._over = True
                self._done(b"".join(self._chunks), None)
            await self._inner.aclose()
        finally:
            await self._transport.aclose()  # one connection per recorded request: nothing left open


class Dropped(httpx2.AsyncByteStream):
    """A recorded stream whose connection dropped: its events, then the error the SDK saw."""

    def __init__(self, body: bytes, dropped: str) -> None:
        self._body, (self._kind, _, self._message) = body, dropped.partition(": ")

    async def __aiter__(self) -> AsyncIterator[bytes]:
        yield self._body
        kind = getattr(httpx2, self._kind, None)
        if not (isinstance(kind, type) and issubclass(kind, httpx2.TransportError)):
            kind = httpx2.RemoteProtocolError
        raise kind(self._message)
