"""What a terminal shows: `python -m notebook_tools chat` in a real terminal emulator (tmux), 40 columns.

tmux keeps the screen as a person sees it (pexpect sees the byte stream, where prompt_toolkit
redraws lines many times over), so these tests read the screen itself: after Ctrl+C the prompt is
there once, and a long reply is wrapped at spaces by the chat, never cut mid-word by the terminal.
Every wait is on the screen showing something; the ceiling only ends a hung run, with the screen.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from rich.cells import cell_len

from notebook_tools.terminal._wrap import TakeBack, WordWrap

ROOT = Path(__file__).resolve().parents[2]
WIDTH = 40
CEILING = 300.0  # a safety net for a hung run, never the pass condition


class Tmux:
    """A tmux server of the test's own (its socket in the test's folder), one window running `command`."""

    def __init__(self, socket: Path, cwd: Path, command: list[str], env: dict[str, str]) -> None:
        self.base = ["tmux", "-S", str(socket)]
        exports = " ".join(f"{k}={v}" for k, v in env.items())
        line = f"env {exports} {' '.join(command)}; echo '[exited]'; sleep 600"
        # The window gets its size first, then the chat starts in it (a command started with the
        # session can read the default 80 columns before the window shrinks).
        size = ["-x", str(WIDTH), "-y", "50"]
        run = lambda *args: subprocess.run([*self.base, *args], check=True)  # noqa: E731
        run("-f", "/dev/null", "new-session", "-d", *size, "-c", str(cwd), "sleep 600")
        run("set-option", "-g", "window-size", "manual")
        run("resize-window", *size)
        run("respawn-pane", "-k", "-c", str(cwd), line)

    def screen(self, joined: bool = False) -> list[str]:
        flags = ["-J"] if joined else []
        done = subprocess.run(
            [*self.base, "capture-pane", "-p", *flags], capture_output=True, text=True, check=True
        )
        lines = [line.rstrip() for line in done.stdout.split("\n")]
        while lines and not lines[-1]:
            lines.pop()
        return lines

    def keys(self, *keys: str) -> None:
        subprocess.run([*self.base, "send-keys", *keys], check=True)

    def until(self, what: str, ready: Callable[[list[str]], bool]) -> list[str]:
        deadline = time.monotonic() + CEILING
        while True:
            lines = self.screen()
            if ready(lines):
                return lines
            if time.monotonic() > deadline:
                raise AssertionError(f"the screen never showed {what}; it shows:\n" + "\n".join(lines))
            time.sleep(0.05)

    def close(self) -> None:
        subprocess.run([*self.base, "kill-server"], capture_output=True)


@pytest.fixture
def terminal(tmp_path: Path) -> Iterator[Tmux]:
    if shutil.which("tmux") is None:
        pytest.fail("tmux is needed for the terminal screen tests (apt-get install tmux)")
    env = {"NO_COLOR": "1", "PROMPT_TOOLKIT_NO_CPR": "1", "PYTHONPATH": str(ROOT), "TERM": "screen"}
    command = [
        "env",
        "-u",
        "ANTHROPIC_API_KEY",
        "-u",
        "COLUMNS",
        "-u",
        "LINES",
        sys.executable,
        "-m",
        "notebook_tools",
        "chat",
    ]
    tmux = Tmux(tmp_path / "tmux.sock", tmp_path, command, env)
    try:
        yield tmux
    finally:
        tmux.close()


def prompts(lines: list[str]) -> int:
    return sum(1 for line in lines if line.startswith("you>"))


def test_ctrl_c_at_the_message_prompt_leaves_one_prompt(terminal: Tmux) -> None:
    terminal.until("the message prompt", lambda lines: prompts(lines) == 1)
    terminal.keys("half a thought")
    terminal.until("the typed text", lambda lines: lines[-1] == "you> half a thought")
    terminal.keys("C-c")
    lines = terminal.until("the cleared prompt", lambda lines: lines[-1] == "you>")
    assert prompts(lines) == 1, "\n".join(lines)
    terminal.keys("C-c")  # on an empty line too
    terminal.keys("/status", "Enter")  # the prompt still takes a command after both
    lines = terminal.until("the status", lambda lines: prompts(lines) == 2 and lines[-1] == "you>")
    assert [line for line in lines if line.startswith("you>")] == ["you> /status", "you>"]


def test_a_long_reply_wraps_at_spaces_to_the_terminal_width(terminal: Tmux) -> None:
    terminal.until("the message prompt", lambda lines: prompts(lines) == 1)
    terminal.keys("hello", "Enter")
    lines = terminal.until("the reply", lambda lines: prompts(lines) == 2 and lines[-1] == "you>")
    reply = lines[lines.index("you> hello") + 1 : -1]
    assert len(reply) >= 5, "\n".join(lines)  # a reply of several lines at 40 columns
    assert all(cell_len(line) <= WIDTH for line in lines)
    # every line break is the chat's own, at a space: the terminal wrapped nothing (tmux joins
    # the lines it wrapped itself when asked with -J, so the two captures would differ)
    assert terminal.screen(joined=True) == lines
    assert any(cell_len(line) >= WIDTH - 12 for line in reply)  # lines are filled, not broken early


# -- the wrapping itself ------------------------------------------------------------------------


def wrapped(pieces: list[str], width: int) -> str:
    """What a terminal shows for `pieces` streamed through WordWrap (a take-back erases cells)."""
    wrap, screen = WordWrap(), ""
    for piece in pieces:
        for part in wrap.feed(piece, width):
            if isinstance(part, TakeBack):
                taken = 0
                while taken < part.cells:
                    taken += cell_len(screen[-1])
                    screen = screen[:-1]
            else:
                screen += part
    return "\n".join(line.rstrip() for line in screen.split("\n"))


def test_streamed_pieces_wrap_at_spaces_whatever_the_pieces() -> None:
    text = "The quick brown fox jumps over the lazy dog, then naps in the warm afternoon sun."
    expected = "The quick brown fox jumps\nover the lazy dog, then naps\nin the warm afternoon sun."
    for size in (1, 2, 3, 7, len(text)):
        pieces = [text[i : i + size] for i in range(0, len(text), size)]
        assert wrapped(pieces, 28) == expected, size


def test_newlines_indents_long_words_and_wide_characters() -> None:
    assert wrapped(["line one\n  indented two"], 40) == "line one\n  indented two"
    assert wrapped(["a " + "x" * 25], 10) == "a\n" + "x" * 10 + "\n" + "x" * 10 + "\n" + "x" * 5
    assert wrapped(["ab 日本語 日本語"], 9) == "ab 日本語\n日本語"  # two cells each
    assert wrapped(["trailing spaces   \nnext"], 16) == "trailing spaces\nnext"
    wrap = WordWrap()
    assert wrap.feed("shown at once: wor", 40) == ["shown", " ", "at", " ", "once:", " ", "wor"]
    assert wrap.feed("d", 40) == ["d"] and wrap.column == len("shown at once: word")
    # a word that outgrows its line is taken back and printed again on the next one
    wrap = WordWrap()
    assert wrap.feed("abc de", 7) == ["abc", " ", "de"]
    assert wrap.feed("fgh", 7) == [TakeBack(2), "\n", "de", "fgh"] and wrap.column == 5
