"""The bridge hub: one place where every hardware source delivers its events and every command goes out.

Callbacks run on the source's own thread (a serial reader, a gpiozero edge thread, the GPIO ticker);
the app marshals to its UI thread itself (Kivy `Clock.schedule_once`).  Nothing here blocks a caller.
"""

from __future__ import annotations

import logging
import threading
from abc import ABC, abstractmethod
from collections import deque
from collections.abc import Callable
from typing import Any

from firmware_bridge.events import BridgeEvent, OutputCommand

log = logging.getLogger(__name__)

Emit = Callable[[BridgeEvent], None]
Callback = Callable[[BridgeEvent], None]


class Source(ABC):
    """Something that produces events (and perhaps accepts output commands).

    `start(emit)` must return at once; the source delivers events by calling `emit` from its own
    thread(s) until `stop()` returns.
    """

    name: str
    #: True when `send` does something (LEDs, beeper); the hub only forwards commands to these.
    has_outputs: bool = False

    @property
    @abstractmethod
    def connected(self) -> bool:
        """Whether the hardware is there right now (a GPIO source always is once started)."""

    @abstractmethod
    def describe(self) -> dict[str, Any]:
        """A JSON-ready summary for the app's Hardware screen: kind, port or pins, counters."""

    @abstractmethod
    def start(self, emit: Emit) -> None:
        """Begin delivering events through `emit`."""

    @abstractmethod
    def stop(self) -> None:
        """Stop delivering events and release the hardware; safe to call twice."""

    def send(self, command: OutputCommand) -> None:
        """Carry out an output command; sources without outputs ignore it."""


class Bridge:
    """Collects events from all sources, fans them out to subscribers, keeps the most recent ones."""

    def __init__(self, history: int = 200) -> None:
        self._sources: list[Source] = []
        self._callbacks: tuple[Callback, ...] = ()
        self._recent: deque[BridgeEvent] = deque(maxlen=history)
        self._lock = threading.Lock()
        self._running = False

    @property
    def sources(self) -> tuple[Source, ...]:
        """The sources in the order they were added."""
        return tuple(self._sources)

    @property
    def running(self) -> bool:
        return self._running

    def add_source(self, source: Source) -> Source:
        """Add a source; if the bridge is already running the source starts at once."""
        with self._lock:
            if any(existing.name == source.name for existing in self._sources):
                raise ValueError(f"a source named {source.name!r} is already attached")
            self._sources.append(source)
            running = self._running
        if running:
            source.start(self._deliver)
        return source

    def subscribe(self, callback: Callback) -> Callable[[], None]:
        """Call `callback(event)` for every event from now on; returns a function that unsubscribes."""
        with self._lock:
            self._callbacks = (*self._callbacks, callback)

        def unsubscribe() -> None:
            with self._lock:
                self._callbacks = tuple(cb for cb in self._callbacks if cb is not callback)

        return unsubscribe

    def start(self) -> None:
        """Start every source (idempotent)."""
        with self._lock:
            if self._running:
                return
            self._running = True
            sources = tuple(self._sources)
        started: list[Source] = []
        try:
            for source in sources:
                source.start(self._deliver)
                started.append(source)
        except BaseException:
            for source in reversed(started):
                source.stop()
            self._running = False
            raise

    def stop(self) -> None:
        """Stop every source (idempotent); no callback runs after this returns."""
        with self._lock:
            if not self._running:
                return
            self._running = False
            sources = tuple(self._sources)
        for source in reversed(sources):
            source.stop()

    def __enter__(self) -> Bridge:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def send(self, command: OutputCommand) -> int:
        """Send a command to every source that has outputs; returns how many sources got it."""
        targets = [source for source in self._sources if source.has_outputs]
        for source in targets:
            source.send(command)
        return len(targets)

    def recent(self, limit: int | None = None) -> list[BridgeEvent]:
        """The most recent events, oldest first (at most `limit`, or the whole ring buffer)."""
        with self._lock:
            events = list(self._recent)
        return events if limit is None else events[-limit:] if limit > 0 else []

    def describe(self) -> list[dict[str, Any]]:
        """`describe()` of every source, for the Hardware screen."""
        return [source.describe() for source in self._sources]

    def _deliver(self, event: BridgeEvent) -> None:
        """Called by sources, on their threads.  A failing subscriber is logged, never fatal."""
        with self._lock:
            self._recent.append(event)
            callbacks = self._callbacks
        for callback in callbacks:
            try:
                callback(event)
            except Exception:  # a subscriber's bug must not kill a reader thread
                log.exception("bridge subscriber %r failed on %s", callback, event.event)
