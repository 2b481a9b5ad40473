"""The scripted demo model that holds a conversation when there is no API key.

`converse` is a script step that answers any request: whatever the person types gets a reply
that says it comes from a script, and asking for a prompt ("ask me to confirm", "give me a
choice", "ask me for some text", "ask for a file", "show me every prompt") calls that frontend
tool, when the request offers it. Answers to the prompts are read back in the next reply. It
only ever sends what the Messages API accepts: a non-empty text block first, tool calls only of
offered tools, ids the history does not hold yet (numbered by the transport).

`testing.model_client` hands over to it once a notebook's own script is used up, and the
terminal's no-key chat falls back to it for whatever its data-cleaning script does not cover.
"""

from __future__ import annotations

import json
import re
from typing import Any

from ._steps import Turn, tool_use, turn

__all__ = ["CALL_PREFIX", "CONVERSATION_HELP", "converse"]

CALL_PREFIX = "toolu_demo_"
"""The ids of the prompts `converse` asks begin so (a script that hands over to it tells them apart)."""

CONVERSATION_HELP = (
    'Try "ask me to confirm", "give me a choice", "ask me for some text", "ask for a file", or '
    '"show me every prompt".'
)
_SCRIPTED = (
    "I am the scripted demo model (no ANTHROPIC_API_KEY is set), so I cannot really read what you write"
)
_ALL = ("every prompt", "all prompts", "every kind", "each kind", "all kinds", "all of them", "all four")
# Which words ask for which prompt; the first match wins ("choose a file" is a file).
_ASKS = (
    ("pick_file", ("file", "upload", "csv", "attach")),
    ("user_confirm", ("confirm", "yes or no", "yes/no", "approve", "approval")),
    ("select_option", ("choice", "choose", "select", "option", "pick", "menu")),
    ("ask_text", ("text", "type something", "question", "ask me", "input")),
)
_ORDER = ("user_confirm", "select_option", "ask_text", "pick_file")  # how "every prompt" asks them
_NAMES = {
    "user_confirm": "a yes/no question",
    "select_option": "a choice",
    "ask_text": "a text box",
    "pick_file": "a file picker",
}


def _arguments(name: str, count: int) -> dict[str, Any]:
    if name == "user_confirm":
        return {
            "message": "Shall I carry on with the demo?",
            "confirm_label": "Carry on",
            "deny_label": "Stop",
        }
    if name == "select_option":
        return {"prompt": "Which colour do you like best?", "options": ["red", "green", "blue"]}
    if name == "ask_text":
        return {"prompt": "What should I call you?", "placeholder": "a name", "default": f"Guest {count}"}
    return {"prompt": "Choose any file to show me (it stays in this kernel)", "accept": ""}


def _texts(blocks: list[Any]) -> list[str]:
    return [
        str(b.get("text", ""))
        for b in blocks
        if isinstance(b, dict) and b.get("type") == "text" and not str(b.get("text", "")).startswith("[The ")
    ]


def _result_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    return "\n".join(
        str(b.get("text", "")) for b in content or [] if isinstance(b, dict) and b.get("type") == "text"
    )


def _said_about(name: str, result: dict[str, Any]) -> str:
    text = _result_text(result.get("content"))
    if result.get("is_error"):
        return f"{_NAMES.get(name, f'`{name}`')} was not answered ({text.strip() or 'skipped'})"
    if name == "user_confirm":
        return f'you answered "{text}" to the yes/no question'
    if name == "select_option":
        return f'you chose "{text}"'
    if name == "ask_text":
        return f'you typed "{text}"' if text else "you left the text box empty"
    if name == "pick_file":
        try:
            files = json.loads(text.splitlines()[0]) if text else []
            listed = ", ".join(f"`{f['name']}` ({f['size']:,} bytes)" for f in files)
        except (ValueError, KeyError, TypeError, IndexError):
            listed = "a file"
        return f"you chose {listed or 'no file'}"
    return f"`{name}` returned: {text[:200]}"


