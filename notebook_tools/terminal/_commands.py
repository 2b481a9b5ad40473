"""Slash commands of the terminal, parsed exactly as the widget's input box parses them.

`/help`, `/tools`, `/clear`, `/status`, `/plugins`, `/expand NAME`, `/collapse NAME`,
`/tool NAME --arg value`, `/NAME --arg value` (a port of
`parseSlash`, `splitWords` and `coerceArg` in js/src/chat/slash.ts, so both front ends read a command
the same way), plus the terminal's own `/exit` (and `/quit`), `/retry` and `/continue`. Arguments are text
until `coerce_args` turns each into the type the tool's input schema asks for.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field
from typing import Any, Literal

from .._exceptions import InvalidInput

__all__ = ["HELP", "SlashCommand", "coerce_arg", "coerce_args", "parse_slash", "split_words"]

HELP = """\
/help                      this help
/tools                     the tools, and which you can run by hand
/tool NAME --arg value     run a tool by hand (also: /NAME --arg value; --flag alone means true)
/plugins                   the plugins, expanded or not, and their skills
/expand NAME               offer a plugin's tools to the model (told with your next message)
/collapse NAME             fold a plugin's tools back into one (told with your next message)
/status                    session, model, token counts, open prompts
/clear                     start a new session
/retry                     request again after a turn failed
/continue                  carry on a reply that was cut off (max_tokens) or paused
/exit                      leave (also Ctrl+D); Ctrl+C stops a running turn
In a prompt: Enter answers, Esc (or /skip) skips; the model is told you skipped."""

CommandKind = Literal[
    "help", "tools", "clear", "status", "exit", "retry", "continue", "plugins", "expand", "collapse", "tool",
    "error",
]  # fmt: skip
_SIMPLE = {"help", "tools", "clear", "status", "exit", "quit", "retry", "continue", "plugins"}
_WORD = re.compile(r'"((?:[^"\\]|\\.)*)"|\'([^\']*)\'|(\S+)')


@dataclass
class SlashCommand:
    """One parsed command: its kind, and for "tool" the tool's name and its arguments as text."""

    kind: CommandKind
    name: str = ""
    args: dict[str, str] = field(default_factory=dict)
    message: str = ""
    """Why the line is not a valid command (kind "error")."""


def split_words(line: str) -> list[str]:
    """Split a command line into words, keeping "quoted strings" together."""
    words = []
    for match in _WORD.finditer(line):
        double, single, bare = match.groups()
        words.append(re.sub(r"\\(.)", r"\1", double) if double is not None else single or bare or "")
    return words


def parse_slash(line: str) -> SlashCommand | None:
    """Parse a slash command; None for a plain message."""
    text = line.strip()
    if not text.startswith("/"):
        return None
    words = split_words(text[1:])
    if not words:
        return SlashCommand("help")
    head, rest = words[0], words[1:]
    if head in _SIMPLE:
        if rest:
            return SlashCommand("error", message=f"/{head} takes no arguments")
        return SlashCommand("exit" if head == "quit" else head)  # type: ignore[arg-type]
    if head in ("expand", "collapse"):
        if len(rest) != 1 or rest[0].startswith("--"):
            return SlashCommand("error", message=f"usage: /{head} NAME")
        return SlashCommand(head, name=rest[0])  # type: ignore[arg-type]
    name = head
    if head == "tool":
        if not rest or rest[0].startswith("--"):
            return SlashCommand("error", message="usage: /tool NAME --arg value")
        name, rest = rest[0], rest[1:]
    args: dict[str, str] = {}
    i = 0
    while i < len(rest):
        word = rest[i]
        if not word.startswith("--") or len(word) < 3:
            return SlashCommand("error", message=f'expected --name before "{word}"')
        eq = word.find("=")
        if eq > 2:
            args[word[2:eq]] = word[eq + 1 :]
        elif i + 1 < len(rest) and not rest[i + 1].startswith("--"):
            i += 1
            args[word[2:]] = rest[i]
        else:
            args[word[2:]] = "true"
        i += 1
    return SlashCommand("tool", name=name, args=args)


def coerce_arg(text: str, prop: dict[str, Any] | None = None) -> Any:
    """A text value as the type a JSON-schema property asks for.

    Raises:
        ValueError: the text is not of that type (the message says why).
    """
    value = text.strip()
    kind = (prop or {}).get("type")
    if kind == "integer":
        if not re.fullmatch(r"-?\d+", value):
            raise InvalidInput(f'"{text}" is not a whole number')
        return int(value)
    if kind == "number":  # as JavaScript's Number: a whole number is an integer in JSON ("2.0" is 2)
        try:
            number = float(value)
        except ValueError:
            number = math.nan
        if not math.isfinite(number):
            _fail(text, "is not a number")
        return int(number) if number.is_integer() and abs(number) < 2**53 else number
    if kind == "boolean":
        if value.lower() in ("true", "yes", "1"):
            return True
        if value.lower() in ("false", "no", "0"):
            return False
        _fail(text, "is not true or false")
    if kind == "string":
        return text
    try:
        return json.loads(value)
    except ValueError:
        return text


def coerce_args(args: dict[str, str], schema: dict[str, Any] | None) -> dict[str, Any]:
    """Every argument coerced by the input schema's properties.

    Raises:
        ValueError: an argument does not fit (the message names it).
    """
    props = (schema or {}).get("properties", {})
    coerced = {}
    for name, text in args.items():
        try:
            coerced[name] = coerce_arg(text, props.get(name))
        except ValueError as exc:
            raise InvalidInput(f"--{name}: {exc}") from None
    return coerced


def _fail(text: str, why: str) -> Any:
    raise InvalidInput(f'"{text}" {why}')
