"""Helpers of the recorded-replay tests: real Messages API responses through the real client and `nt.Agent`.

The expectations here are computed from the recordings and the prices file with plain rules of their
own (never with the package's accumulator or pricing code), so a replay checks the package against
what the API actually sent.
"""

from __future__ import annotations

import asyncio
import json
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import notebook_tools as nt
from notebook_tools import testing as t
from notebook_tools.testing._recorded import Recorded

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "recorded"
PRICES = json.loads(
    (Path(nt.__file__).resolve().parent / "api" / "model_prices.json").read_text(encoding="utf-8")
)
TOKEN_KEYS = ("input_tokens", "output_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")
THINKING_TYPES = ("thinking", "redacted_thinking")
DEFAULT_PROMPT = "What is the latest news?"


THANKS = t.Turn(
    content=[{"type": "text", "text": "You're welcome."}],
    input_tokens=25,
    output_tokens=12,
    cache_creation_input_tokens=0,
    cache_read_input_tokens=0,
)
"""The scripted follow-up reply, with fixed usage (`followed_up` gives it as a recorded message would)."""


def followed_up(body: dict[str, Any]) -> dict[str, Any]:
    """The reply `THANKS` as a message with usage, for the session's expected totals."""
    return {"model": body["model"], "usage": {"input_tokens": 25, "output_tokens": 12}}


def load(name: str) -> list[Recorded]:
    return Recorded.load_all(FIXTURES / f"{name}.json")


def clean(value: Any) -> Any:
    """`value` with nulls and `cache_control` marks dropped (the API reads an absent field as a null one)."""
    if isinstance(value, dict):
        return {k: clean(v) for k, v in value.items() if v is not None and k != "cache_control"}
    if isinstance(value, list):
        return [clean(v) for v in value]
    return value


def _blank(block: dict[str, Any]) -> bool:
    return block.get("type") == "text" and not str(block.get("text", "")).strip()


