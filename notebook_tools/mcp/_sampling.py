"""MCP sampling as broker prompts: a server asks the model, the person approves, sees the reply.

A server's `sampling/createMessage` is shown to the person first (the server, its messages as
text with images and audio only named, the model that will answer, the token limit); approved, it
goes through the agent's own client (`agent.client.messages.create`) with the agent's model unless
the server's model hints name one of `allowed_models`; the reply is shown in a second prompt and
returns to the server only when the person lets it. A server's `temperature` is not passed on (the
agent's model has its own settings). A denial, a timeout, no front end or a failed request is
refused: the server gets an MCP error (`{"error": why, "code": ...}`), never a made-up reply.

What a server asks to send is checked by the rules the project's own requests meet (`api._rules`)
before the person is asked: an image the API would refuse (bad base64, a type other than JPEG, PNG,
GIF or WebP, data that is not the image it claims, over 5 MB), an empty text, a first message that is
not the user's are refused in words (-32602), so no prompt opens and no request is made.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Protocol

from .._exceptions import MCPServerError
from ..api._rules import request_errors
from ._border import image_problem
from ._elicitation import INVALID_PARAMS, MCPElicitation, error

if TYPE_CHECKING:
    import anthropic

    from ..prompts._broker import PromptBroker


class SamplingAgent(Protocol):
    """What sampling needs of an agent: its client and its model."""

    @property
    def client(self) -> anthropic.AsyncAnthropic: ...

    @property
    def model(self) -> str: ...


__all__ = ["SAMPLING_QUESTION", "USER_REJECTED", "MCPSampling", "messages_text"]

SAMPLING_QUESTION = "An MCP server asks to use the model"
REPLY_QUESTION = "Send the model's reply back to the MCP server?"
USER_REJECTED = -1
"""The code MCP's own examples use for "User rejected sampling request"."""
INTERNAL_ERROR = -32603
MAX_SHOWN = 20_000
_STOPS = {"end_turn": "endTurn", "max_tokens": "maxTokens", "stop_sequence": "stopSequence"}


def _blocks(content: Any) -> list[dict[str, Any]]:
    items = content if isinstance(content, list) else [content]
    return [b for b in items if isinstance(b, dict)]


def _named(block: dict[str, Any]) -> str:
    kind = str(block.get("type", "?"))
    return f"[{kind} {block.get('mimeType', '')}]".replace(" ]", "]")


def messages_text(messages: list[Any], system: str = "") -> str:
    """The request as a person reads it: each message's text, images and audio named, cut at MAX_SHOWN."""
    lines = [f"system: {system}"] if system else []
    for message in messages:
        role = str(message.get("role", "?")) if isinstance(message, dict) else "?"
        content = message.get("content") if isinstance(message, dict) else None
        parts = [str(b.get("text", "")) if b.get("type") == "text" else _named(b) for b in _blocks(content)]
        lines.append(f"{role}: " + " ".join(parts))
    text = "\n".join(lines)
    return (
        text if len(text) <= MAX_SHOWN else f"{text[:MAX_SHOWN]}… [{len(text) - MAX_SHOWN:,} more characters]"
    )


def _api_messages(messages: list[Any]) -> list[dict[str, Any]]:
    """MCP sampling messages as Messages API turns (text and images; anything else refused)."""
    out: list[dict[str, Any]] = []
    for number, message in enumerate(messages, 1):
        if not isinstance(message, dict) or message.get("role") not in ("user", "assistant"):
            raise MCPServerError("each message needs role 'user' or 'assistant'")
        blocks: list[dict[str, Any]] = []
        for block in _blocks(message.get("content")):
            if block.get("type") == "text" and isinstance(block.get("text"), str):
                if not block["text"].strip():
                    raise MCPServerError(f"message {number} holds an empty text, which the model refuses")
                blocks.append({"type": "text", "text": block["text"]})
            elif block.get("type") == "image":
                mime, data = block.get("mimeType"), block.get("data")
                problem = image_problem(mime, data)
                if problem is not None:
                    raise MCPServerError(
                        f"the image in message {number} cannot be sent to the model: {problem}"
                    )
                blocks.append(
                    {"type": "image", "source": {"type": "base64", "media_type": mime, "data": data}}
                )
            else:
                raise MCPServerError(f"content of type {block.get('type')!r} cannot be sent to the model")
        if not blocks:
            raise MCPServerError(f"message {number} has no content")
        if out and out[-1]["role"] == message["role"]:  # the API wants the roles to alternate
            out[-1]["content"].extend(blocks)
        else:
            out.append({"role": message["role"], "content": blocks})
    if not out:
        raise MCPServerError("sampling needs at least one message")
    return out


