r"""JSON Schema `pattern`s matched in linear time: ECMA-262 regexes translated for RE2.

Python's `re` backtracks: `^(a+)+$` against `"aaaa…ab"` takes exponential time, so a schema from
a client could stall the worker checking one argument. RE2 (`google-re2`) matches in time linear
in the text, but does not do lookaround (`(?=`, `(?!`, `(?<=`, `(?<!`) nor backreferences (`\1`,
`\k<name>`), and takes repetition counts up to 1000. `to_re2` rewrites what ECMA-262 (the
dialect of JSON Schema) spells differently, so a pattern means what it means in a browser:

- `\uXXXX` (and surrogate pairs), `\u{X…}`, `\cX`, `\0` become RE2's `\x{…}`, `(?<name>` `(?P<name>`;
- `\s`/`\S` are ECMA's whitespace (no-break and Unicode spaces, U+FEFF, line terminators); `.`
  matches anything but `\n`, `\r`, U+2028 and U+2029; `[]` matches nothing and `[^]` anything;
- `\d`, `\w`, `\b` are ASCII as in ECMA (Python's `re` counted other scripts' digits and letters),
  and `$` is the end of the text only (Python's also matched before a final newline).

Untrusted schemas (AG-UI client tools, MCP servers' schemas) are refused up front when a pattern is
not one RE2 takes, or compiles to over `MAX_PROGRAM` instructions (`schema_pattern_problem`); a
pattern in a schema written in Python falls back to `re` when RE2 refuses it (`matcher`), so a
developer's lookahead still works, at their own risk.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from typing import Any

from .._exceptions import ToolDefinitionError

__all__ = [
    "MAX_PROGRAM",
    "NOT_LINEAR",
    "UnsupportedPattern",
    "is_regex",
    "matcher",
    "pattern_reason",
    "schema_pattern_problem",
    "search",
    "to_re2",
]

MAX_PROGRAM = 50_000
r"""The most RE2 instructions an untrusted pattern may compile to (`\p{L}` alone is about 1,200)."""
NOT_LINEAR = "lookaround and backreferences are not supported (patterns are matched in linear time with RE2)"
_ECMA_SPACE = r"\t\n\x0B\f\r \x{A0}\x{1680}\x{2000}-\x{200A}\x{2028}\x{2029}\x{202F}\x{205F}\x{3000}\x{FEFF}"
_DOT = r"[^\n\r\x{2028}\x{2029}]"
_ANY, _NONE = r"[\x00-\x{10FFFF}]", r"[^\x00-\x{10FFFF}]"
_LOOKAROUND = ("(?=", "(?!", "(?<=", "(?<!")
_HEX4 = re.compile(r"[0-9A-Fa-f]{4}")
UnsupportedPattern = ToolDefinitionError
"""What a pattern RE2 cannot match raises (the message says why, in a short sentence)."""
_BRACED = re.compile(r"\{([0-9A-Fa-f]{1,6})\}")
_SURROGATE = re.compile("[\ud800-\udfff]")


def to_re2(pattern: str) -> str:
    """`pattern` (ECMA-262) in RE2's syntax; UnsupportedPattern for lookaround and backreferences."""
    out: list[str] = []
    i, n, in_class = 0, len(pattern), False
    while i < n:
        ch = pattern[i]
        if ch == "\\" and i + 1 < n:
            text, i = _escape(pattern, i, in_class)
            out.append(text)
        elif in_class:
            in_class = ch != "]"
            out.append("\\[" if ch == "[" else ch)  # ECMA: a `[` in a class is itself (RE2: `[:alpha:]`)
            i += 1
        elif ch == "[":
            if pattern.startswith(("[]", "[^]"), i):
                empty = pattern[i + 1] == "]"
                out.append(_NONE if empty else _ANY)
                i += 2 if empty else 3
                continue
            negated = pattern.startswith("[^", i)
            out.append("[^" if negated else "[")
            i += 2 if negated else 1
            in_class = True
        elif pattern.startswith(_LOOKAROUND, i):
            raise UnsupportedPattern(NOT_LINEAR)
        elif pattern.startswith("(?<", i):  # a named group, spelled as every RE2 release takes it
            out.append("(?P<")
            i += 3
        else:
            out.append(_DOT if ch == "." else ch)
            i += 1
    return "".join(out)


def _escape(pattern: str, i: int, in_class: bool) -> tuple[str, int]:
    """The escape at `pattern[i]` (a backslash) in RE2's syntax, and where the pattern goes on."""
    c = pattern[i + 1]
    if c in "123456789" or pattern.startswith("k<", i + 1):
        raise UnsupportedPattern(NOT_LINEAR)
    if c == "u":
        if braced := _BRACED.match(pattern, i + 2):
            return f"\\x{{{braced.group(1)}}}", braced.end()
        if _HEX4.fullmatch(pattern, i + 2, i + 6):
            code = int(pattern[i + 2 : i + 6], 16)
            low = pattern[i + 6 : i + 12]
            if 0xD800 <= code < 0xDC00 and low[:2] == "\\u" and _HEX4.fullmatch(low, 2):
                second = int(low[2:], 16)
                if 0xDC00 <= second < 0xE000:  # a surrogate pair: one code point
                    return f"\\x{{{0x10000 + (code - 0xD800) * 0x400 + second - 0xDC00:X}}}", i + 12
            return f"\\x{{{code:X}}}", i + 6
        return "u", i + 2  # Annex B: `\u` not followed by hex digits is a `u`
    if c == "c" and i + 2 < len(pattern) and pattern[i + 2].isascii() and pattern[i + 2].isalpha():
        return f"\\x{{{ord(pattern[i + 2]) % 32:X}}}", i + 3
    if c == "0" and not pattern[i + 2 : i + 3].isdigit():
        return r"\x00", i + 2
    if c == "s":
        return (_ECMA_SPACE if in_class else f"[{_ECMA_SPACE}]"), i + 2
    if c == "S" and not in_class:  # (inside a class `\S` stays RE2's: ASCII spaces only)
        return f"[^{_ECMA_SPACE}]", i + 2
    if c == "b" and in_class:
        return r"\x08", i + 2  # a backspace in a class
    if c == "/":
        return "/", i + 2  # escaped for a JavaScript regex literal
    return pattern[i : i + 2], i + 2


