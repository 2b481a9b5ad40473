"""Asking one prompt: from a `Prompt` to the answer the broker takes, in the widget's shapes.

confirm `{"value": "yes"|"no"}`, text and generic `{"value": str}`, select `{"value": [options]}`,
file `{"value": {"paths": [...]}}` (relative to the working directory), approval
`{"value": {"approved": ..., "remember": ...}}` (plus `"reason"` when denied and `"edited_input"`
when edited; `"remember": "scope"` for a tool with approval scopes), and `{"skip": true}` from Esc
or /skip. Nothing is checked here that the broker checks: its refusal is shown and the prompt asked
again. Edited approval arguments are checked against the tool's input schema as they are typed, so a
mistake is shown before anything is sent. An argument the schema marks as Python source
(`"contentMediaType": "text/x-python"`) is shown as coloured code and edited as several lines, as the
widget's approval card does (js/src/prompts/approval.ts).
"""

from __future__ import annotations

import json
import shlex
import webbrowser
from typing import Any

from rich import box
from rich.panel import Panel
from rich.syntax import Syntax
from rich.text import Text

from ..events._prompt import Prompt
from ..prompts._accept import accept_rules
from ..prompts._files import FileInbox
from ..tools._tool import Tool
from ._clean import clean
from ._commands import coerce_arg
from ._input import Reader
from ._menu import Skip
from ._render import Screen, code_arguments, short

__all__ = ["Asker"]

_SCALARS = {"string", "integer", "number", "boolean"}
_MAX_LISTED = 8
_CODE_END = {True: "Esc then Enter to finish", False: "a line holding only . ends it; . alone keeps it"}


