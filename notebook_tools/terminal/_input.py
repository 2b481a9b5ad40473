"""Where the person's keystrokes come from: a keyboard (prompt_toolkit) or plain lines (a pipe).

`Keyboard` reads a terminal with prompt_toolkit: line editing and history, a pre-filled default,
multiline text (Esc then Enter sends), path completion with Tab, and menus for choices. `Lines`
reads a stream one line at a time (stdin that is not a terminal, or a list in tests): each line
answers one question, choices are typed as numbers or letters, and the end of the input leaves.
Both raise the same exceptions: `CtrlC`, `EndOfInput` and `Skip` (see `_menu`).
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Protocol, TextIO

from prompt_toolkit import PromptSession
from prompt_toolkit.completion import PathCompleter
from prompt_toolkit.history import InMemoryHistory
from prompt_toolkit.input import Input
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.output import Output

from ._menu import CtrlC, EndOfInput, menu, parse_choice

__all__ = ["Keyboard", "Lines", "Reader"]


class Reader(Protocol):
    """What the chat needs from an input."""

    keyboard: bool
    """True when choices are menus driven by keys; False when they are typed as text."""

    async def line(
        self,
        message: str,
        *,
        default: str = "",
        multiline: bool = False,
        paths: Path | None = None,
        chat: bool = False,
    ) -> str:
        """One answer typed by the person (`default` when they just press Enter)."""
        ...

    async def choose(
        self,
        options: Sequence[str],
        *,
        multiple: bool = False,
        hotkeys: Mapping[str, int] | None = None,
        horizontal: bool = False,
        default: int = 0,
    ) -> list[int]:
        """The indexes of the chosen options."""
        ...


def _clear_on_ctrl_c() -> KeyBindings:
    """At the message prompt, Ctrl+C clears what was typed in place: the prompt is drawn once.

    (Ending the prompt left the interrupted line on screen and drew a second prompt under it.)
    """
    keys = KeyBindings()

    @keys.add("c-c")
    def _clear(event: KeyPressEvent) -> None:
        event.current_buffer.reset()

    return keys


_CLEAR_ON_CTRL_C = _clear_on_ctrl_c()


class Keyboard:
    """A terminal's keyboard through prompt_toolkit (or a pipe input and a dummy output, in tests)."""

    keyboard = True

    def __init__(self, input: Input | None = None, output: Output | None = None) -> None:
        self.input, self.output = input, output
        self.toolbar: Callable[[], str | None] | None = None
        """The bottom toolbar's text at the message prompt (None: no toolbar)."""
        self._chat = self._session(InMemoryHistory())
        self._answers = self._session(None)

    def _session(self, history: InMemoryHistory | None) -> PromptSession[str]:
        return PromptSession(
            input=self.input,
            output=self.output,
            history=history,
            interrupt_exception=CtrlC,
            eof_exception=EndOfInput,
        )

    async def line(
        self,
        message: str,
        *,
        default: str = "",
        multiline: bool = False,
        paths: Path | None = None,
        chat: bool = False,
    ) -> str:
        """Read a line with editing; Tab completes paths under `paths`."""
        session = self._chat if chat else self._answers
        if chat:
            session.bottom_toolbar = self.toolbar() if self.toolbar is not None else None
        completer = PathCompleter(get_paths=lambda: [str(paths)]) if paths is not None else None
        return await session.prompt_async(
            message,
            default=default,
            multiline=multiline,
            completer=completer,
            complete_while_typing=False,
            handle_sigint=False,
            key_bindings=_CLEAR_ON_CTRL_C if chat else None,
        )

    async def choose(
        self,
        options: Sequence[str],
        *,
        multiple: bool = False,
        hotkeys: Mapping[str, int] | None = None,
        horizontal: bool = False,
        default: int = 0,
    ) -> list[int]:
        """A menu: arrows, hotkeys or numbers, then Enter."""
        return await menu(
            options,
            multiple=multiple,
            hotkeys=hotkeys,
            horizontal=horizontal,
            default=default,
            input=self.input,
            output=self.output,
        )


class Lines:
    """Answers read a line at a time from a stream or a list of lines; each line read is echoed.

    Args:
        source: A text stream (read in a daemon thread, so a pending read never blocks exit) or
            an iterable of lines.
        write: Where prompts and echoed lines go (the screen).
    """

    keyboard = False

    def __init__(self, source: TextIO | Iterable[str], write: Callable[[str], None]) -> None:
        self.write = write
        self._stream = source if hasattr(source, "readline") else None
        self._lines: Iterator[str] | None = None if self._stream is not None else iter(source)
        self._queue: asyncio.Queue[str | None] | None = None

    async def _next(self) -> str:
        if self._lines is not None:
            await asyncio.sleep(0)
            found: str | None = next(self._lines, None)
        else:
            if self._queue is None:
                self._queue = asyncio.Queue()
                self._start(asyncio.get_running_loop(), self._queue)
            found = await self._queue.get()
        if found is None:
            self.write("\n")
            raise EndOfInput
        return found.rstrip("\r\n")

    def _start(self, loop: asyncio.AbstractEventLoop, queue: asyncio.Queue[str | None]) -> None:
        stream = self._stream
        assert stream is not None

        def pump() -> None:
            while True:
                text = stream.readline()
                loop.call_soon_threadsafe(queue.put_nowait, text or None)
                if not text:
                    return

        threading.Thread(target=pump, name="notebook_tools-stdin", daemon=True).start()

    async def line(
        self,
        message: str,
        *,
        default: str = "",
        multiline: bool = False,
        paths: Path | None = None,
        chat: bool = False,
    ) -> str:
        """One line (several for `multiline`, up to a line holding only "."); empty gives `default`."""
        hint = f"[{default}] " if default and not multiline else ""
        self.write(message + hint)
        text = await self._next()
        self.write(text + "\n")
        if multiline:
            lines = [] if text == "." else [text]
            while text != ".":
                text = await self._next()
                self.write(text + "\n")
                lines += [] if text == "." else [text]
            text = "\n".join(lines)
        return text if text else default

    async def choose(
        self,
        options: Sequence[str],
        *,
        multiple: bool = False,
        hotkeys: Mapping[str, int] | None = None,
        horizontal: bool = False,
        default: int = 0,
    ) -> list[int]:
        """Numbers (or a hotkey, or an option's label) typed on one line; asked again until valid."""
        key_of = {i: k for k, i in (hotkeys or {}).items()}
        if horizontal:
            keys = "/".join(f"{key_of.get(i, i + 1)}={o}" for i, o in enumerate(options))
        else:
            self.write("".join(f"  {key_of.get(i, i + 1)}) {o}\n" for i, o in enumerate(options)))
            keys = "/".join(hotkeys) if hotkeys else "number" + ("s, e.g. 1,3" if multiple else "")
        while True:
            text = await self.line(f"  ({keys}) > ")
            try:
                return parse_choice(text, options, multiple=multiple, hotkeys=hotkeys)
            except ValueError as exc:
                self.write(f"  ! {exc}\n")
