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
from ._accumulate import Accumulator, without_nulls

__all__ = ["INVALID_INPUTS", "StreamHandlers", "stream_message"]

INVALID_INPUTS = "_invalid_inputs"
"""Key of the returned message (never stored) mapping calls whose arguments were not a JSON object to what
arrived."""

# Errors raised while a response streams (the SDK retries only before the stream starts).
_STREAM_ERRORS = (httpx2.TransportError, anthropic.APIConnectionError, IncompleteResponseError)
_REQUIRED = ("model", "max_tokens", "messages")


class StreamHandlers:
    """What to do with a response as it streams: text and thinking pieces, blocks as they complete."""

    def __init__(
        self,
        *,
        on_text: Callable[[int, str], Awaitable[None]],
        on_thinking: Callable[[int, str], Awaitable[None]],
        on_block: Callable[[int, dict[str, Any]], Awaitable[None]],
        on_retry: Callable[[str], Awaitable[None]],
        stopped: Callable[[], bool],
        on_input: Callable[[int, dict[str, Any], str], Awaitable[None]] | None = None,
    ) -> None:
        self.on_text = on_text
        self.on_thinking = on_thinking
        self.on_block = on_block
        self.on_retry = on_retry
        self.stopped = stopped
        self.on_input = on_input
        """A `tool_use` block's arguments as they stream: (index, the block so far, the JSON so far)."""


def _dump(event: Any) -> dict[str, Any]:
    if isinstance(event, dict):
        return event
    # Built from the JSON the API sent: the set fields are exactly its keys, new ones included.
    data: dict[str, Any] = event.model_dump(mode="json", exclude_unset=True, warnings=False)
    return data


async def stream_message(
    client: anthropic.AsyncAnthropic,
    params: dict[str, Any],
    handlers: StreamHandlers,
    *,
    betas: list[str] | None = None,
    retries: int,
    delay: float,
) -> dict[str, Any]:
    """Stream one response; re-request it (up to `retries` times) when it is cut off mid-stream.

    Returns the message as the API sent it (a dict; nulls dropped). `handlers.stopped` is checked
    at every event: a fast stream may never yield to a task's cancel.
    """
    required = {k: params[k] for k in _REQUIRED}
    extra = {k: v for k, v in params.items() if k not in _REQUIRED}
    headers = {"anthropic-beta": ",".join(betas)} if betas else None
    for attempt in range(retries + 1):
        started = False
        try:
            stream = await client.messages.create(
                **required, stream=True, extra_body=extra or None, extra_headers=headers
            )
            started = True
            accumulator = Accumulator()
            async with stream:
                try:
                    async for raw in stream:
                        if handlers.stopped():
                            raise asyncio.CancelledError("interrupted")
                        event = _dump(raw)
                        finished = accumulator.feed(event)
                        await _announce(event, finished, handlers, accumulator)
                except anthropic.APIStatusError as exc:
                    # An `error` event mid-stream (overloaded_error, ...): the SDK raises it; it is a cut-off.
                    raise IncompleteResponseError(f"the API sent an error mid-stream: {exc}") from exc
            message = accumulator.result()
            message[INVALID_INPUTS] = dict(accumulator.invalid_inputs)
            return message
        except _STREAM_ERRORS as exc:
            if not started and not isinstance(exc, IncompleteResponseError):
                raise  # the SDK has already retried what fails before a stream starts
            if attempt == retries:
                if isinstance(exc, IncompleteResponseError):
                    raise
                raise IncompleteResponseError(f"the response was cut off {retries + 1} times: {exc}") from exc
            await handlers.on_retry(f"the response was cut off ({exc}); requesting it again")
            await asyncio.sleep(delay * 2**attempt)
    raise AssertionError("unreachable: the loop returns or raises")


async def _announce(
    event: dict[str, Any], finished: dict[str, Any] | None, handlers: StreamHandlers, accumulator: Accumulator
) -> None:
    kind = event.get("type")
    if kind == "message_start":
        # Blocks may arrive whole in message_start (programmatic tool calling's answers): shown as they come.
        for index, block in enumerate((event.get("message") or {}).get("content") or []):
            if isinstance(block, dict):
                if block.get("type") == "text" and block.get("text"):
                    await handlers.on_text(index, str(block["text"]))
                elif block.get("type") == "thinking" and block.get("thinking"):
                    await handlers.on_thinking(index, str(block["thinking"]))
                await handlers.on_block(index, without_nulls(block))
    elif kind == "content_block_delta":
        delta = event.get("delta") or {}
        if delta.get("type") == "text_delta" and delta.get("text"):
            await handlers.on_text(int(event["index"]), str(delta["text"]))
        elif delta.get("type") == "thinking_delta" and delta.get("thinking"):
            await handlers.on_thinking(int(event["index"]), str(delta["thinking"]))
        elif delta.get("type") == "input_json_delta" and handlers.on_input is not None:
            index = int(event["index"])
            block, so_far = accumulator.blocks.get(index), accumulator.json_so_far(index)
            if block is not None and block.get("type") == "tool_use":
                await handlers.on_input(index, block, so_far)
    elif finished is not None:
        block = without_nulls(finished)
        await handlers.on_block(int(event["index"]), block)
