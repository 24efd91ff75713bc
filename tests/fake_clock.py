"""A monotonic clock the test moves by hand, for everything that takes an injected clock (the sand-timer
countdown, the chess clock, GPIO debounce, the app's clock model): no sleeping, exact times."""

from __future__ import annotations


class FakeClock:
    """Reads `now` (seconds) until the test moves it."""

    def __init__(self, now: float = 1000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds

    def advance_ms(self, ms: float) -> None:
        self.now += ms / 1000.0