class Asker:
    """Asks prompts through a reader and shows what is needed on a screen."""

    def __init__(self, reader: Reader, screen: Screen, tools: dict[str, Tool], files: FileInbox) -> None:
        self.reader, self.screen, self.tools, self.files = reader, screen, tools, files
        self.drafts: dict[str, dict[str, Any]] = {}
        """Edited approval arguments by tool_use_id, kept when an answer is refused."""
        self._code_shown: set[str] = set()
        """Approvals whose code was shown (asked again after a refusal, it is not shown twice)."""

    def details(self, prompt: Prompt) -> list[str]:
        """Lines of the prompt's card that help answering it."""
        args, keys = prompt.input, self.reader.keyboard
        if "server" in args and prompt.name.startswith("mcp_"):  # an MCP server's request: who asks, what
            return [f"{k.replace('_', ' ')}: {v}" for k, v in args.items() if k not in _NOT_SHOWN]
        if prompt.kind == "text":
            hint = [f"e.g. {args['placeholder']}"] if args.get("placeholder") else []
            if args.get("multiline"):
                hint.append(
                    "several lines: Esc then Enter sends" if keys else "end with a line holding only ."
                )
            return hint
        if prompt.kind == "select" and args.get("multiple"):
            return ["choose one or more"]
        if prompt.kind == "file":
            return self._file_details(args)
        if _a_form(prompt):  # a tool's own form (a consent card): what it shows, then its fields
            return [f"{k.replace('_', ' ')}: {v}" for k, v in args.items() if k not in _NOT_SHOWN]
        if prompt.kind == "generic" and prompt.output_schema:
            return [f"answer as: {short(prompt.output_schema, 200)}"]
        if prompt.kind == "approval" and prompt.reasons:
            return ["why it asks:", *(f"  • {reason}" for reason in prompt.reasons)]
        return []

    def _file_details(self, args: dict[str, Any]) -> list[str]:
        accept = accept_rules(str(args.get("accept", "")))
        found: list[str] = []
        try:  # the kernel's one reading of `accept` (extensions, and MIME types by the name)
            for entry in self.files.list_dir("", ",".join(accept)):
                if not entry["is_dir"]:
                    found.append(str(entry["path"]))
        except OSError:
            pass
        lines = [
            f"a path relative to {self.files.root}" + (" (Tab completes)" if self.reader.keyboard else "")
        ]
        if accept:
            lines.append(f"file types: {', '.join(accept)}")
        if args.get("multiple"):
            lines.append("several files: separate the paths with spaces (quote a path with spaces)")
        if found:
            more = f" … ({len(found) - _MAX_LISTED} more)" if len(found) > _MAX_LISTED else ""
            lines.append("here: " + ", ".join(found[:_MAX_LISTED]) + more)
        return lines

    async def answer(self, prompt: Prompt) -> dict[str, Any]:
        """The person's answer to `prompt` (`{"skip": true}` when they skip it)."""
        try:
            if prompt.kind == "approval":
                return {"value": await self._approval(prompt)}
            return {"value": await self._value(prompt)}
        except Skip:
            return {"skip": True}

    async def _value(self, prompt: Prompt) -> Any:
        args = prompt.input
        if prompt.renderer == "nt.open_url" and args.get("consent") is True:  # MCP: opened on consent only
            if await self.reader.choose(["Open the page in my browser", "Decline"], horizontal=True) != [0]:
                raise Skip
            webbrowser.open(str(args["url"]))
            return {"url": args["url"], "via": "button"}
        schema = prompt.output_schema or {}
        if _a_form(prompt):  # an MCP form, a consent card: field by field
            return json.dumps(await self._form(schema), ensure_ascii=False)
        if prompt.kind == "confirm":
            labels = [str(args.get("confirm_label") or "Yes"), str(args.get("deny_label") or "No")]
            chosen = await self.reader.choose(labels, hotkeys={"y": 0, "n": 1}, horizontal=True)
            return "yes" if chosen == [0] else "no"
        if prompt.kind == "select":
            options = [str(o) for o in args.get("options", [])]
            chosen = await self.reader.choose(options, multiple=bool(args.get("multiple")))
            return [options[i] for i in chosen]
        if prompt.kind == "file":
            text = _typed(await self.reader.line("  path > ", paths=self.files.root)).strip()
            paths = shlex.split(text) if args.get("multiple") else [text]
            return {"paths": [p for p in paths if p]}
        multiline = prompt.kind == "text" and bool(args.get("multiline"))
        default = str(args.get("default", "")) if prompt.kind == "text" else ""
        return _typed(await self.reader.line("  > ", default=default, multiline=multiline))

    async def _approval(self, prompt: Prompt) -> dict[str, Any]:
        if prompt.tool_use_id not in self._code_shown:
            self._code_shown.add(prompt.tool_use_id)
            if prompt.preview is not None:  # what will run (the diff, the command), before its arguments
                self.screen.show(preview_panel(prompt.preview.kind, prompt.preview.text))
            self._show_code(prompt, prompt.input)
        while True:
            edited = self.drafts.get(prompt.tool_use_id)
            if edited is not None:
                rest = self._show_code(prompt, edited, " (edited)")
                if rest or not code_arguments(prompt.input_schema, edited):
                    self.screen.line(f"  edited arguments: {json.dumps(rest, ensure_ascii=False)}", "cyan")
            # (what each choice is, its hotkey, its label): "edit" only where the card takes edits
            choices = [
                ("approve", "a", "Approve with these arguments" if edited is not None else "Approve"),
                ("deny", "d", "Deny"),
                *([("edit", "e", "Edit the arguments")] if prompt.editable else []),
                ("arguments", "r", "Approve, and remember these arguments for this session"),
                ("tool", "t", f"Approve, and remember every {prompt.name} call for this session"),
            ]
            if prompt.scope:  # the kernel refuses "scope" for a tool without scopes: offered only with one
                choices.append(("scope", "s", f"Approve, and remember for {prompt.scope} for this session"))
            options = [label for _, _, label in choices]
            hotkeys = {key: n for n, (_, key, _) in enumerate(choices)}
            chosen = choices[(await self.reader.choose(options, hotkeys=hotkeys))[0]][0]
            if chosen == "deny":
                reason = await self.reader.line("  reason (optional; the model sees it) > ")
                return {"approved": False, "reason": reason.strip(), "remember": None}
            if chosen == "edit":
                self.drafts[prompt.tool_use_id] = await self._edit(prompt, edited or prompt.input)
                continue
            remember = None if chosen == "approve" else chosen
            if edited is None:
                return {"approved": True, "remember": remember}
            return {"approved": True, "edited_input": edited, "remember": remember}

    def _show_code(self, prompt: Prompt, args: dict[str, Any], note: str = "") -> dict[str, Any]:
        """Show `args`' Python arguments as numbered code (reasons name lines); returns the others."""
        code = code_arguments(prompt.input_schema, args)
        for name in code:
            self.screen.show(code_panel(args[name], f"{name}{note}"))
        return {k: v for k, v in args.items() if k not in code}

    async def _edit(self, prompt: Prompt, current: dict[str, Any]) -> dict[str, Any]:
        """New arguments: Python ones as lines, then a prompt per field (flat schema) or JSON.

        Each Python argument is typed as several lines; the other arguments get one prompt per field
        for a flat schema, else a JSON editor.
        """
        found = self.tools.get(prompt.name)
        schema = prompt.input_schema or (found.input_schema if found else {}) or {}
        current = as_the_form_starts(schema, current)
        code = code_arguments(schema, current)
        texts: dict[str, str] = {}
        for name in code:
            texts[name] = await self.reader.line(
                f"  {name} (Python; {_CODE_END[self.reader.keyboard]})\n",
                default=current[name],
                multiline=True,
            )
        props: dict[str, Any] = {k: v for k, v in schema.get("properties", {}).items() if k not in code}
        rest = {k: v for k, v in current.items() if k not in code}
        if code and not props and not rest:
            edited: dict[str, Any] = {}
        elif props and all(p.get("type") in _SCALARS for p in props.values()):
            edited = {}
            for name, prop in props.items():
                value = await self.field(name, prop, rest.get(name), name in schema.get("required", []))
                if value is not _OMIT:
                    edited[name] = value
        else:
            text = await self.reader.line(
                "  arguments as JSON" + (" (Esc then Enter to finish) > " if self.reader.keyboard else " > "),
                default=json.dumps(rest, indent=2, ensure_ascii=False),
                multiline=True,
            )
            try:
                edited = json.loads(text)
            except ValueError as exc:
                self.screen.problem(f"not JSON: {exc}; the arguments are unchanged")
                return {**current, **texts}
            if not isinstance(edited, dict):
                self.screen.problem("the arguments must be a JSON object; they are unchanged")
                return {**current, **texts}
        if texts:  # in the schema's order, as the widget sends them
            order = [*schema.get("properties", {}), *edited]
            merged = {**edited, **texts}
            edited = {k: merged[k] for k in dict.fromkeys(order) if k in merged}
        errors = found.input_errors(edited) if found is not None else []
        if errors:
            self.screen.problem("these arguments do not fit the tool: " + "; ".join(errors))
        return edited

    async def field(self, name: str, prop: dict[str, Any], value: Any, required: bool) -> Any:
        """One argument typed as text and coerced by its schema (asked again until it fits; /skip skips)."""
        kind = prop.get("type", "")
        options = _options(prop)  # typed as a value or as its title
        named = [f"{v} ({t})" if str(v) != t else t for v, t in options]
        choices = f", one of: {', '.join(named)}" if options else ""
        shown = "" if value is None else value if isinstance(value, str) else json.dumps(value)
        while True:
            text = _typed(await self.reader.line(f"  {name} ({kind}{choices}) > ", default=shown))
            if text == "" and not required:
                return _OMIT
            text = next((str(v) for v, t in options if t.lower() == text.strip().lower()), text)
            try:
                return coerce_arg(text, prop)
            except ValueError as exc:
                self.screen.problem(f"{name}: {exc}")

    async def _form(self, schema: dict[str, Any]) -> dict[str, Any]:
        answer: dict[str, Any] = {}
        for name, prop in schema.get("properties", {}).items():
            if prop.get("type") == "array":  # a multi-select, chosen by its titles
                options = _options(prop.get("items") or {})
                self.screen.line(f"  {prop.get('title') or name}:")
                chosen = await self.reader.choose([title for _, title in options], multiple=True)
                answer[name] = [options[i][0] for i in chosen]
                continue
            value = await self.field(name, prop, prop.get("default"), name in schema.get("required", []))
            if value is not _OMIT:
                answer[name] = value
        return answer


