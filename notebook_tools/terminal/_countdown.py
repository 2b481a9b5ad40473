"""A prompt's countdown in the terminal: the time left, said above the input at a few marks.

Only a prompt whose author set a timeout counts down; the card's title says when it ends, and
a line printed above the prompt being typed (prompt_toolkit's `run_in_terminal`, so the input
is redrawn below it) says the time left at 5 min, 1 min, 30 s and 10 s, and when it is up.
"""

from __future__ import annotations

import asyncio
import functools
import math
import time
from collections.abc import Callable

from prompt_toolkit.application import run_in_terminal

from ..events._prompt import Prompt
from ..prompts._clock import Clock
from ._render import Screen

__all__ = ["MARKS", "count_down", "left_text", "until_text"]

MARKS = (300, 60, 30, 10)
"""Seconds left at which the terminal says so."""


def left_text(seconds: float) -> str:
    """Seconds as people read them: "1 min 30 s", "45 s"."""
    whole = max(0, math.ceil(seconds - 0.001))
    minutes, rest = divmod(whole, 60)
    if not minutes:
        return f"{rest} s"
    return f"{minutes} min" + (f" {rest} s" if rest else "")


def until_text(prompt: Prompt, clock: Clock) -> str:
    """The card title's part about the timeout ("" when there is none)."""
    if prompt.timeout is None:
        return ""
    ends = prompt.requested_at + prompt.timeout
    local = time.strftime("%H:%M:%S", time.localtime(ends - clock.time() + time.time()))
    return f" · answer within {left_text(ends - clock.time())} (until {local})"


async def count_down(prompt: Prompt, clock: Clock, screen: Screen, still_open: Callable[[], bool]) -> None:
    """Say the time left at each mark until the prompt's timeout (cancel it when the prompt closes).

    At the end it says time is up only if the prompt is still open a moment later: a pause with
    other open prompts keeps it answerable; alone, it closes at once and shows as timed out.
    """
    if prompt.timeout is None:
        return
    ends = prompt.requested_at + prompt.timeout
    for mark in [m for m in MARKS if m < prompt.timeout] + [0]:
        wait = ends - mark - clock.time()
        if wait < -1 and mark:  # already past this mark (e.g. asked again after a refusal)
            continue
        await clock.sleep(wait)
        if mark:
            text = f"  ⏱ {left_text(mark)} left to answer"
        else:
            await asyncio.sleep(0.1)
            if not still_open():
                return
            text = "  ⏱ time is up (an answer still counts while other questions of this turn are open)"
        await run_in_terminal(functools.partial(screen.line, text, "bold yellow"))