@functools.lru_cache(maxsize=128)
def _compiled(pattern: str) -> Any:
    """RE2's program for `pattern` (UnsupportedPattern when RE2 cannot take it).

    At most 128 are kept: one takes up to RE2's `max_mem` (8 MiB; about 2.5 MB measured near it).
    The binding itself is used: `re2.compile(...).search` builds a match object, ten times slower.
    """
    import re2  # on first use, like jsonschema (see _schemas.validator)

    options = re2.Options()
    options.log_errors = False  # (it would write each refusal to stderr)
    options.never_capture = True
    try:
        compiled = re2._re2.RE2(to_re2(pattern).encode(), options)
    except UnicodeEncodeError:
        raise UnsupportedPattern("a lone surrogate is not a character RE2 can match") from None
    if not compiled.ok():
        said = compiled.error()
        said = said.decode(errors="replace") if isinstance(said, bytes) else str(said)
        if "repetition size" in said:
            raise UnsupportedPattern("repetition counts over 1000 are not supported (RE2)")
        raise UnsupportedPattern(f"not a regex RE2 can match ({said[:120]})")
    return compiled


@functools.lru_cache(maxsize=1024)
def pattern_reason(pattern: str) -> str | None:
    r"""Why an untrusted `pattern` is refused (a short sentence), or None when RE2 matches it quickly.

    Linear is not enough when the program is huge (`(?:[a-z]|\p{L}){80}$`: 95,000 instructions, whose
    states outgrow RE2's cache, took 0.7 s on 50,000 characters): at most `MAX_PROGRAM` instructions.
    """
    try:
        size = _compiled(pattern).ProgramSize()
    except UnsupportedPattern as exc:
        return str(exc)
    if size > MAX_PROGRAM:
        return f"too large to match quickly (RE2 makes {size:,} instructions of it, at most {MAX_PROGRAM:,})"
    return None


@functools.lru_cache(maxsize=128)
def matcher(pattern: str) -> Callable[[str], bool]:
    """Whether a text matches `pattern` anywhere (JSON Schema's `pattern`): RE2, else Python's `re`.

    The fallback is for trusted schemas only: an untrusted one never gets here with a pattern RE2
    refuses (`schema_pattern_problem` refused it first). A pattern neither compiles raises re.error.
    """
    try:
        compiled = _compiled(pattern)
    except UnsupportedPattern:
        python = re.compile(pattern).search
        return lambda text: python(text) is not None
    anywhere = type(compiled).Anchor.UNANCHORED

    def matches(text: str) -> bool:
        try:
            data = text.encode()
        except UnicodeEncodeError:  # a lone surrogate (JSON allows "\ud800"): not UTF-8, so U+FFFD
            data = _SURROGATE.sub("\ufffd", text).encode()
        return bool(compiled.Match(anywhere, data, 0, len(data))[0][0] >= 0)

    return matches


def search(pattern: str, text: str) -> bool:
    """Whether `text` matches `pattern` anywhere (compiled once: see `matcher`)."""
    return matcher(pattern)(text)


def is_regex(value: object) -> bool:
    """The `regex` format for checking schemas: a pattern RE2 or Python's `re` compiles (non-strings pass)."""
    if not isinstance(value, str) or pattern_reason(value) is None:
        return True
    try:
        re.compile(value)
    except (re.error, OverflowError, RecursionError):
        return False
    return True


def schema_pattern_problem(schema: Any, where: str) -> str | None:
    """The first pattern of an untrusted `schema` RE2 cannot match, as "where.path: why", or None.

    Every `pattern` string and `patternProperties` key anywhere in it is checked, also inside an
    `enum` or under an unknown keyword (a `$ref` may point there): a pattern validation could use
    is never left to Python's backtracking `re`.
    """
    todo: list[tuple[Any, str]] = [(schema, where)]
    while todo:
        node, path = todo.pop()
        if isinstance(node, list):
            todo += [(v, f"{path}.{i}") for i, v in reversed(list(enumerate(node)))]
            continue
        if not isinstance(node, dict):
            continue
        found = node.get("pattern")
        if isinstance(found, str) and (why := pattern_reason(found)):
            return f"{path}.pattern: {why}"
        keyed = node.get("patternProperties")
        for key in keyed if isinstance(keyed, dict) else ():
            if isinstance(key, str) and (why := pattern_reason(key)):
                return f"{path}.patternProperties[{key!r}]: {why}"
        todo += [(v, f"{path}.{k}") for k, v in reversed(list(node.items())) if isinstance(v, dict | list)]
    return None
