"""Long work off the UI thread: one search at a time, its answer handed back on the UI thread.

The Chinagold bot thinks for most of a second.  On the UI thread that froze the timer and the screen;
on a thread of the app's own process it still shares the interpreter lock with the UI thread and
stretches every frame while it thinks.  So work that can go to another process (a module-level
function with picklable arguments, e.g. `partial(hint, state, 0.8)`) runs in one worker process kept
for the app's life; anything else (tests' stand-ins) runs on a daemon thread.  Either way `done(result)`
runs on the UI thread through `call_soon` (Kivy's Clock in the app).  A newer `think` or a `cancel`
makes an answer still under way stale: it is dropped when it arrives, and a search not yet started is
not started.  A running search is not interrupted (the bot keeps to its own time limit).
"""

from __future__ import annotations

import functools
import logging
import multiprocessing
import pickle
import threading
from collections.abc import Callable
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, Generic, TypeVar

log = logging.getLogger(__name__)

T = TypeVar("T")


@functools.cache
def process_pool() -> ProcessPoolExecutor:
    """The one worker process, started on first use.  'spawn' starts a fresh interpreter: nothing of
    Kivy's window or the serial reader's threads is copied into it."""
    return ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn"))


def warm_up(module: str) -> None:
    """Run in the worker process: import what its searches need before the first one is asked for."""
    __import__(module)


def prepare(module: str) -> None:
    """Start the worker process and load `module` there now (a table opening), not in the first search."""
    process_pool().submit(warm_up, module)


def stop_workers() -> None:
    """The app closes: searches still queued are dropped and the worker ends after its current one."""
    if process_pool.cache_info().currsize:
        process_pool().shutdown(wait=False, cancel_futures=True)
        process_pool.cache_clear()


def _sendable(work: Callable[[], Any]) -> bool:
    try:
        pickle.dumps(work)
    except (pickle.PicklingError, AttributeError, TypeError):
        return False
    return True


class Thinker(Generic[T]):
    """Background searches whose answers count only while nothing newer was asked (UI thread only)."""

    def __init__(self, call_soon: Callable[[Callable[[], None]], None], name: str = "goldtable-bot") -> None:
        self._call_soon = call_soon
        self._name = name
        self._ticket = 0
        self._queued: Future[Any] | None = None
        self.busy = False

    def think(self, work: Callable[[], T], done: Callable[[T], None]) -> None:
        """Run `work()` in the worker process (or on a worker thread when it cannot be sent there);
        `done(result)` follows on the UI thread unless made stale."""
        self.cancel()
        ticket = self._ticket
        self.busy = True
        if _sendable(work):
            try:
                future = process_pool().submit(work)
            except BrokenProcessPool:  # the worker died (e.g. killed): start a new one
                process_pool.cache_clear()
                future = process_pool().submit(work)
            self._queued = future
            future.add_done_callback(lambda finished: self._finished(ticket, finished, done))
            return

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
        if self._queued is not None:
            self._queued.cancel()  # only a search not yet started can be cancelled; that is enough
            self._queued = None

    def _finished(self, ticket: int, future: Future[Any], done: Callable[[T], None]) -> None:
        """On the pool's thread: hand the answer (or the failure) to the UI thread."""
        if future.cancelled():
            return
        error = future.exception()
        if error is not None:
            if isinstance(error, BrokenProcessPool):
                process_pool.cache_clear()
            log.error("background search failed: %s", error)
            self._call_soon(lambda: self._failed(ticket))
            return
        result = future.result()
        self._call_soon(lambda: self._deliver(ticket, result, done))

    def _deliver(self, ticket: int, result: T, done: Callable[[T], None]) -> None:
        if ticket != self._ticket:
            return
        self.busy = False
        self._queued = None
        done(result)

    def _failed(self, ticket: int) -> None:
        if ticket == self._ticket:
            self.busy = False
            self._queued = None
