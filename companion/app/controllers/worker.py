"""Long work off the UI thread: one search at a time, its answer handed back on the UI thread.

The Chinagold bot thinks for most of a second; on the UI thread that froze the timer and the screen.
`Thinker.think` runs the work on a daemon thread and hands the result to `call_soon` (Kivy's Clock in
the app), which runs `done` on the UI thread.  A newer `think` or a `cancel` makes an answer still
under way stale: it is dropped when it arrives.  The search itself is not interrupted (the bot keeps
to its own time limit); only its answer is ignored.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Generic, TypeVar

log = logging.getLogger(__name__)

T = TypeVar("T")


class Thinker(Generic[T]):
    """Background searches whose answers count only while nothing newer was asked (UI thread only)."""

    def __init__(self, call_soon: Callable[[Callable[[], None]], None], name: str = "goldtable-bot") -> None:
        self._call_soon = call_soon
        self._name = name
        self._ticket = 0
        self.busy = False

    def think(self, work: Callable[[], T], done: Callable[[T], None]) -> None:
        """Run `work()` on a worker thread; `done(result)` follows on the UI thread unless made stale."""
        self._ticket += 1
        ticket = self._ticket
        self.busy = True

        def run() -> None:
            try:
                result = work()
            except Exception:  # a failed search must not take the table down; nothing is suggested
                log.exception("background search failed")
                self._call_soon(lambda: self._failed(ticket))
                return
            self._call_soon(lambda: self._deliver(ticket, result, done))

        threading.Thread(target=run, name=self._name, daemon=True).start()

    def cancel(self) -> None:
        """The position changed: whatever is still being worked out no longer applies."""
        self._ticket += 1
        self.busy = False

    def _deliver(self, ticket: int, result: T, done: Callable[[T], None]) -> None:
        if ticket != self._ticket:
            return
        self.busy = False
        done(result)

    def _failed(self, ticket: int) -> None:
        if ticket == self._ticket:
            self.busy = False
