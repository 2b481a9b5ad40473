"""Agents for the ordering tests: each session's calls get ids of their own, taken from the person's message.

The scripted model numbers its `tool_use` ids per agent (`toolu_scripted_0001` in every session), and a
store records a held call's worker by its id; tests that run many sessions on one store need ids that
differ from session to session, as the real API's do.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

import notebook_tools as nt
from notebook_tools import testing as t

SYSTEM = "You help with data. Ask before changing anything."
ROUNDS = Path(__file__).resolve().parents[1] / "mcp" / "rounds_server.py"


def _last(body: dict[str, Any]) -> Any:
    return body["messages"][-1]["content"]


def _results(body: dict[str, Any]) -> list[dict[str, Any]]:
    content = _last(body)
    if not isinstance(content, list):
        return []
    return [b for b in content if isinstance(b, dict) and b.get("type") == "tool_result"]


def _text(content: Any) -> str:
    if isinstance(content, list):
        return "".join(b.get("text", "") for b in content if isinstance(b, dict))
    return str(content)


def _call_id(body: dict[str, Any]) -> str:
    """`toolu_race_<n>` for the person's message "go <n>"."""
    asked = _text(_last(body))
    found = re.search(r"go (\d+)", asked)
    return f"toolu_race_{found.group(1) if found else 'x'}"


def _confirm(body: dict[str, Any]) -> t.Turn:
    results = _results(body)
    if results:
        return t.reply("You answered: " + ", ".join(_text(r.get("content")) for r in results) + ".")
    message = {"message": "Drop the 12 duplicate rows?"}
    return t.turn("Let me check with you.", t.tool_use("user_confirm", message, id=_call_id(body)))


def confirm_agent() -> nt.Agent:
    """Asks `user_confirm` (id `toolu_race_<n>` for the message "go <n>"), then says what the answer was."""
    script = t.ScriptedTransport(*([_confirm] * 4))
    return nt.Agent(client=script.client(), system=SYSTEM, frontend_tools=[nt.user_confirm])


def _asks_a_name(body: dict[str, Any]) -> t.Turn:
    results = _results(body)
    if not results:
        return t.turn(t.tool_use("rounds", id="open"))  # the server's tools, loaded
    if results[0]["tool_use_id"] == "open":
        return t.turn("Let me ask the server.", t.tool_use("ask_name", {}, id="ask"))
    return t.reply("The server said: " + _text(results[0].get("content")) + ".")


def ask_name_agent() -> nt.Agent:
    """Calls rounds_server.py's `ask_name`, whose server asks the person's name (the same question, so
    the same prompt id, in every session), then says what the server answered."""
    server = nt.MCPServer.stdio(sys.executable, [str(ROUNDS)], env={"PYTHONUNBUFFERED": "1"}, name="rounds")
    script = t.ScriptedTransport(*([_asks_a_name] * 3))
    return nt.Agent(client=script.client(), system=SYSTEM, mcp_servers=[server])


def _peeks(body: dict[str, Any]) -> t.Turn:
    results = _results(body)
    if results:
        return t.reply("Claude read: " + _text(results[0].get("content")))
    code = "print(df[['species', 'island']].head(3))"
    return t.turn(t.tool_use("run_code", {"code": code}, id=_call_id(body)))


def kernel_consent_agent() -> nt.Agent:
    """Runs code that prints rows of the penguins (id `toolu_race_<n>`): the kernel toolset's consent
    card asks whether they go to Claude, then the reply quotes what Claude read."""
    import palmerpenguins

    kernel = nt.KernelTools({"df": palmerpenguins.load_penguins()}, approval="auto")
    script = t.ScriptedTransport(*([_peeks] * 4))
    return nt.Agent(client=script.client(), system=SYSTEM, plugins=[kernel])
