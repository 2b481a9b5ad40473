"""A clock the memory and SQLite stores judge leases and message ages by: time passes when a test says so."""

from __future__ import annotations


class FakeClock:
    """Seconds since the epoch, standing still until `advance`."""

    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds
