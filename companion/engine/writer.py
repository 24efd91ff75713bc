"""The journal's writer thread: durable commits (an fsync each) leave the UI thread.

On an SD card one fsync takes 100-300 ms; on the app's UI thread every tap would stall a frame by that
much.  `JournalWriter.write(work, then)` runs `work` (a journal write) on the writer thread, in the order
asked, and hands its outcome (a finished Future: the result, or the error it raised) to `then` on the UI
thread through `call_soon` (Kivy's Clock in the app).  Nothing is acknowledged before `then` runs, so
"acknowledged means committed" holds as it did with the commit on the UI thread.

A write that input waits for is given a moment before the frame is drawn (`SETTLE_SECONDS`): where the
disk answers within it (0.5-1.4 ms here) the move is shown in the frame of the touch that made it, not
one frame of the clock later; a slow card costs that frame at most the moment, and the move shows when
its write lands, as before.

Input that arrives while a write is in flight waits its turn (`in_turn`): it runs once every write asked
before it has been answered, in the order it came, so it is validated against the state those writes
made, and never dropped or reordered.  A write nothing waits for (the chess clock's save) is asked with
`holds_input=False`.  Only the writer thread commits through the journal's write connection; the UI
thread reads through a connection of its own (`Journal`), which never waits for a commit.

`InlineWriter` makes the same calls on the calling thread and answers at once: the CLI, replays and the
rules' tests, which have no frames to keep.
"""

from __future__ import annotations

import queue
import threading
from collections import deque
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Any, Generic, Protocol, TypeVar

T = TypeVar("T")

#: How long closing waits for the writes already asked for: a card that stopped answering must not keep
#: the app from closing for ever (what it did not finish was never acknowledged).
CLOSE_SECONDS = 10.0
#: How long the UI thread waits, before drawing the frame, for a write that input waits for
#: (`JournalWriter.settle`): a quarter of a 60th of a second, so a frame keeps most of its time.
SETTLE_SECONDS = 0.004


class Writer(Protocol):
    """What a session, the chess clock and the app need of a writer (`JournalWriter` or `InlineWriter`)."""

    @property
    def busy(self) -> bool: ...

    def write(self, work: Callable[[], T], then: Callable[[Future[T]], None], holds_input: bool = True) -> None: ...

    def in_turn(self, callback: Callable[[], None]) -> None: ...

    def flush(self, timeout: float | None = None) -> bool: ...

    def close(self, timeout: float = CLOSE_SECONDS) -> bool: ...


def done(work: Callable[[], T]) -> Future[T]:
    """Run `work` now: its result, or the exception it raised, in a finished Future."""
    future: Future[T] = Future()
    try:
        future.set_result(work())
    except Exception as error:  # noqa: BLE001 — not swallowed: `result()` raises it on the thread that asks
        future.set_exception(error)
    return future


class InlineWriter:
    """Writes on the calling thread and answers at once, so it is never busy (the CLI, replays, tests)."""

    busy = False

    def write(self, work: Callable[[], T], then: Callable[[Future[T]], None], holds_input: bool = True) -> None:
        then(done(work))

    def in_turn(self, callback: Callable[[], None]) -> None:
        callback()

    def flush(self, timeout: float | None = None) -> bool:
        return True

    def close(self, timeout: float = CLOSE_SECONDS) -> bool:
        return True


@dataclass
class _Job(Generic[T]):
    work: Callable[[], T]
    then: Callable[[Future[T]], None]
    holds_input: bool
    outcome: Future[T] = field(default_factory=Future)


