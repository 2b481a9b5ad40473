"""A keyboard menu for confirm, select and approval prompts (prompt_toolkit), and its text parser.

The menu shows the options with a highlight: arrow keys (or Tab) move it, a hotkey letter (y/n
for a confirm) or an option's number jumps to it, Space toggles an option when several may be
chosen, and Enter accepts. Numbers typed with commas ("1,3") are read as the choice, exactly as
a line typed without a terminal is (`parse_choice`), so both ways answer the same way. Esc skips;
Ctrl+C and Ctrl+D raise `CtrlC` and `EndOfInput` (never KeyboardInterrupt, which asyncio would
re-raise out of the event loop).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from prompt_toolkit.application import Application
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.input import Input
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.layout import FormattedTextControl, Layout, Window
from prompt_toolkit.output import Output

from .._exceptions import CtrlC, EndOfInput, InvalidInput, Skip

__all__ = ["CtrlC", "EndOfInput", "Skip", "menu", "parse_choice"]


def parse_choice(
    text: str, options: Sequence[str], *, multiple: bool = False, hotkeys: Mapping[str, int] | None = None
) -> list[int]:
    """The chosen option indexes for a typed answer: a hotkey, an option's label, or numbers ("1,3").

    Raises:
        Skip: the answer is "/skip".
        InvalidInput: nothing valid was chosen (the message says what to type).
    """
    value = text.strip()
    if value == "/skip":
        raise Skip
    if value.lower() in (hotkeys or {}):
        return [(hotkeys or {})[value.lower()]]
    labels = [o.lower() for o in options]
    if value.lower() in labels:
        return [labels.index(value.lower())]
    words = [w for w in value.replace(",", " ").split() if w]
    if not words or not all(w.isdigit() for w in words):
        keys = "/".join(hotkeys) if hotkeys else f"a number from 1 to {len(options)}"
        raise InvalidInput(f"type {keys}" + (", or several separated by commas" if multiple else ""))
    chosen: list[int] = []
    for word in words:
        number = int(word)
        if not 1 <= number <= len(options):
            raise InvalidInput(f"{number} is not an option: choose from 1 to {len(options)}")
        if number - 1 not in chosen:
            chosen.append(number - 1)
    if len(chosen) > 1 and not multiple:
        raise InvalidInput("choose one option")
    return sorted(chosen)  # in the options' order, as the widget sends them


class _Menu:
    def __init__(
        self,
        options: Sequence[str],
        multiple: bool,
        hotkeys: Mapping[str, int],
        horizontal: bool,
        default: int,
    ) -> None:
        self.options, self.multiple, self.hotkeys, self.horizontal = (
            list(options),
            multiple,
            hotkeys,
            horizontal,
        )
        self.current = default
        self.toggled: list[int] = []
        self.typed = ""
        self.problem = ""

    def lines(self) -> StyleAndTextTuples:
        parts: StyleAndTextTuples = []
        key_of = {i: k for k, i in self.hotkeys.items()}
        for i, option in enumerate(self.options):
            here = i == self.current
            box = ("[x] " if i in self.toggled else "[ ] ") if self.multiple else ""
            label = f" {option} " if self.horizontal else f"{key_of.get(i, i + 1)}) {option}"
            parts.append(("reverse" if here else "", f"{'>' if here else ' '} {box}{label}"))
            parts.append(("", "   " if self.horizontal else "\n"))
        keys = "/".join(self.hotkeys) if self.hotkeys else "number"
        hint = f"{keys}, arrows, " + ("Space toggles, numbers like 1,3, " if self.multiple else "")
        parts.append(("italic", f"{'' if self.horizontal else '  '}({hint}Enter accepts, Esc skips)"))
        if self.typed:
            parts.append(("", f"\n  choice: {self.typed}"))
        if self.problem:
            parts.append(("bold", f"\n  ! {self.problem}"))
        return parts

    def move(self, step: int) -> None:
        self.current = (self.current + step) % len(self.options)

    def key(self, char: str) -> None:
        self.problem = ""
        if char in self.hotkeys:
            self.current, self.typed = self.hotkeys[char], ""
        elif char.isdigit() or char == ",":
            self.typed += char
            numbers = self.typed.split(",")
            if not self.multiple and numbers[-1].isdigit() and 1 <= int(numbers[-1]) <= len(self.options):
                self.current = int(numbers[-1]) - 1

    def accept(self) -> list[int] | None:
        if self.typed:
            try:
                return parse_choice(self.typed, self.options, multiple=self.multiple)
            except ValueError as exc:
                self.problem, self.typed = str(exc), ""
                return None
        if self.multiple and self.toggled:
            return sorted(self.toggled)
        return [self.current]


async def menu(
    options: Sequence[str],
    *,
    multiple: bool = False,
    hotkeys: Mapping[str, int] | None = None,
    horizontal: bool = False,
    default: int = 0,
    input: Input | None = None,
    output: Output | None = None,
) -> list[int]:
    """Let the person choose with the keyboard; returns the chosen indexes (erased from the screen when done).

    Raises:
        Skip: Esc.
        CtrlC: Ctrl+C.
        EndOfInput: Ctrl+D.
    """
    state = _Menu(options, multiple, dict(hotkeys or {}), horizontal, default)
    keys = KeyBindings()
    app: Application[list[int]]

    @keys.add("up")
    @keys.add("left")
    @keys.add("s-tab")
    def _back(event: KeyPressEvent) -> None:
        state.move(-1)

    @keys.add("down")
    @keys.add("right")
    @keys.add("tab")
    def _forward(event: KeyPressEvent) -> None:
        state.move(1)

    @keys.add("space")
    def _toggle(event: KeyPressEvent) -> None:
        if state.multiple:
            pick = state.current
            state.toggled = [i for i in state.toggled if i != pick] + (
                [] if pick in state.toggled else [pick]
            )

    @keys.add("backspace")
    def _erase(event: KeyPressEvent) -> None:
        state.typed = state.typed[:-1]

    @keys.add("enter")
    def _accept(event: KeyPressEvent) -> None:
        chosen = state.accept()
        if chosen is not None:
            event.app.exit(result=chosen)

    @keys.add("escape", eager=True)
    def _skip(event: KeyPressEvent) -> None:
        event.app.exit(exception=Skip())

    @keys.add("c-c")
    def _interrupt(event: KeyPressEvent) -> None:
        event.app.exit(exception=CtrlC())

    @keys.add("c-d")
    def _leave(event: KeyPressEvent) -> None:
        event.app.exit(exception=EndOfInput())

    @keys.add("<any>")
    def _other(event: KeyPressEvent) -> None:
        state.key(event.data.lower())

    control = FormattedTextControl(state.lines, focusable=True, show_cursor=False)
    app = Application(
        layout=Layout(Window(control, dont_extend_height=True)),
        key_bindings=keys,
        erase_when_done=True,
        input=input,
        output=output,
    )
    return await app.run_async(handle_sigint=False)
