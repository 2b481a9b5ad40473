"""Streamed text wrapped at word boundaries to the terminal's width.

The model's reply arrives in pieces that split words anywhere; printed as they came, the terminal
broke each line where its width ended, mid-word. `WordWrap` places each word: on the current line
when it fits, else at the start of the next one (the spaces before it dropped). Text is shown as it
arrives: a word that starts on a line and then grows past its end is taken back (`TakeBack`: the
cursor moves back over it and the rest of the line is erased) and printed again on the next line.
Only a word longer than a whole line is cut. Widths are terminal cells (a CJK character takes two).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from rich.cells import cell_len

__all__ = ["TakeBack", "WordWrap"]

_PIECES = re.compile(r"\n|[ \t]+|[^ \t\n]+")


@dataclass(frozen=True)
class TakeBack:
    """Move the cursor back `cells` and erase to the end of the line."""

    cells: int


class WordWrap:
    """Where streamed text stands on the current line, and the word being streamed."""

    def __init__(self) -> None:
        self.column = 0
        """Cells printed on the current line."""
        self._spaces = ""  # after a word, held until the next word shows whether it fits
        self._word = ""  # the word being streamed, as printed so far
        self._start = 0  # the column it starts at

    @property
    def mid_line(self) -> bool:
        """Whether the cursor is in the middle of a line."""
        return self.column > 0

    def feed(self, text: str, width: int) -> list[str | TakeBack]:
        """What to print for `text`, in order."""
        width = max(width, 1)
        out: list[str | TakeBack] = []
        for piece in _PIECES.findall(text.replace("\r", "")):
            if piece == "\n":
                out.append("\n")
                self.column, self._spaces, self._word = 0, "", ""
            elif piece[0] in " \t":
                self._word = ""
                self._spaces += piece.replace("\t", "    ")
            else:
                self._grow(piece, width, out)
        return out

    def newline(self) -> None:
        """The line was ended outside `feed` (a newline printed by someone else)."""
        self.column, self._spaces, self._word = 0, "", ""

    def _grow(self, piece: str, width: int, out: list[str | TakeBack]) -> None:
        if not self._word:  # a new word: after the held spaces, or on the next line
            if self.column and self.column + cell_len(self._spaces) + cell_len(piece) > width:
                out.append("\n")
                self.column = 0
            elif self._spaces:
                out.append(self._spaces)
                self.column += cell_len(self._spaces)
            self._spaces, self._start = "", self.column
        elif self._start and self.column + cell_len(piece) > width >= cell_len(self._word + piece):
            # the word outgrew its line but fits on a line of its own: take it back, move it down
            out += [TakeBack(self.column - self._start), "\n", self._word]
            self.column, self._start = cell_len(self._word), 0
        self._word += piece
        chars: list[str] = []
        for char in piece:  # cut only a word longer than a whole line
            size = cell_len(char)
            if self.column and self.column + size > width:
                chars.append("\n")
                self.column = 0
            chars.append(char)
            self.column += size
        out.append("".join(chars))