def _answers(messages: list[dict[str, Any]], blocks: list[Any]) -> list[str]:
    names: dict[str, str] = {}
    for message in messages:
        if message.get("role") == "assistant" and isinstance(message.get("content"), list):
            names.update({b["id"]: b["name"] for b in message["content"] if b.get("type") == "tool_use"})
    return [
        _said_about(names.get(b.get("tool_use_id", ""), "a tool"), b)
        for b in blocks
        if isinstance(b, dict) and b.get("type") == "tool_result"
    ]


def _has(said: str, words: tuple[str, ...]) -> bool:
    """Whether `said` holds one of `words` at the start of a word ("files" has "file", "profile" not)."""
    return any(re.search(rf"\b{re.escape(w)}", said) for w in words)


def _wanted(said: str, offered: list[str]) -> list[str]:
    if _has(said, _ALL):
        return [name for name in _ORDER if name in offered]
    return [name for name, words in _ASKS if _has(said, words)][:1]


def _reply_to(said: str, offered: list[str], count: int, serial: int) -> Turn:
    lowered = " ".join(said.lower().split())
    wanted = _wanted(lowered, offered)
    if wanted:
        missing = [w for w in wanted if w not in offered]
        if missing:
            return turn(
                f"This agent offers no `{missing[0]}` tool, so I cannot ask that here. "
                + (f"It does offer: {', '.join(offered)}." if offered else "It offers no prompts at all.")
            )
        names = [_NAMES[w] for w in wanted]
        kinds = names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"
        # Ids numbered by the request's length: unique in the history, the same on every run.
        calls = [
            tool_use(w, _arguments(w, count), id=f"{CALL_PREFIX}{serial:04d}_{i}")
            for i, w in enumerate(wanted)
        ]
        return turn(f"Sure, here is {kinds} (from my script).", *calls)
    if re.search(r"\b(hello|hi|hey)\b", lowered) and len(lowered) < 40:
        return turn(f"Hello! {_SCRIPTED}, but I can show you how prompts work. {CONVERSATION_HELP}")
    if _has(lowered, ("thank",)):
        return turn(f"You're welcome. {CONVERSATION_HELP}")
    if re.search(r"\b(bye|goodbye)\b", lowered):
        return turn("Goodbye! Set ANTHROPIC_API_KEY and run the notebook again to talk to Claude itself.")
    quoted = said.strip().replace("\n", " ")
    quoted = quoted if len(quoted) <= 80 else quoted[:79] + "…"
    return turn(
        f'Message {count} received: "{quoted}". {_SCRIPTED}; set ANTHROPIC_API_KEY to talk to Claude. '
        f"{CONVERSATION_HELP}"
    )


def converse(body: dict[str, Any]) -> Turn:
    """The next turn of the conversational demo for a request: a reply, or prompts on request."""
    messages = body.get("messages") or []
    offered = [str(t.get("name")) for t in body.get("tools") or [] if isinstance(t, dict)]
    last = messages[-1]["content"] if messages else ""
    blocks = [{"type": "text", "text": last}] if isinstance(last, str) else list(last)
    count = sum(1 for m in messages if m.get("role") == "user" and _texts(_listed(m.get("content"))))
    said = _texts(blocks)
    answers = _answers(messages, blocks)
    if said and said[-1].strip():
        reply = _reply_to(said[-1], offered, count, len(messages))
        if answers:  # a Stop closed the open calls, and the person wrote on
            first = reply.content[0]
            stopped = "You stopped me before that finished, so nothing changed. "
            reply.content[0] = {**first, "text": stopped + first["text"]}
        return reply
    if answers:
        summary = "; ".join(answers)
        return turn(f"Thanks: {summary}. (I am scripted, so that is all I do with it.) {CONVERSATION_HELP}")
    return turn(f"{_SCRIPTED}. {CONVERSATION_HELP}")


def _listed(content: Any) -> list[Any]:
    return [{"type": "text", "text": content}] if isinstance(content, str) else list(content or [])