class MCPSampling:
    """Answers a server's `sampling/createMessage` through the person and the agent's own client.

    Args:
        agent: Whose client and model answer.
        broker: The broker whose front ends show the prompts.
        allowed_models: Models a server's hints may pick instead of the agent's (a hint picks the
            first allowed model whose name contains it, as MCP's hints are substrings).
        max_tokens: The most a server may ask for (its `maxTokens` is honoured up to this).
        timeout: Seconds each prompt waits before the request is refused (None: the broker's policies).
    """

    def __init__(
        self,
        agent: SamplingAgent,
        broker: PromptBroker,
        *,
        allowed_models: Sequence[str] = (),
        max_tokens: int = 8192,
        timeout: float | None = None,
    ) -> None:
        self.agent = agent
        self.allowed_models = list(allowed_models)
        self.max_tokens = max_tokens
        self._asker = MCPElicitation(broker, timeout=timeout)

    def model_for(self, preferences: Any) -> str:
        """The agent's model, or the first allowed one a hint names."""
        hints = preferences.get("hints") if isinstance(preferences, dict) else None
        for hint in hints if isinstance(hints, list) else []:
            name = hint.get("name") if isinstance(hint, dict) else None
            if not isinstance(name, str) or not name:
                continue
            for model in self.allowed_models:
                if name in model:
                    return model
        return self.agent.model

    async def __call__(self, server: str, params: dict[str, Any]) -> dict[str, Any]:
        """The MCP `CreateMessageResult` as JSON, or an error the server gets."""
        messages, system = params.get("messages"), params.get("systemPrompt") or ""
        max_tokens = params.get("maxTokens")
        if not isinstance(messages, list) or not isinstance(system, str):
            return error(INVALID_PARAMS, "sampling needs a list of messages")
        if not isinstance(max_tokens, int) or isinstance(max_tokens, bool) or max_tokens < 1:
            return error(INVALID_PARAMS, "sampling needs a positive maxTokens")
        try:
            request: dict[str, Any] = {"messages": _api_messages(messages)}
        except MCPServerError as exc:
            return error(INVALID_PARAMS, str(exc))
        model = self.model_for(params.get("modelPreferences"))
        request.update(model=model, max_tokens=min(max_tokens, self.max_tokens))
        if system:
            request["system"] = system
        if isinstance(params.get("stopSequences"), list):
            request["stop_sequences"] = [str(s) for s in params["stopSequences"]]
        problems = request_errors(request)  # what the API would refuse is refused before the person is asked
        if problems:
            return error(INVALID_PARAMS, f"the request cannot be sent to the model: {problems[0][:300]}")
        shown = {
            "message": SAMPLING_QUESTION,
            "confirm_label": "Send to the model",
            "deny_label": "Refuse",
            "server": server,
            "model": model,
            "max_tokens": request["max_tokens"],
            "messages": messages_text(messages, system),
        }
        if not await self._confirm(shown):
            return error(USER_REJECTED, "The user refused the sampling request.")
        try:
            response = await self.agent.client.messages.create(**request)
        except Exception as exc:  # the API refused or failed: the server hears why, the turn goes on
            return error(INTERNAL_ERROR, f"the model request failed: {type(exc).__name__}: {exc}")
        reply = "".join(getattr(b, "text", "") for b in response.content if getattr(b, "type", "") == "text")
        check = {
            "message": REPLY_QUESTION,
            "confirm_label": "Send the reply",
            "deny_label": "Withhold it",
            "server": server,
            "model": str(response.model),
            "reply": reply if len(reply) <= MAX_SHOWN else reply[:MAX_SHOWN] + "…",
        }
        if not await self._confirm(check):
            return error(USER_REJECTED, "The user withheld the model's reply.")
        stop = str(response.stop_reason or "")
        return {
            "role": "assistant",
            "content": {"type": "text", "text": reply},
            "model": str(response.model),
            "stopReason": _STOPS.get(stop, stop),
        }

    async def _confirm(self, arguments: dict[str, Any]) -> bool:
        description = "An MCP server asks to use the model: allow it, or refuse."
        return await self._asker.confirm(str(arguments["server"]), "sampling", description, arguments)
