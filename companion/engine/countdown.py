"""A sand-timer countdown on an injected monotonic clock: no threads, no sleeping.

The app owns the clock loop (a Kivy Clock tick, a test's fake clock); it calls `poll()` as often as it
likes and the countdown reports each warning threshold once, as a return value and through callbacks.
Keeping time out of the rules engine means replay and tests never wait: when the sand has run out the
app submits the game's time-up action, which is what the record keeps.
"""

from __future__ import annotations

import time
from collections.abc import Callable

Clock = Callable[[], float]
ThresholdCallback = Callable[[float], None]

DEFAULT_THRESHOLDS: tuple[float, ...] = (5.0, 0.0)


class Countdown:
    """Counts `seconds` down from `start()`.  Thresholds (seconds remaining, default 5 and 0) fire once
    each per run, in falling order, the first time `poll()` sees the remaining time at or below them.
    The 0 threshold (expiry) is always armed."""

    def __init__(self, seconds: float, clock: Clock = time.monotonic,
                 thresholds: tuple[float, ...] = DEFAULT_THRESHOLDS,
                 on_threshold: ThresholdCallback | None = None,
                 on_expired: Callable[[], None] | None = None) -> None:
        if seconds <= 0:
            raise ValueError(f"a countdown needs a positive length, not {seconds}")
        self.seconds = float(seconds)
        self._clock = clock
        self.thresholds = tuple(sorted(set(thresholds) | {0.0}, reverse=True))
        self.on_threshold = on_threshold
        self.on_expired = on_expired
        self._started: float | None = None
        self._stopped_remaining: float | None = None
        self._fired: set[float] = set()

    # -- control -----------------------------------------------------------------------------------
    def start(self, seconds: float | None = None) -> None:
        """Turn the sand timer (again): full length, every threshold armed anew."""
        if seconds is not None:
            if seconds <= 0:
                raise ValueError(f"a countdown needs a positive length, not {seconds}")
            self.seconds = float(seconds)
        self._started = self._clock()
        self._stopped_remaining = None
        self._fired = set()

    def stop(self) -> float:
        """Freeze the countdown (Stop was called); returns the seconds that were left."""
        left = self.remaining()
        if self._started is not None:
            self._stopped_remaining = left
        return left

    def resume(self) -> None:
        """Run on from where `stop` froze it (the hourglass stood up after lying flat); thresholds already
        passed stay fired."""
        if self._started is not None and self._stopped_remaining is not None:
            self._started = self._clock() - (self.seconds - self._stopped_remaining)
            self._stopped_remaining = None

    def reset(self) -> None:
        """Back to idle, as before the first roll of a turn."""
        self._started = None
        self._stopped_remaining = None
        self._fired = set()

    # -- reading -----------------------------------------------------------------------------------
    @property
    def running(self) -> bool:
        """Started, not stopped, and not yet run out."""
        return self._started is not None and self._stopped_remaining is None and self.remaining() > 0

    @property
    def started(self) -> bool:
        return self._started is not None

    @property
    def stopped(self) -> bool:
        return self._stopped_remaining is not None

    def remaining(self) -> float:
        """Seconds left (full length when idle, frozen once stopped, never below 0)."""
        if self._started is None:
            return self.seconds
        if self._stopped_remaining is not None:
            return self._stopped_remaining
        return max(0.0, self.seconds - (self._clock() - self._started))

    @property
    def expired(self) -> bool:
        """The sand has run out (and Stop did not come first)."""
        return self._started is not None and self._stopped_remaining is None and self.remaining() <= 0

    def poll(self) -> tuple[float, ...]:
        """Thresholds crossed since the last poll (each once per run), callbacks called in that order.

        A stopped or idle countdown crosses nothing.  The 0 threshold also calls `on_expired`.
        """
        if self._started is None or self._stopped_remaining is not None:
            return ()
        left = self.remaining()
        crossed = tuple(mark for mark in self.thresholds if left <= mark and mark not in self._fired)
        for mark in crossed:
            self._fired.add(mark)
            if self.on_threshold is not None:
                self.on_threshold(mark)
            if mark <= 0 and self.on_expired is not None:
                self.on_expired()
        return crossed
