"""P10: input tokens billed over a 30-turn session with prompt caching, against the same session without.

The session is scripted (no key, no network): each of 30 turns the person asks, the model calls a backend
tool (a table of about 300 tokens comes back) and then answers. The scripted API counts usage as the API
does (`notebook_tools/testing/_cache_model.py`: tokens at 3.5 characters, breakpoints, a 20-block
lookback, the 1,024-token minimum, 5-minute TTL). The agent caches by default (its system prompt, its
tools and, with automatic caching, the conversation so far); the baseline is the same agent with
`cache_ttl=None` (no breakpoint at all). Billed input = input + 1.25 x cache writes + 0.1 x cache reads
(the pricing page's 5-minute write and read multipliers), summed from each turn's `usage`.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import notebook_tools as nt  # noqa: E402
from notebook_tools import testing as t  # noqa: E402

TURNS = 30
MODEL = "claude-sonnet-4-6"
SYSTEM = (
    "You are a careful data analyst working in a Jupyter notebook. Explain each step briefly, check "
    "the data before changing it, and never drop rows without saying how many and why. "
) * 12  # about 600 tokens, as a real assistant's instructions run


@nt.tool
def describe_table(name: str) -> str:
    """Describe a table of the notebook: its columns, types and a few rows."""
    rows = "\n".join(f"{i},{name}-{i},{i * 3.5:.1f},2026-01-{i % 28 + 1:02d}" for i in range(40))
    return f"table {name}: 40 rows\nid,label,value,date\n{rows}"


def script() -> t.ScriptedTransport:
    steps: list[t.Step] = []
    for turn in range(TURNS):
        steps.append(
            t.turn(f"Let me look at table t{turn}.", t.tool_use("describe_table", {"name": f"t{turn}"}))
        )
        steps.append(
            t.reply(f"Table t{turn} has 40 rows; values rise steadily with the id, no gaps in the dates.")
        )
    return t.ScriptedTransport(*steps)


async def session(cache_ttl: str | None) -> list[dict[str, Any]]:
    """Each turn's usage (billed fields and cost) for the 30-turn session."""
    agent = nt.Agent(
        client=script().client(), model=MODEL, system=SYSTEM, tools=[describe_table], cache_ttl=cache_ttl
    )
    turns = []
    for turn in range(TURNS):
        result = await agent.run(f"What is in table t{turn}?")
        usage = result.turn_usage
        turns.append(
            {
                "input": usage.input_tokens,
                "write": usage.cache_creation_input_tokens,
                "read": usage.cache_read_input_tokens,
                "cost": usage.cost_usd,
            }
        )
    return turns


def billed(turns: list[dict[str, Any]]) -> float:
    return sum(u["input"] + 1.25 * u["write"] + 0.1 * u["read"] for u in turns)


def measure() -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(cached turns, uncached turns)."""
    return asyncio.run(session("5m")), asyncio.run(session(None))


def report(cached: list[dict[str, Any]], plain: list[dict[str, Any]]) -> str:
    """The cost of each turn, both ways, as a few lines."""
    lines = ["turn  cost cached   cost uncached   (input / cache write / cache read tokens, cached)"]
    for n, (a, b) in enumerate(zip(cached, plain, strict=True), 1):
        lines.append(
            f"{n:>4}  ${a['cost']:.5f}    ${b['cost']:.5f}        {a['input']:>6} / {a['write']:>6} / {a['read']:>7}"
        )
    total_a, total_b = sum(u["cost"] for u in cached), sum(u["cost"] for u in plain)
    lines.append(f"total ${total_a:.4f}    ${total_b:.4f}   ({MODEL}, prices of api/model_prices.json)")
    return "\n".join(lines)


if __name__ == "__main__":
    cached, plain = measure()
    print(report(cached, plain))
    print(f"billed input: {billed(cached):.0f} cached vs {billed(plain):.0f} uncached")