_OMIT = object()


def code_panel(code: str, title: str) -> Panel:
    """Python in a titled box, coloured and numbered, whole: it is what the person approves."""
    text = clean(code).rstrip("\n")
    body = Syntax(text, "python", line_numbers=True, word_wrap=True, background_color="default")
    label = Text(clean(title), style="dim")
    return Panel(body, title=label, title_align="left", box=box.ROUNDED, expand=False)


_PREVIEW_TITLES = {
    "diff": "the change to approve",
    "command": "the command to approve",
    "text": "what will run",
}


def preview_panel(kind: str, preview: str) -> Panel:
    """An approval's preview in a titled box, whole: a diff with its added and removed lines coloured."""
    body = Text()
    in_hunks = False  # after a hunk, `--- x` is a removed line `-- x` (a SQL comment), not a file header
    for line in clean(preview).split("\n"):
        style = ""
        if kind == "diff":
            if not in_hunks and line.startswith(("+++ ", "--- ")):
                style = "bold"
            elif line.startswith("@@"):
                style = "cyan"
            elif line.startswith("+"):
                style = "green"
            elif line.startswith("-"):
                style = "red"
            in_hunks = in_hunks or line.startswith("@@")
        body.append(line + "\n", style=style)
    body.rstrip()
    label = Text(_PREVIEW_TITLES.get(kind, "what will run"), style="dim")
    return Panel(body, title=label, title_align="left", box=box.ROUNDED, expand=False)


