"""Hundreds of generated bad resumes: each is refused, and nothing changes or is sent.

Two paused sessions on one SQLite file: one on frontend calls (a confirm, a text, a tool with
an output schema, plus a held backend result) and one on approvals (with a deferred frontend
call). Every example takes a correct answer list and breaks it in one to three ways: ids
(missing, extra, duplicate, not pending), types, block shapes, base64 and media types, sizes,
output schemas, decisions given for results and the other way round, edited arguments that the
input schema or the approval rule refuses. Each must raise the documented `ToolResultError`
with the SQLite dump byte-identical, the agent's state equal, no event and no request.
"""

from __future__ import annotations

import asyncio
import base64
import sqlite3
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import notebook_tools as nt
from notebook_tools import testing as t

PNG = base64.b64encode(b"\x89PNG\r\n\x1a\n" + b"\x00" * 16).decode()
LIMIT = 60


@nt.tool
def add(a: int, b: int) -> int:
    """Add.

    Args:
        a: First.
        b: Second.
    """
    return a + b


@nt.tool(needs_approval=True)
def risky(n: int) -> str:
    """Needs approval.

    Args:
        n: A number.
    """
    raise AssertionError("a refused resume never runs a tool")


@nt.tool(needs_approval=lambda args: nt.Blocked("negative numbers") if args["n"] < 0 else True)
def guarded(n: int) -> str:
    """Asks, and refuses negative numbers.

    Args:
        n: A number.
    """
    raise AssertionError("a refused resume never runs a tool")


@nt.tool(executor="frontend", output_schema={"type": "object", "required": ["hex"]})
def pick_color(purpose: str) -> str:
    """Pick a colour.

    Args:
        purpose: What for.
    """


class Paused:
    def __init__(self, path: str, kind: str) -> None:
        self.path = path
        if kind == "frontend":
            turn = t.turn(
                t.tool_use("add", {"a": 1, "b": 2}, id="b1"),
                t.tool_use("user_confirm", {"message": "Go?"}, id="c1"),
                t.tool_use("ask_text", {"prompt": "Name?"}, id="x1"),
                t.tool_use("pick_color", {"purpose": "plot"}, id="p1"),
            )
        else:
            turn = t.turn(
                t.tool_use("add", {"a": 1, "b": 2}, id="b2"),
                t.tool_use("risky", {"n": 1}, id="r2"),
                t.tool_use("guarded", {"n": 3}, id="g2"),
                t.tool_use("user_confirm", {"message": "Go?"}, id="c2"),
            )
        self.script = t.ScriptedTransport(turn)
        self.agent = nt.Agent(
            client=self.script.client(),
            model="claude-test",
            tools=[add, risky, guarded],
            frontend_tools=[nt.user_confirm, nt.ask_text, pick_color],
            store=nt.SQLiteStore(path),
            max_result_chars=LIMIT,
        )
        self.events: list[Any] = []
        result = asyncio.run(self.agent.run("Go."))
        assert result.stop_reason == (
            "awaiting_frontend_tools" if kind == "frontend" else "awaiting_approval"
        )
        self.agent.events.subscribe(self.events.append)

    def good(self) -> list[dict[str, Any]]:
        if self.agent.state.pending_approvals:
            return [
                {"kind": "approval_decision", "tool_use_id": "r2", "approved": True},
                {"kind": "approval_decision", "tool_use_id": "g2", "approved": False, "reason": "no"},
            ]
        return [
            {"tool_use_id": "c1", "content": "yes"},
            {"tool_use_id": "x1", "content": "Ada"},
            {"tool_use_id": "p1", "content": '{"hex": "#1f77b4"}'},
        ]

    def dump(self) -> str:
        with sqlite3.connect(self.path) as conn:
            return "\n".join(conn.iterdump())