class JournalWriter:
    """One thread for every durable write of a journal.  Its outcomes, and the input that waited for
    them, run on the UI thread in order.  Called on the UI thread, except `flush`."""

    def __init__(self, call_soon: Callable[[Callable[[], None]], None], name: str = "goldtable-journal",
                 settle_seconds: float = SETTLE_SECONDS) -> None:
        """`call_soon` runs a function on the UI thread before its next frame; `settle_seconds` (0: none) is
        how long that frame waits for a write input waits for (`settle`)."""
        self._call_soon = call_soon
        self._settle_seconds = settle_seconds
        self._settle_due = False  # a settle is on its way to the UI thread: one a frame is enough
        self._jobs: queue.SimpleQueue[_Job[Any] | None] = queue.SimpleQueue()
        self._unwritten = 0  # writes asked for and not yet done, under `_written`
        self._written = threading.Condition()
        self._landed: deque[_Job[Any]] = deque()  # written, outcome not handed over yet (filled by the thread)
        self._holding = 0  # writes input waits for whose outcome has not been handed over
        self._waiting: deque[Callable[[], None]] = deque()
        self._closed = False
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self._thread.start()

    @property
    def busy(self) -> bool:
        """A write that input waits for is under way, or its outcome has not been handed over yet."""
        return self._holding > 0

    def write(self, work: Callable[[], T], then: Callable[[Future[T]], None], holds_input: bool = True) -> None:
        """Run `work` on the writer thread after every write asked before it; `then(outcome)` follows on the
        UI thread.  With `holds_input`, input asked `in_turn` meanwhile waits until `then` has run."""
        job = _Job(work, then, holds_input)
        if holds_input:
            self._holding += 1
        if self._closed:
            from companion.engine.core import N_  # not at import: the app's first frame has no pydantic
            from companion.engine.journal import JournalError, Notice

            job.outcome.set_exception(JournalError(Notice("journal.closed",
                                                          N_("the game journal was closed; nothing more is saved"))))
            self._land(job)
            return
        with self._written:
            self._unwritten += 1
        self._jobs.put(job)
        if holds_input and self._settle_seconds and not self._settle_due:
            self._settle_due = True
            self._call_soon(self.settle)

    def settle(self) -> None:
        """UI thread, before a frame: wait up to `settle_seconds` for the writes asked so far, and hand
        over those that landed, so the frame shows them (their own hand-over, already on its way, then
        finds nothing left).  Several moves before one frame share its settle: on a card slower than
        `settle_seconds`, one wait each would hold the frame that many times as long."""
        self._settle_due = False
        self.flush(self._settle_seconds)
        self._hand_over()

    def in_turn(self, callback: Callable[[], None]) -> None:
        """Run `callback` (an input) now, or, while a write it must wait for is in flight, after that
        write's outcome, behind the input that came before it."""
        if self.busy:
            self._waiting.append(callback)
        else:
            callback()

    def flush(self, timeout: float | None = None) -> bool:
        """Wait until every write asked for so far is done (any thread; their outcomes still come through
        `call_soon`): for closing, and for headless drivers that step the app frame by frame."""
        with self._written:
            return self._written.wait_for(lambda: self._unwritten == 0, timeout)

    def close(self, timeout: float = CLOSE_SECONDS) -> bool:
        """Finish the writes asked for (up to `timeout`) and hand their outcomes over now, so the last
        answers reach the table and the devices; later writes fail with JournalError.  False if the disk
        did not finish in time: then the journal must stay open under the thread still writing."""
        if not self._closed:
            self._closed = True
            self._jobs.put(None)
            self._thread.join(timeout)
            self._hand_over()
        return not self._thread.is_alive()

    # -- threads -------------------------------------------------------------------------------------
    def _run(self) -> None:
        """The writer thread: one job after another until `close`."""
        while (job := self._jobs.get()) is not None:
            job.outcome = done(job.work)
            self._land(job)
            with self._written:
                self._unwritten -= 1
                self._written.notify_all()

    def _land(self, job: _Job[Any]) -> None:
        self._landed.append(job)
        self._call_soon(self._hand_over)

    def _hand_over(self) -> None:
        """UI thread: the outcomes of the writes done so far, in order, then the input that waited."""
        while self._landed:
            job = self._landed.popleft()
            if job.holds_input:
                self._holding -= 1
            job.then(job.outcome)
        while self._waiting and not self.busy:
            self._waiting.popleft()()
