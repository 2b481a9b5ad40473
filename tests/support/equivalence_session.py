"""One scripted session that both front ends drive (tests/test_front_ends_agree.py).

`build()` returns an agent on a `testing.ScriptedTransport` (attached as `agent.script`), with
explicit tool_use ids so both runs send the same requests. The person's side of the session,
as `MESSAGES` and `ANSWERS` describe it:

1. "check the prices": the model asks four prompts at once (user_confirm `ids.CONFIRM`,
   ask_text `ids.TEXT`, select_option `ids.SELECT`, pick_file `ids.FILE` of `PRICES_FILE`);
   its next step asks to run `write_report` (needs approval), which the person approves after
   editing the `path` argument; then it asks `ask_unit`, a frontend tool with `timeout=2` that
   nobody answers; then it ends the turn.
2. "profile the table": `slow_profile`, a slow async backend tool, which the person stops.
3. "thanks": the turn completes, the interrupted call's result carried with the message.

Steps are functions of the request, so each reply repeats what it was told (the answers, the
report tool's result), and a wrong answer shows in the requests.

Loaded by `python -m notebook_tools chat --agent tests/support/equivalence_session.py:build` (by path,
not as a package module) and by the kernel test with importlib, so it imports only the package.
`build()` writes `PRICES_FILE` in the working directory when it is missing.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import notebook_tools as nt
from notebook_tools import testing as t

PRICES_FILE = "prices.csv"
PRICES = "product,price\napples,1.20\npears,1.50\nplums,2.10\n"
SYSTEM = "You check the user's price data and write reports; ask the user whenever a choice is theirs."
UNIT_TIMEOUT = 2.0

ids = SimpleNamespace(
    CONFIRM="toolu_eq_confirm",
    TEXT="toolu_eq_text",
    SELECT="toolu_eq_select",
    FILE="toolu_eq_file",
    APPROVAL="toolu_eq_report",
    UNIT="toolu_eq_unit",
    SLOW="toolu_eq_profile",
)

MESSAGES = ["check the prices", "profile the table", "thanks"]
"""What the person types, in order."""

REPORT_INPUT = {"path": "report.md", "title": "Fruit prices"}
"""The arguments the model gives `write_report`."""
EDITED_REPORT = {"path": "final.md", "title": "Fruit prices", "rows": 10, "overwrite": False, "scale": 1}
"""What the widget's approval form sends when only `path` is changed: every field of the schema, in
its order, from the call's input or else the schema's default (numbers as JSON numbers, so 1.0 is 1)."""

ANSWERS: dict[str, dict[str, Any]] = {
    ids.CONFIRM: {"value": "yes"},
    ids.TEXT: {"value": "Fruit prices"},
    ids.SELECT: {"value": ["mean"]},
    ids.FILE: {"value": {"paths": [PRICES_FILE]}},
    ids.APPROVAL: {"value": {"approved": True, "edited_input": EDITED_REPORT, "remember": None}},
}
"""Each answered prompt's answer, in the widget's shapes (js/src/prompts/*.ts), in answering order."""


@nt.tool(needs_approval=True)
def write_report(
    path: str, title: str = "Prices", rows: int = 10, overwrite: bool = False, scale: float = 1.0
) -> str:
    """Write a price report (here: only say what would be written).

    Args:
        path: Where to write it.
        title: The report's title.
        rows: How many rows to include.
        overwrite: Replace an existing file.
        scale: Multiply every price by this.
    """
    return f"report {title!r} with {rows} rows to {path} (overwrite={overwrite}, scale={scale!r})"


@nt.tool
async def slow_profile(table: str) -> str:
    """Profile every column of a table (slow).

    Args:
        table: The table.
    """
    await asyncio.sleep(30)
    return f"{table}: profiled"


@nt.tool(executor="frontend", timeout=UNIT_TIMEOUT)
def ask_unit(column: str) -> str:  # type: ignore[empty-body]
    """Ask the user which currency a column is in.

    Args:
        column: The column.
    """


def _questions(body: dict[str, Any]) -> t.Turn:
    return t.turn(
        "A few questions before I check anything.",
        t.tool_use(
            "user_confirm",
            {"message": "Drop the duplicate rows?", "confirm_label": "Drop", "deny_label": "Keep"},
            id=ids.CONFIRM,
        ),
        t.tool_use("ask_text", {"prompt": "Title of the report?", "default": "Prices"}, id=ids.TEXT),
        t.tool_use(
            "select_option",
            {"prompt": "Fill missing prices with?", "options": ["median", "mean", "zero"]},
            id=ids.SELECT,
        ),
        t.tool_use("pick_file", {"prompt": "Pick the reference price list", "accept": ".csv"}, id=ids.FILE),
    )


def _report(body: dict[str, Any]) -> t.Turn:
    got = t.answers_in(body)
    picked = got.get("pick_file")
    seen = "a file" if isinstance(picked, list) else repr(picked)
    return t.turn(
        f"Drop duplicates: {got.get('user_confirm')}; title: {got.get('ask_text')}; "
        f"fill with: {got.get('select_option')}; reference: {seen}. Writing the report.",
        t.tool_use("write_report", {**REPORT_INPUT, "title": str(got.get("ask_text"))}, id=ids.APPROVAL),
    )


def _unit(body: dict[str, Any]) -> t.Turn:
    return t.turn(
        f"Done: {t.answers_in(body).get('write_report')}. One more question.",
        t.tool_use("ask_unit", {"column": "price"}, id=ids.UNIT),
    )


def _assume(body: dict[str, Any]) -> t.Turn:
    [result] = [b for b in body["messages"][-1]["content"] if b.get("type") == "tool_result"]
    return t.reply(f"{result['content']} I'll assume euros.")


def _profile(body: dict[str, Any]) -> t.Turn:
    return t.turn(
        "Profiling the table; this takes a while.",
        t.tool_use("slow_profile", {"table": "prices"}, id=ids.SLOW),
    )


def _welcome(body: dict[str, Any]) -> t.Turn:
    results = [b for b in body["messages"][-1]["content"] if b.get("type") == "tool_result"]
    said = " ".join(r["content"] for r in results if r.get("is_error"))
    return t.reply(f"You stopped the profile ({said}). You're welcome.")


def steps() -> list[t.Step]:
    """The model's side: one step per request, in order."""
    return [_questions, _report, _unit, _assume, _profile, _welcome]


def build() -> nt.Agent:
    """The session's agent, on a fresh scripted model (`agent.script`); writes `PRICES_FILE` if missing."""
    prices = Path(PRICES_FILE)
    if not prices.exists():
        prices.write_text(PRICES)
    script = t.ScriptedTransport(*steps())
    agent = nt.Agent(
        client=script.client(),
        model="claude-scripted",
        system=SYSTEM,
        tools=[write_report, slow_profile],
        frontend_tools=[nt.user_confirm, nt.ask_text, nt.select_option, nt.pick_file, ask_unit],
    )
    agent.script = script  # type: ignore[attr-defined]
    return agent