def _options(prop: dict[str, Any]) -> list[tuple[Any, str]]:
    """A select's options as (value, what the person reads): titled consts, or an enum (its enumNames)."""
    branches = prop.get("oneOf") or prop.get("anyOf")
    if isinstance(branches, list):
        return [
            (b["const"], str(b.get("title") or b["const"]))
            for b in branches
            if isinstance(b, dict) and "const" in b
        ]
    values, names = prop.get("enum"), prop.get("enumNames")
    if not isinstance(values, list):
        return []
    if not (isinstance(names, list) and len(names) == len(values)):
        names = values
    return [(v, str(n)) for v, n in zip(values, names, strict=True)]


_NOT_SHOWN = {"message", "consent", "confirm_label", "deny_label"}


def _a_form(prompt: Prompt) -> bool:
    """A generic prompt answered with an object: its schema asked field by field, as the widget's form."""
    schema = prompt.output_schema or {}
    return prompt.kind == "generic" and schema.get("type") == "object" and bool(schema.get("properties"))


def as_the_form_starts(schema: dict[str, Any], current: dict[str, Any]) -> dict[str, Any]:
    """The arguments as the widget's edit form starts them (js/src/form/form.ts).

    So an edit that changes one field sends what the widget sends: every property of the schema,
    in the schema's order, with the call's value, else the property's default; a boolean always
    (a checkbox is never empty: false when unset); a whole `number` as an integer (the form shows
    1.0 as "1" and sends 1). Arguments the schema does not name are dropped, as the form has no
    field for them. Without properties, `current` is kept.
    """
    props: dict[str, Any] = schema.get("properties") or {}
    if not props:
        return dict(current)
    start: dict[str, Any] = {}
    for name, prop in props.items():
        value = current[name] if name in current else prop.get("default", _OMIT)
        if prop.get("type") == "boolean" and not prop.get("enum"):
            value = isinstance(value, list | dict) or (value is not _OMIT and bool(value))
        elif prop.get("type") == "number" and isinstance(value, float):
            value = _whole(value)
        if value is not _OMIT:
            start[name] = value
    return start


def _whole(value: float) -> float | int:
    return int(value) if value.is_integer() and abs(value) < 2**53 else value


def _typed(text: str) -> str:
    if text.strip() == "/skip":
        raise Skip
    return text
