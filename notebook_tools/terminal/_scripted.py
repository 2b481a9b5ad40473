"""The scripted model of `python -m notebook_tools chat` when no ANTHROPIC_API_KEY is set.

One step function answers every request from the conversation so far, so the scripted model
follows what the person says and answers: "clean the sales data" starts a data-cleaning
conversation (a table description, then a confirm, a text and a select prompt at once, then a
backend tool and a file prompt, then a CSV write that needs approval); "profile the table" runs a
slow tool (Ctrl+C stops it); "search the web for ..." thinks, searches (scripted results) and cites
them; "write an essay" is cut off at max_tokens, and /continue carries it on; anything else goes
to the conversational demo the notebooks use (`testing.converse`), which answers whatever is typed,
asks any prompt on request and says it is scripted. Everything goes through the real SDK on a
scripted transport, as in the tests.
"""

from __future__ import annotations

import json
import re
import uuid
from typing import Any

from .. import testing as t
from ..testing._conversation import CALL_PREFIX, converse

__all__ = ["SCRIPTED_CHAT_NOTICE", "respond", "scripted_transport"]

SCRIPTED_CHAT_NOTICE = (
    "Model: scripted (no ANTHROPIC_API_KEY set): replies come from a script, not from Claude. "
    "Try: clean the sales data"
)
_ALSO = (
    "Here I can also clean the sales data, profile the table, search the web (thinking first, then "
    "citing what I found) or write an essay (cut off on purpose: /continue carries it on); /tools runs a "
    "tool yourself."
)
_SOURCES = [
    ("Working with missing data (pandas)", "https://pandas.pydata.org/docs/user_guide/missing_data.html"),
    (
        "pandas.DataFrame.drop_duplicates",
        "https://pandas.pydata.org/docs/reference/api/pandas.DataFrame.drop_duplicates.html",
    ),
]
_ESSAY = (
    "Cleaning data, in three steps. First, look before you change anything: count the rows, the duplicates "
    "and the missing values. Second, ask whoever owns the data when a choice is theirs"
)
_ESSAY_REST = (
    ": how to fill a gap, which repeated rows are real. Third, write down what you did, so the next person "
    "can check it. (The scripted model cut this reply off on purpose, to show /continue.)"
)
_FILL = {"median of the product": "median", "mean of the product": "mean", "drop those rows": "drop"}


def scripted_transport(*, event_delay: float = 0.01, steps: int = 1000) -> t.ScriptedTransport:
    """A scripted Messages API whose every step is `respond` (streamed at a readable pace)."""
    return t.ScriptedTransport(*([respond] * steps), text_chunk=6, event_delay=event_delay)


def respond(body: dict[str, Any]) -> t.Turn:
    """The next assistant turn for a request, from the person's words and the tool results."""
    messages = body.get("messages", [])
    last = messages[-1]["content"] if messages else []
    blocks = [{"type": "text", "text": last}] if isinstance(last, str) else list(last)
    said = " ".join(
        b["text"] for b in blocks if b.get("type") == "text" and not b["text"].startswith("[The ")
    )
    results = _results(messages, blocks)
    asked = {b.get("tool_use_id", "") for b in blocks if b.get("type") == "tool_result"}
    if any(i.startswith(CALL_PREFIX) for i in asked):  # answers to the conversation's own prompts
        return _converse(body)
    if "max_tokens" in said and _ESSAY in _last_reply(messages):  # /continue after the cut-off essay
        return t.reply(_ESSAY_REST)
    if said.strip():
        stopped = any(r["is_error"] and "Interrupted" in r["text"] for r in results.values())
        return _from_words(said.lower(), stopped) or _converse(body)
    return _from_results(results) or _converse(body)


def _converse(body: dict[str, Any]) -> t.Turn:
    """The notebooks' conversational demo, which also points at what this terminal's script does."""
    reply = converse(body)
    if reply.final_stop_reason() == "end_turn":
        first = reply.content[0]
        reply.content[0] = {**first, "text": f"{first['text']} {_ALSO}"}
    return reply


