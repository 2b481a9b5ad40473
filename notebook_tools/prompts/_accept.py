"""Which files a file prompt takes: its `accept`, read one way by the listing, terminal and answer check.

`accept` is written by a model or an author, so it comes in several spellings: ".csv", "csv",
"*.csv", "CSV", "text/csv", "image/*", "*/*", comma-separated. Every spelling of an extension
means the same rule, and a MIME rule is checked against the type the file's name implies (what
the kernel knows of a file in its folder) as well as the type the browser declared for an upload.
"""

from __future__ import annotations

import mimetypes

__all__ = ["accept_rules", "accepts", "media_type_of"]


def media_type_of(name: str, declared: str = "") -> str:
    """The MIME type a file's name implies, else the declared one, else application/octet-stream."""
    return mimetypes.guess_type(name)[0] or declared or "application/octet-stream"


def accept_rules(accept: str) -> list[str]:
    """The rules of an `accept`, normalised: ".ext" (lower case), "type/sub", "type/*"; [] takes any file."""
    rules: list[str] = []
    for raw in str(accept).split(","):
        rule = raw.strip().lower()
        if rule in ("", "*", "*.*", "*/*"):
            if rule:
                return []  # a wildcard takes every file
            continue
        if rule.startswith("*."):
            rule = rule[1:]
        elif "/" not in rule and not rule.startswith("."):
            rule = "." + rule  # "csv" is the extension, not a MIME type
        rules.append(rule)
    return rules


def accepts(accept: str, name: str, media_type: str = "") -> bool:
    """Whether a file named `name` (of `media_type`, when known) fits `accept`."""
    rules = accept_rules(accept)
    if not rules:
        return True
    name = name.lower()
    types = {media_type.lower(), media_type_of(name).lower()} - {"", "application/octet-stream"}
    for rule in rules:
        if rule.startswith("."):
            if name.endswith(rule):
                return True
        elif rule.endswith("/*"):
            if any(t.startswith(rule[:-1]) for t in types):
                return True
        elif rule in types:
            return True
    return False
