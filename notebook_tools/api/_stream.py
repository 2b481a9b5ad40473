"""One Messages API request, streamed, complete or not at all.

The SDK retries HTTP 429/500/529 before a stream starts; a stream that drops or
ends without `message_stop` is ours to request again. A response counts only
when `message_stop` arrived: a stream that ends cleanly without it may have cut
a tool call's arguments short (`{"n_rows": 1` of `123456`), so it is never used.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

import anthropic
import httpx2

from .._exceptions import IncompleteResponseError

__all__ = ["stream_message"]

# Errors raised while a response streams (the SDK retries only before the stream starts).
_STREAM_ERRORS = (httpx2.TransportError, anthropic.APIConnectionError, IncompleteResponseError)


async def stream_message(
    client: anthropic.AsyncAnthropic,
    params: dict[str, Any],
    *,
    on_text: Callable[[str], Awaitable[None]],
    on_retry: Callable[[str], Awaitable[None]],
    stopped: Callable[[], bool],
    retries: int,
    delay: float,
) -> anthropic.types.Message:
    """Stream one response; re-request it (up to `retries` times) when it is cut off mid-stream.

    `stopped` is checked at every event: a fast stream may never yield to a task's cancel.
    """
    for attempt in range(retries + 1):
        started = False
        try:
            async with client.messages.stream(**params) as stream:
                started = True
                complete = False
                async for event in stream:
                    if stopped():
                        raise asyncio.CancelledError("interrupted")
                    if event.type == "text":
                        await on_text(event.text)
                    elif event.type == "message_stop":
                        complete = True
                if not complete:
                    raise IncompleteResponseError("the stream ended without message_stop")
                return await stream.get_final_message()
        except _STREAM_ERRORS as exc:
            if not started:
                raise  # the SDK has already retried what fails before a stream starts
            if attempt == retries:
                if isinstance(exc, IncompleteResponseError):
                    raise
                raise IncompleteResponseError(f"the response was cut off {retries + 1} times: {exc}") from exc
            await on_retry(f"the response was cut off ({exc}); requesting it again")
            await asyncio.sleep(delay * 2**attempt)
    raise AssertionError("unreachable: the loop returns or raises")