def sendable(content: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    """The forms in which `content` may be kept and sent back: as recorded, or with each whitespace-only
    text block left out or joined to the text before it (else after it). The API refuses such blocks in
    a request ("text content blocks must contain non-whitespace text"); nothing else may change."""
    dropped = [b for b in content if not _blank(b)]
    folded: list[dict[str, Any]] = []
    carry = ""
    for block in content:
        if _blank(block):
            if folded and folded[-1].get("type") == "text":
                folded[-1] = {**folded[-1], "text": folded[-1]["text"] + block["text"]}
            else:
                carry += block["text"]
        elif carry and block.get("type") == "text":
            folded.append({**block, "text": carry + block["text"]})
            carry = ""
        else:
            folded.append(block)
    return [clean(content), clean(dropped), clean(folded)]


def text_of(content: list[dict[str, Any]]) -> str:
    return "".join(b.get("text", "") for b in content if b.get("type") == "text")


def thinking_of(content: list[dict[str, Any]]) -> str:
    return "".join(b.get("thinking", "") for b in content if b.get("type") == "thinking")


def _price(model: str) -> float | None:
    """Dollars per input token for `model` (the file's family name or a dated name of it), None unknown."""
    for entry in sorted(PRICES["models"], key=lambda e: -len(e["name"])):
        if model == entry["name"] or model.startswith(entry["name"] + "-"):
            return float(entry["input_per_million"]) / 1_000_000
    return None


def _cost(part: dict[str, Any], model: str) -> float | None:
    rate = _price(model)
    if rate is None:
        return None
    m = PRICES["multipliers"]
    written = int(part.get("cache_creation_input_tokens") or 0)
    hour = min(int((part.get("cache_creation") or {}).get("ephemeral_1h_input_tokens") or 0), written)
    return rate * (
        int(part.get("input_tokens") or 0)
        + m["output"] * int(part.get("output_tokens") or 0)
        + m["cache_write_5m"] * (written - hour)
        + m["cache_write_1h"] * hour
        + m["cache_read"] * int(part.get("cache_read_input_tokens") or 0)
    )


def expected_usage(messages: list[dict[str, Any]]) -> dict[str, Any]:
    """What a turn of these responses bills, by the API's own accounting.

    A response's `usage.iterations` (compaction, advisor) lists every sampling step it billed; the
    top-level counts leave out the compaction step and the advisor's (which runs on another model).
    Tokens are summed over every step (`all_<key>`: every step; `<key>`: the steps of the response's
    own model, as a step on another model may be kept apart); the cost prices each step at its own
    model, and a response with a step whose model the prices file lacks is unpriced.
    """
    total: dict[str, Any] = {
        "input_tokens": 0,
        "output_tokens": 0,
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": 0,
        "server_tool_use": {},
        "requests": 0,
        "cost_usd": 0.0,
        "unpriced_requests": 0,
    }
    for key in TOKEN_KEYS:
        total[f"all_{key}"] = 0
    for message in messages:
        usage, model = message["usage"], message["model"]
        steps = usage.get("iterations") or [usage]
        own = [s for s in steps if s.get("model") in (None, model)]
        for key in TOKEN_KEYS:
            total[key] += sum(int(s.get(key) or 0) for s in own)
            total[f"all_{key}"] += sum(int(s.get(key) or 0) for s in steps)
        counts = usage.get("server_tool_use") or {}
        for kind, n in counts.items():
            if isinstance(n, int) and n:
                total["server_tool_use"][kind] = total["server_tool_use"].get(kind, 0) + n
        total["requests"] += 1
        costs = [_cost(s, s.get("model") or model) for s in steps]
        if any(c is None for c in costs):
            total["unpriced_requests"] += 1
        else:
            tools = sum(
                price * int(counts.get(kind) or 0)
                for kind, price in PRICES["server_tools_per_request"].items()
            )
            total["cost_usd"] += sum(c for c in costs if c is not None) + tools
    return total


def assert_usage(usage: nt.Usage, messages: list[dict[str, Any]]) -> None:
    want = expected_usage(messages)
    got = usage.model_dump()
    for key in TOKEN_KEYS:
        assert got[key] in (want[key], want[f"all_{key}"]), (
            f"usage.{key}: {got[key]} != {want[key]} (recorded)"
        )
    assert got["server_tool_use"] == want["server_tool_use"]
    assert got["requests"] == want["requests"]
    assert got["unpriced_requests"] == want["unpriced_requests"], (
        f"unpriced_requests {got['unpriced_requests']} != {want['unpriced_requests']} "
        f"(cost_usd {got['cost_usd']}, expected {want['cost_usd']})"
    )
    assert abs(got["cost_usd"] - want["cost_usd"]) <= 1e-9, (
        f"cost_usd {got['cost_usd']} != {want['cost_usd']}"
    )


@dataclass
class Replay:
    agent: nt.Agent
    script: t.ScriptedTransport
    recorder: nt.EventRecorder
    responses: list[Recorded]
    result: nt.RunResult

    @property
    def messages(self) -> list[dict[str, Any]]:
        return [r.message for r in self.responses]

    def follow_up(self, prompt: str = "thanks") -> dict[str, Any]:
        """Run the person's next message; returns its request body (the script answers it)."""
        before = len(self.script.requests)
        result = asyncio.run(self.agent.run(prompt))
        assert self.script.refused == [], [r.errors for r in self.script.refused]
        assert result.stop_reason == "end_turn" and result.text == "You're welcome."
        assert len(self.script.requests) == before + 1
        return self.script.requests[before]


def replay(
    name: str,
    *,
    tools: list[Any] | None = None,
    prompt: str | None = None,
    before: list[t.Step] | None = None,
    after: list[t.Step] | None = None,
    **agent_kwargs: Any,
) -> Replay:
    """Run a fresh agent's turn on a recording's responses (then `after`, then a follow-up reply)."""
    responses = load(name)
    steps: list[t.Step] = [*(before or []), *responses, *(after or []), THANKS]
    # priced: the follow-up replies stand for Claude's, billed as its own (a scripted reply would cost 0)
    script = t.ScriptedTransport(*steps, priced=True)
    agent_kwargs.setdefault("model", responses[0].message["model"])
    agent = nt.Agent(client=script.client(), tools=tools or [], **agent_kwargs)
    recorder = nt.EventRecorder()
    agent.events.subscribe(recorder)
    if before:
        asyncio.run(agent.run("hello"))
    asked = prompt or (responses[0].request or {}).get("prompt") or DEFAULT_PROMPT
    result = asyncio.run(agent.run(asked))
    assert script.refused == [], [r.errors for r in script.refused]
    return Replay(agent, script, recorder, responses, result)


def of_type(recorder: nt.EventRecorder, kind: str) -> list[Any]:
    return [e for e in recorder.events if e.type == kind]


def assert_shown(run: Replay, streamed: list[dict[str, Any]]) -> None:
    """One AssistantBlock per block of each recorded response, in order, and the deltas add up to the blocks.

    The recorded responses' groups of blocks (by request) must appear in order among all the groups
    shown; scripted replies around them may add groups of their own.
    """
    by_request: dict[int, list[Any]] = defaultdict(list)
    for event in of_type(run.recorder, "assistant_block"):
        by_request[event.request].append(event)
    groups = [(r, by_request[r]) for r in sorted(by_request)]
    expected = [m["content"] for m in streamed if m["content"]]
    matched: list[tuple[int, list[dict[str, Any]]]] = []
    for content in expected:
        while groups and [clean(e.block) for e in groups[0][1]] != clean(content):
            groups.pop(0)
        shown = [[b.get("type") for b in content]]
        assert groups, f"a response's blocks were not shown as AssistantBlock events: {shown}"
        request, events = groups.pop(0)
        assert [e.index for e in events] == list(range(len(content)))
        matched.append((request, content))
    for request, content in matched:
        for index, block in enumerate(content):
            for kind, field in (("text_delta", "text"), ("thinking_delta", "thinking")):
                if block.get("type") != field or not block.get(field):
                    continue
                pieces = [
                    e.text for e in of_type(run.recorder, kind) if e.request == request and e.index == index
                ]
                assert "".join(pieces) == block[field], f"{kind} of block {index} does not add up"
