"""Request options: what a request asks beyond its messages (thinking, tool choice, caching, ...).

    agent = nt.Agent(thinking="adaptive", effort="high", cache_ttl="1h",
                     context=nt.ContextBudget(clear_tool_results_at=60_000, compact_at=150_000))
    await agent.run("...", thinking=False, tool_choice="none")     # for this turn only

Set on the agent (every turn) and per `run`/`send` (that turn: each request of the turn, resumes after a
restart included, sends the same options; the docs want one thinking setting per assistant turn).
What the API would refuse is a `ConfigurationError` before any request (`api/_option_rules`).
"""

from __future__ import annotations

from typing import Any, Literal, TypedDict

from pydantic import BaseModel, ConfigDict, Field, field_validator

from .._exceptions import ConfigurationError
from ._option_rules import option_errors

__all__ = ["OPTION_NAMES", "ContextBudget", "OptionArgs", "RequestOptions"]

_OWNED = frozenset({"model", "max_tokens", "messages", "system", "tools", "stream", "betas"})
"""Body keys the agent itself sets: never passed through `request_extra`."""

CONTEXT_BETA = "context-management-2025-06-27"
COMPACT_BETA = "compact-2026-01-12"


class ContextBudget(BaseModel):
    """Keeps a long session inside the context window with the API's context management.

    Old tool results (and old thinking) are cleared once a request's input passes
    `clear_tool_results_at` tokens; with `compact_at`, the conversation is summarized into a
    `compaction` block once the input passes that many tokens, and the API reads from it on.

    Args:
        clear_tool_results_at: Input tokens that trigger clearing old tool results (None: never).
        keep_tool_uses: Most recent tool calls whose results stay.
        clear_at_least: Tokens each clearing must free at least (the API's `clear_at_least`): a clearing
            changes the cached prefix, so clearing a little at every request rewrites the cache each time.
        clear_thinking: Clear the thinking of earlier turns (kept: the last turn's). Off by default:
            clearing thinking changes the cached prefix, so the next turn reads nothing from the cache.
        compact_at: Input tokens that trigger compaction (None: never; the API's minimum is 50,000).
        compact_instructions: What the summary must keep (added to the API's own instructions).
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    clear_tool_results_at: int | None = Field(default=100_000, ge=1)
    keep_tool_uses: int = Field(default=3, ge=0)
    clear_at_least: int | None = Field(default=None, ge=1)
    clear_thinking: bool = False
    compact_at: int | None = Field(default=None, ge=50_000)
    compact_instructions: str | None = None

    def edits(self, thinking: bool) -> list[dict[str, Any]]:
        """The `context_management.edits` of a request (`thinking`: whether it asks for thinking)."""
        edits: list[dict[str, Any]] = []
        if self.clear_thinking and thinking:
            # The docs: clear_thinking must come first among the edits.
            edits.append({"type": "clear_thinking_20251015", "keep": {"type": "thinking_turns", "value": 1}})
        if self.clear_tool_results_at is not None:
            edits.append(
                {
                    "type": "clear_tool_uses_20250919",
                    "trigger": {"type": "input_tokens", "value": self.clear_tool_results_at},
                    "keep": {"type": "tool_uses", "value": self.keep_tool_uses},
                    **(
                        {"clear_at_least": {"type": "input_tokens", "value": self.clear_at_least}}
                        if self.clear_at_least is not None
                        else {}
                    ),
                }
            )
        if self.compact_at is not None:
            edit: dict[str, Any] = {
                "type": "compact_20260112",
                "trigger": {"type": "input_tokens", "value": self.compact_at},
            }
            if self.compact_instructions:
                edit["instructions"] = self.compact_instructions
            edits.append(edit)
        return edits

    def betas(self) -> list[str]:
        return [CONTEXT_BETA] + ([COMPACT_BETA] if self.compact_at is not None else [])


class RequestOptions(BaseModel):
    """The options of a request; every field None (or empty) means "the API's default".

    Args:
        thinking: "adaptive" (or True): Claude decides how much to think; an int N: thinking with
            a budget of N tokens (at least 1,024, less than `max_tokens`); False or "disabled": none;
            or the API's own dict.
        effort: "low", "medium", "high", "xhigh" or "max" (`output_config.effort`).
        tool_choice: "auto", "any", "none", a tool's name (forces that tool), or the API's dict
            (e.g. `{"type": "auto", "disable_parallel_tool_use": True}`).
        temperature, top_p, top_k: Sampling (model-dependent; newer models take one of
            temperature/top_p and none with thinking).
        stop_sequences: Strings that end the reply (`stop_reason="stop_sequence"`).
        metadata: `{"user_id": ...}`, an opaque id of the person for abuse detection.
        service_tier: "auto" or "standard_only".
        betas: Beta feature names sent in the `anthropic-beta` header.
        cache_ttl: How long the conversation stays cached: "5m" or "1h"; None: no caching at all.
        context: A `ContextBudget` for long sessions (context editing and compaction).
        request_extra: Any other body keys the API accepts (`container`, `inference_geo`, ...).
    """

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)  # True is no temperature

    thinking: dict[str, Any] | None = None
    effort: Literal["low", "medium", "high", "xhigh", "max"] | None = None
    tool_choice: dict[str, Any] | None = None
    temperature: float | None = None
    top_p: float | None = None
    top_k: int | None = None
    stop_sequences: list[str] | None = None
    metadata: dict[str, Any] | None = None
    service_tier: Literal["auto", "standard_only"] | None = None
    betas: list[str] = Field(default_factory=list)
    cache_ttl: Literal["5m", "1h"] | None = "5m"
    context: ContextBudget | None = None
    request_extra: dict[str, Any] = Field(default_factory=dict)

    @field_validator("thinking", mode="before")
    @classmethod
    def _thinking(cls, value: Any) -> Any:
        if value is True or value == "adaptive":
            return {"type": "adaptive"}
        if value is False or value == "disabled":
            return {"type": "disabled"}
        if isinstance(value, int) and not isinstance(value, bool):
            return {"type": "enabled", "budget_tokens": value}
        return value

    @field_validator("tool_choice", mode="before")
    @classmethod
    def _tool_choice(cls, value: Any) -> Any:
        if isinstance(value, str):
            return {"type": value} if value in ("auto", "any", "none") else {"type": "tool", "name": value}
        return value

    @field_validator("request_extra")
    @classmethod
    def _extra(cls, value: dict[str, Any]) -> dict[str, Any]:
        if owned := sorted(value.keys() & _OWNED):
            raise ValueError(f"{', '.join(owned)}: set by the agent, not through request_extra")
        return value

    @classmethod
    def build(cls, **values: Any) -> RequestOptions:
        """Options from keyword arguments; a bad value is a `ConfigurationError` naming it."""
        try:
            return cls.model_validate(values)
        except ValueError as exc:
            raise ConfigurationError(f"request options: {exc}") from exc

    def merged(self, **overrides: Any) -> RequestOptions:
        """These options with `overrides` (the ones given, None included, replace; `request_extra` merges)."""
        if not overrides:
            return self
        data = self.model_dump()
        extra = overrides.pop("request_extra", None)
        data.update(overrides)
        if extra:
            data["request_extra"] = {**self.request_extra, **extra}
        return RequestOptions.build(**data)

    def body(self) -> tuple[dict[str, Any], list[str]]:
        """The body keys these options set (without model, messages, system, tools), and the betas."""
        body: dict[str, Any] = dict(self.request_extra)
        for key in ("thinking", "tool_choice", "temperature", "top_p", "top_k", "stop_sequences"):
            if (value := getattr(self, key)) is not None:
                body[key] = value
        for key in ("metadata", "service_tier"):
            if (value := getattr(self, key)) is not None:
                body[key] = value
        if self.effort is not None:
            config = body.get("output_config", {})
            if not isinstance(config, dict):
                raise ConfigurationError("request_extra's output_config must be an object to add `effort` to")
            body["output_config"] = {**config, "effort": self.effort}
        betas = list(self.betas)
        if self.context is not None:
            thinking = isinstance(self.thinking, dict) and self.thinking.get("type") in (
                "adaptive",
                "enabled",
            )
            if edits := self.context.edits(thinking):
                body["context_management"] = {"edits": edits}
                betas += [b for b in self.context.betas() if b not in betas]
        return body, betas

    def check(self, max_tokens: int, tools: list[dict[str, Any]]) -> None:
        """Raise `ConfigurationError` when the API would refuse these options given max_tokens and tools."""
        body, _ = self.body()
        errors = option_errors({**body, "max_tokens": max_tokens, "tools": tools})
        if errors:
            raise ConfigurationError("the API would refuse these request options: " + "; ".join(errors))


OPTION_NAMES = tuple(n for n in RequestOptions.model_fields)
"""The keyword arguments `Agent(...)`, `run(...)` and `send(...)` take for request options."""


class OptionArgs(TypedDict, total=False):
    """The request options as keyword arguments of `Agent`, `run` and `send` (see `RequestOptions`)."""

    thinking: bool | int | str | dict[str, Any] | None
    effort: Literal["low", "medium", "high", "xhigh", "max"] | None
    tool_choice: str | dict[str, Any] | None
    temperature: float | None
    top_p: float | None
    top_k: int | None
    stop_sequences: list[str] | None
    metadata: dict[str, Any] | None
    service_tier: Literal["auto", "standard_only"] | None
    betas: list[str]
    cache_ttl: Literal["5m", "1h"] | None
    context: ContextBudget | None
    request_extra: dict[str, Any]