def _results(messages: list[dict[str, Any]], blocks: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """The tool results of the last message by tool name: {"text", "is_error", "input"}."""
    calls: dict[str, dict[str, Any]] = {}
    for message in messages:
        if message["role"] == "assistant" and isinstance(message["content"], list):
            calls.update({b["id"]: b for b in message["content"] if b.get("type") == "tool_use"})
    found = {}
    for block in blocks:
        if block.get("type") == "tool_result" and block["tool_use_id"] in calls:
            call = calls[block["tool_use_id"]]
            content = block.get("content", "")
            text = content if isinstance(content, str) else "\n".join(b.get("text", "") for b in content)
            found[call["name"]] = {
                "text": text,
                "is_error": bool(block.get("is_error")),
                "input": call["input"],
            }
    return found


def _from_words(said: str, stopped: bool) -> t.Turn | None:
    before = "You stopped me before that finished, so nothing changed. " if stopped else ""
    if "clean" in said:
        return t.turn(before + "Let me look at the table first.", _call("describe_table", {"table": "sales"}))
    if "profile" in said or "scan" in said:
        return t.turn(
            before + "I'll profile every column of `sales`; that takes a while (Ctrl+C stops it).",
            _call("profile_table", {"table": "sales"}),
        )
    if "search" in said:
        return _searched(said)
    if "essay" in said:
        return t.turn(_ESSAY, stop_reason="max_tokens")
    if "thank" in said:
        return t.reply(before + "You're welcome. Anything else? I can also profile the table.")
    return None


def _searched(said: str) -> t.Turn:
    """Thinking, a web search (scripted results) and a reply citing two of them."""
    asked = re.search(r"search(?: the web)?(?: for)?\s+(.+)", said)
    query = asked.group(1).strip(" ?.!") if asked else "pandas missing values duplicates"
    return t.turn(
        t.thinking(
            "The person wants sources, not my memory. A web search finds pages I can cite; "
            "the pandas documentation answers both halves."
        ),
        "Let me search the web (the results are scripted).",
        t.web_search(query, [(*_SOURCES[0], "2 days ago"), (*_SOURCES[1], None)]),
        t.cited("pandas fills gaps with fillna or interpolate", [_SOURCES[0]]),
        " and ",
        t.cited("drops repeated rows with drop_duplicates", [_SOURCES[1]]),
        ".",
    )


def _last_reply(messages: list[dict[str, Any]]) -> str:
    """The text of the last assistant message."""
    for message in reversed(messages):
        if message["role"] == "assistant":
            content = message["content"]
            if isinstance(content, str):
                return content
            return "".join(b.get("text", "") for b in content if b.get("type") == "text")
    return ""


def _from_results(results: dict[str, dict[str, Any]]) -> t.Turn | None:
    if "write_csv" in results:
        return _saved(results["write_csv"])
    if "pick_file" in results:
        return _checked(results["pick_file"], results.get("clean_table"))
    if {"user_confirm", "ask_text", "select_option"} & results.keys():
        return _clean(results)
    if "describe_table" in results:
        return _questions(results["describe_table"])
    if "profile_table" in results:
        outcome = results["profile_table"]
        return t.reply(
            f"The profile failed: {outcome['text']}"
            if outcome["is_error"]
            else f"Profile: {outcome['text']}."
        )
    return None


def _call(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """A tool_use block with an id unique across processes (a resumed session keeps its old ids)."""
    return t.tool_use(name, arguments, id=f"toolu_{uuid.uuid4().hex[:24]}")


def _questions(described: dict[str, Any]) -> t.Turn:
    facts = json.loads(described["text"]) if not described["is_error"] else {}
    rows, dupes = facts.get("rows", "?"), facts.get("duplicate_rows", 0)
    missing = facts.get("missing", {}).get("price", 0)
    return t.turn(
        f"`sales` has {rows} rows: {dupes} are exact duplicates, {missing} prices are missing, and the "
        "price column holds numbers stored as text. A few questions before I change anything:",
        _call(
            "user_confirm",
            {"message": f"Drop the {dupes} duplicate rows?", "confirm_label": "Drop", "deny_label": "Keep"},
        ),
        _call("ask_text", {"prompt": "Name of the cleaned table?", "default": "sales_clean"}),
        _call(
            "select_option",
            {"prompt": f"How should I fill the {missing} missing prices?", "options": list(_FILL)},
        ),
    )


def _answer(results: dict[str, dict[str, Any]], name: str) -> str | None:
    found = results.get(name)
    return None if found is None or found["is_error"] else found["text"]


def _clean(results: dict[str, dict[str, Any]]) -> t.Turn:
    drop = _answer(results, "user_confirm") != "no"
    new_name = (_answer(results, "ask_text") or "").strip() or "sales_clean"
    fill = _FILL.get(_answer(results, "select_option") or "", "median")
    said = [
        "I'll drop the duplicates" if drop else "I'll keep the duplicate rows, as you asked",
        f"fill missing prices with the {fill} of their product"
        if fill != "drop"
        else "drop rows without a price",
        f"and call the result `{new_name}`",
    ]
    skipped = [n for n in ("user_confirm", "ask_text", "select_option") if _answer(results, n) is None]
    note = f" (you skipped {len(skipped)} question(s), so I used the defaults there)" if skipped else ""
    args = {"table": "sales", "new_name": new_name, "drop_duplicates": drop, "missing_prices": fill}
    return t.turn(
        f"{', '.join(said)}{note}. Do you have a reference price list to check the prices against?",
        _call("clean_table", args),
        _call("pick_file", {"prompt": "Pick the reference price list (CSV)", "accept": ".csv"}),
    )


def _checked(picked: dict[str, Any], cleaned: dict[str, Any] | None) -> t.Turn:
    new_name = cleaned["input"]["new_name"] if cleaned else "sales_clean"
    if picked["is_error"]:
        found = "No price list, then; I will not check the prices."
    else:
        lines = re.search(r"^(\S+) \((\d+) lines\)", picked["text"], re.MULTILINE)
        name, count = (lines.group(1), int(lines.group(2))) if lines else ("the file", 0)
        found = f"Got `{name}`: {max(count - 1, 0)} reference prices, which I'll keep with the table."
    return t.turn(
        f"{found} Now I'll save `{new_name}` as CSV (you approve the write first).",
        _call("write_csv", {"table": new_name, "path": f"{new_name}.csv"}),
    )


def _saved(written: dict[str, Any]) -> t.Turn:
    text = written["text"]
    if written["is_error"]:
        return t.reply(f"I did not write the file: {text}")
    done = text.rsplit("Result: ", 1)[-1]
    edited = (
        " You changed the arguments before approving, and I used yours."
        if "edited the arguments" in text
        else ""
    )
    return t.reply(f"Done: I {done}.{edited} The cleaned table is ready.")