BAD_CONTENT = [
    42,
    None,
    {"text": "a dict"},
    ["plain", "strings"],
    [{"type": "text", "text": ""}],
    [{"type": "text", "text": "hi", "colour": "red"}],
    [{"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "not base64!"}}],
    [{"type": "image", "source": {"type": "base64", "media_type": "image/bmp", "data": PNG}}],
    [{"type": "image", "source": {"type": "base64", "media_type": "image/jpeg", "data": PNG}}],
    [{"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": ""}}],
    [{"type": "document", "source": {"type": "base64", "media_type": "application/pdf", "data": "%%%"}}],
    [{"type": "tool_use", "id": "x", "name": "add", "input": {}}],
    [{"type": "mystery"}],
    "x" * (LIMIT + 1),
    [{"type": "text", "text": "y" * (LIMIT + 1)}],
]


def mutations(draw: Any, paused: Paused, items: list[dict[str, Any]]) -> list[Any]:
    """Break a correct answer list in one to three ways; each way alone makes it invalid."""
    approvals = bool(paused.agent.state.pending_approvals)
    for round in range(draw(st.integers(1, 3))):
        i = draw(st.integers(0, len(items) - 1)) if items else 0
        how = draw(
            st.sampled_from(
                ["drop"] * (round == 0)  # later, a drop could remove the very item that broke the list
                + ["extra", "duplicate", "held", "bad_id", "not_object", "wrong_kind"]
                + (
                    ["edit_schema", "edit_blocked", "edit_extra_key", "approved_type", "remember"]
                    if approvals
                    else ["content", "is_error_empty", "is_error_type", "extra_key", "schema"]
                )
            )
        )
        if not items:
            items = [{"tool_use_id": "ghost", "content": "boo"}]
            continue
        item = dict(items[i]) if isinstance(items[i], dict) else {"tool_use_id": "c1", "content": "yes"}
        if how == "drop":
            items = items[:i] + items[i + 1 :]
            if not items:
                items = []
                return items
        elif how == "extra":
            items = [*items, {**item, "tool_use_id": draw(st.sampled_from(["zzz", "toolu_other", ""]))}]
        elif how == "duplicate":
            items = [*items, item]
        elif how == "held":  # the backend call of the same turn is answered already
            items = [*items, {**item, "tool_use_id": "b1" if not approvals else "b2"}]
        elif how == "bad_id":
            items[i] = {**item, "tool_use_id": draw(st.sampled_from([None, 7, ["c1"]]))}
        elif how == "not_object":
            items[i] = draw(st.sampled_from(["yes", 3, None, ["c1", "yes"]]))
        elif how == "wrong_kind":
            items[i] = (
                {"tool_use_id": item["tool_use_id"], "content": "yes"}
                if approvals
                else {"kind": "approval_decision", "tool_use_id": item["tool_use_id"], "approved": True}
            )
        elif how == "content":
            items[i] = {**item, "content": draw(st.sampled_from(BAD_CONTENT))}
        elif how == "is_error_empty":
            items[i] = {**item, "content": draw(st.sampled_from(["", []])), "is_error": True}
        elif how == "is_error_type":
            items[i] = {**item, "is_error": draw(st.sampled_from(["maybe", 2, None]))}
        elif how == "extra_key":
            items[i] = {**item, "name": "user_confirm"}
        elif how == "schema":
            items = [
                {
                    **x,
                    "content": draw(st.sampled_from(["blue", "{}", '{"rgb": 1}', "[1]"])),
                    "is_error": False,
                }
                if _id(x) == "p1"
                else x
                for x in items
            ]
            if not any(_id(x) == "p1" for x in items):
                items.append({"tool_use_id": "p1", "content": "blue"})
        elif how == "edit_schema":
            items[i] = {
                **item,
                "approved": True,
                "edited_input": draw(st.sampled_from([{"n": "x"}, {}, {"m": 1}])),
            }
        elif how == "edit_blocked":
            items = [x for x in items if _id(x) != "g2"]
            items.append(
                {
                    "kind": "approval_decision",
                    "tool_use_id": "g2",
                    "approved": True,
                    "edited_input": {"n": -5},
                }
            )
        elif how == "edit_extra_key":
            items[i] = {**item, "surprise": True}
        elif how == "approved_type":
            items[i] = {**item, "approved": draw(st.sampled_from(["yes", None, 1.5]))}
        elif how == "remember":
            items[i] = {**item, "remember": draw(st.sampled_from(["forever", True, "everything"]))}
    return items


def _id(item: Any) -> Any:
    return item.get("tool_use_id") if isinstance(item, dict) else None


COUNT = {"refused": 0}


@pytest.fixture(scope="module")
def sessions(tmp_path_factory):
    path = str(tmp_path_factory.mktemp("bad") / "s.sqlite")
    return [Paused(path, "frontend"), Paused(path, "approvals")]


def test_bad_resumes_are_refused_and_change_nothing(sessions):
    @settings(max_examples=320, deadline=None, suppress_health_check=list(HealthCheck))
    @given(data=st.data())
    def one(data):
        paused = data.draw(st.sampled_from(sessions))
        bad = mutations(data.draw, paused, paused.good())
        before, state, sent = paused.dump(), paused.agent.state.model_dump_json(), len(paused.script.requests)
        try:
            asyncio.run(paused.agent.resume(bad))
        except nt.ToolResultError as exc:
            assert isinstance(exc, (nt.ToolResultIdsError, nt.InvalidToolResultError))
        else:
            raise AssertionError(f"accepted: {bad!r}")
        assert paused.dump() == before, "the store changed"
        assert paused.agent.state.model_dump_json() == state, "the session changed"
        assert len(paused.script.requests) == sent and paused.events == [], "something was sent"
        COUNT["refused"] += 1

    one()
    assert COUNT["refused"] >= 300
    # After all of that, the right answers still go through.
    for paused in sessions:
        paused.script.add(t.reply("Done."), t.reply("Done."), t.reply("Done."))
        result = asyncio.run(paused.agent.resume(paused.good()))
        if result.stop_reason == "awaiting_frontend_tools":  # the approvals' deferred confirm
            result = asyncio.run(paused.agent.resume([{"tool_use_id": "c2", "content": "no"}]))
        assert result.stop_reason == "end_turn"
        assert paused.script.refused == []
