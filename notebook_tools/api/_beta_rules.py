"""What the Messages API refuses unless the request names a beta in its `anthropic-beta` header.

Pure functions of a request body and its betas, used by the scripted API (`notebook_tools.testing`)
to answer as the real API does. Sources:

- `context_management` without its beta is "context_management: Extra inputs are not permitted" (the API's
  message: anthropics/claude-code #14135; lifemate-ai/familiar-ai #45, "even via extra_body"). The
  context-editing docs (platform.claude.com/docs/en/build-with-claude/context-editing): "use the beta
  header context-management-2025-06-27"; the compaction docs (".../compaction-threshold"): compaction
  takes the beta `compact-2026-01-12` (`betas=["compact-2026-01-12"]`); BerriAI/litellm #27593 (compact
  edits need `compact-2026-01-12`, the other edits `context-management-2025-06-27`).
- A compact edit's trigger: "value is at least 50,000" (compaction docs, parameters table); the docs
  list `clear_thinking_20251015` "first in the edits array" when both strategies are used.
Edit keys follow the SDK's beta types (`BetaContextManagementConfigParam` and its edits).
"""

from __future__ import annotations

from typing import Any

__all__ = ["BETA_KEYS", "COMPACT_BETA", "CONTEXT_BETA", "beta_errors", "betas_of"]

CONTEXT_BETA = "context-management-2025-06-27"
COMPACT_BETA = "compact-2026-01-12"
BETA_KEYS = {"context_management": (CONTEXT_BETA, COMPACT_BETA)}
"""Body keys the API takes only with one of these betas."""
MIN_COMPACT_TRIGGER = 50_000
_EDITS = {
    "clear_tool_uses_20250919": (
        CONTEXT_BETA,
        {"type", "trigger", "keep", "clear_at_least", "exclude_tools", "clear_tool_inputs"},
    ),
    "clear_thinking_20251015": (CONTEXT_BETA, {"type", "keep"}),
    "compact_20260112": (COMPACT_BETA, {"type", "trigger", "pause_after_compaction", "instructions"}),
}


def betas_of(header: str | None) -> list[str]:
    """The beta names of an `anthropic-beta` header value (comma-separated)."""
    return [b.strip() for b in (header or "").split(",") if b.strip()]


def beta_errors(body: dict[str, Any], betas: list[str]) -> list[str]:
    """Every reason the API refuses `body` given the betas it names; [] when none.

    Args:
        body: The JSON body of a `POST /v1/messages` request.
        betas: The names in its `anthropic-beta` header.
    """
    config = body.get("context_management") if isinstance(body, dict) else None
    if config is None:
        return []
    if not any(b in betas for b in BETA_KEYS["context_management"]):
        return ["context_management: Extra inputs are not permitted"]
    if not isinstance(config, dict) or not isinstance(config.get("edits", []), list):
        return ["context_management.edits: must be a list of edits"]
    errors = [
        f"context_management.{k}: Extra inputs are not permitted" for k in sorted(config.keys() - {"edits"})
    ]
    kinds = []
    for n, edit in enumerate(config.get("edits") or []):
        kind = edit.get("type") if isinstance(edit, dict) else None
        if kind not in _EDITS:
            errors.append(
                f"context_management.edits.{n}.type: Input should be {', '.join(repr(k) for k in _EDITS)}"
            )
            continue
        kinds.append(kind)
        beta, keys = _EDITS[kind]
        if beta not in betas:
            errors.append(f"context_management.edits.{n}: the {kind} edit needs the beta header {beta!r}")
        errors += [
            f"context_management.edits.{n}.{k}: Extra inputs are not permitted"
            for k in sorted(edit.keys() - keys)
        ]
        trigger = edit.get("trigger")
        if kind == "compact_20260112" and isinstance(trigger, dict):
            value = trigger.get("value")
            if type(value) is not int or value < MIN_COMPACT_TRIGGER:
                errors.append(
                    f"context_management.edits.{n}.trigger.value: Input should be greater than or equal to "
                    f"{MIN_COMPACT_TRIGGER}"
                )
    if "clear_thinking_20251015" in kinds and kinds[0] != "clear_thinking_20251015":
        errors.append(
            "context_management.edits: clear_thinking_20251015 must be listed first in the edits array"
        )
    return errors
