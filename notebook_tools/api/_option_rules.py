"""What the Messages API refuses in a request's options: thinking, tool_choice, sampling, stops, effort.

Pure functions of a request body, used twice: `RequestOptions` turns them into a `ConfigurationError`
before any request is made, and the scripted API (`notebook_tools.testing`) answers them with the 400
the real API sends. Each rule cites its source: the extended-thinking docs
(platform.claude.com/docs/en/build-with-claude/extended-thinking, "Feature compatibility" and
"Max tokens and context window size"), the tool-use docs (".../agents-and-tools/tool-use/implement-tool-use",
"Forcing tool use"), and the SDK's request types (`anthropic.types.ThinkingConfigParam`,
`ToolChoiceParam`, `OutputConfigParam`, generated from the API's OpenAPI spec).
"""

from __future__ import annotations

from typing import Any

__all__ = ["EFFORTS", "MIN_THINKING_BUDGET", "option_errors", "thinking_on"]

MIN_THINKING_BUDGET = 1024
"""ThinkingConfigParam: "you set a `budget_tokens` of at least 1,024"."""
EFFORTS = ("low", "medium", "high", "xhigh", "max")
"""OutputConfigParam.effort."""
_TOOL_CHOICES = {"auto": {"type"}, "any": {"type"}, "none": {"type"}, "tool": {"type", "name"}}
_THINKING = {
    "adaptive": {"type", "display"},
    "enabled": {"type", "budget_tokens", "display"},
    "disabled": {"type"},
}


def thinking_on(body: dict[str, Any]) -> bool:
    """Whether the request asks for thinking (adaptive, or enabled with a budget)."""
    thinking = body.get("thinking")
    return isinstance(thinking, dict) and thinking.get("type") in ("adaptive", "enabled")


def option_errors(body: dict[str, Any]) -> list[str]:
    """Every reason the API refuses this body's options (not its messages, system or tools); [] when fine."""
    errors: list[str] = []
    _thinking_errors(body, errors)
    _tool_choice_errors(body, errors)
    _sampling_errors(body, errors)
    stops = body.get("stop_sequences")
    if stops is not None and (
        not isinstance(stops, list) or not all(isinstance(s, str) and s.strip() for s in stops)
    ):
        # "stop_sequences: each stop sequence must contain non-whitespace" (the API's message).
        errors.append("stop_sequences: each stop sequence must be a string containing non-whitespace")
    config = body.get("output_config")
    if config is not None:
        if not isinstance(config, dict):
            errors.append("output_config: must be an object")
        elif "effort" in config and config["effort"] not in (*EFFORTS, None):
            errors.append(f"output_config.effort: Input should be {', '.join(repr(e) for e in EFFORTS)}")
    metadata = body.get("metadata")
    if metadata is not None and (
        not isinstance(metadata, dict)
        or not metadata.keys() <= {"user_id"}
        or not isinstance(metadata.get("user_id", ""), str | None)
    ):
        errors.append("metadata: only `user_id` (a string) is allowed")  # MetadataParam
    tier = body.get("service_tier")
    if tier is not None and tier not in ("auto", "standard_only"):
        errors.append("service_tier: Input should be 'auto' or 'standard_only'")
    return errors


def _thinking_errors(body: dict[str, Any], errors: list[str]) -> None:
    thinking = body.get("thinking")
    if thinking is None:
        return
    kind = thinking.get("type") if isinstance(thinking, dict) else None
    if kind not in _THINKING:
        errors.append("thinking.type: Input should be 'adaptive', 'enabled' or 'disabled'")
        return
    extra = sorted(thinking.keys() - _THINKING[kind])
    errors += [f"thinking.{kind}.{k}: Extra inputs are not permitted" for k in extra]
    if kind != "enabled":
        return
    budget = thinking.get("budget_tokens")
    if type(budget) is not int or budget < MIN_THINKING_BUDGET:
        errors.append(
            f"thinking.enabled.budget_tokens: Input should be greater than or equal to {MIN_THINKING_BUDGET}"
        )
    elif isinstance(body.get("max_tokens"), int) and budget >= body["max_tokens"]:
        # Extended-thinking docs: "budget_tokens must be set to a value less than max_tokens".
        errors.append("`max_tokens` must be greater than `thinking.budget_tokens`")


def _tool_choice_errors(body: dict[str, Any], errors: list[str]) -> None:
    choice = body.get("tool_choice")
    if choice is None:
        return
    kind = choice.get("type") if isinstance(choice, dict) else None
    if kind not in _TOOL_CHOICES:
        errors.append("tool_choice.type: Input should be 'auto', 'any', 'tool' or 'none'")
        return
    allowed = _TOOL_CHOICES[kind] | ({"disable_parallel_tool_use"} if kind != "none" else set())
    errors += [
        f"tool_choice.{kind}.{k}: Extra inputs are not permitted" for k in sorted(choice.keys() - allowed)
    ]
    if not isinstance(choice.get("disable_parallel_tool_use", False), bool):
        errors.append("tool_choice.disable_parallel_tool_use: Input should be a valid boolean")
    if kind == "tool":
        names = {t.get("name") for t in body.get("tools") or [] if isinstance(t, dict)}
        if not isinstance(choice.get("name"), str) or choice["name"] not in names:
            errors.append(f"tool_choice.name: no tool named {choice.get('name')!r} is offered in `tools`")
    if kind in ("any", "tool") and thinking_on(body):
        # Extended-thinking docs, Feature compatibility: "Tool use with thinking only supports
        # tool_choice: {"type": "auto"} (the default) or tool_choice: {"type": "none"}."
        errors.append("Thinking may not be enabled when tool_choice forces tool use.")
    if kind in ("any", "tool") and not body.get("tools"):
        errors.append("tool_choice: a forced tool choice needs `tools`")


def _sampling_errors(body: dict[str, Any], errors: list[str]) -> None:
    temperature, top_p, top_k = body.get("temperature"), body.get("top_p"), body.get("top_k")
    for name, value, low, high in (("temperature", temperature, 0.0, 1.0), ("top_p", top_p, 0.0, 1.0)):
        if value is not None and (
            isinstance(value, bool) or not isinstance(value, int | float) or not low <= value <= high
        ):
            errors.append(f"{name}: Input should be a number from {low:g} to {high:g}")
    if top_k is not None and (type(top_k) is not int or top_k < 0):
        errors.append("top_k: Input should be a whole number, 0 or more")
    if temperature is not None and top_p is not None:
        # The API's message for Claude 4.5 and later models.
        errors.append(
            "`temperature` and `top_p` cannot both be specified for this model. Please use only one."
        )
    if not thinking_on(body):
        return
    # Extended-thinking docs, Feature compatibility: "Thinking isn't compatible with temperature or top_k
    # modifications as well as forced tool use"; "you can set top_p to values between 1 and 0.95".
    if temperature is not None and temperature != 1:
        errors.append("`temperature` may only be set to 1 when thinking is enabled.")
    if top_k is not None:
        errors.append("`top_k` cannot be set when thinking is enabled.")
    if isinstance(top_p, int | float) and top_p < 0.95:
        errors.append("`top_p` must be greater than or equal to 0.95 when thinking is enabled.")
