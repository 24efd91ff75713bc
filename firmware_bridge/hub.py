"""The bridge hub: one place where every hardware source delivers its events and every command goes out.

Callbacks run on the source's own thread (a serial reader, a gpiozero edge thread, the GPIO ticker);
the app marshals to its UI thread itself (Kivy `Clock.schedule_once`).  Nothing here blocks a caller.

A device that waits for an answer (GTP/1) gets it only when the app settles the event with
`Bridge.settle` after the session has journalled it (or refused it): "acknowledged" means "recorded".
`Bridge(auto_settle=True)` answers every event as recorded once the subscribers have returned, for
listeners that record nothing themselves (`goldtable bridge monitor`).
"""

from __future__ import annotations

import logging
import threading
from abc import ABC, abstractmethod
from collections import deque
from collections.abc import Callable
from typing import Any

from firmware_bridge.events import BridgeEvent, OutputCommand, StatusEvent
from firmware_bridge.protocol import nak_reason

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
    #: Where events go: set by `start`, None again after `stop` (see `_deliver`).
    _emit: Emit | None = None

    @property
    def connected(self) -> bool:
        """Whether the hardware is there right now; by default while the source is started (a GPIO source
        always is then), a source with a link of its own says so itself."""
        return self._emit is not None

    @abstractmethod
    def describe(self) -> dict[str, Any]:
        """A JSON-ready summary for the app's Hardware screen: kind, port or pins, counters."""

    @abstractmethod
    def start(self, emit: Emit) -> None:
        """Begin delivering events through `emit`."""

    @abstractmethod
    def stop(self) -> None:
        """Stop delivering events and release the hardware; safe to call twice."""

    def _deliver(self, event: BridgeEvent) -> None:
        """Hand an event to the hub from the source's own thread; one that comes after `stop` is dropped."""
        emit = self._emit
        if emit is not None:
            emit(event)

    def send(self, command: OutputCommand) -> None:  # noqa: B027 — optional: most sources have no outputs
        """Carry out an output command; sources without outputs ignore it."""

    def settle(self, event: BridgeEvent, recorded: bool, reason: str | None = None) -> None:  # noqa: B027
        """The app's answer to one of this source's events: recorded, or refused with a reason code.
        Must return at once from any thread; sources whose hardware expects no answer ignore it."""


class Bridge:
    """Collects events from all sources, fans them out to subscribers, keeps the most recent ones."""

    def __init__(self, history: int = 200, *, auto_settle: bool = False) -> None:
        """`auto_settle`: answer every event as recorded after the subscribers ran (a monitor, a test)."""
        self.auto_settle = auto_settle
        self._sources: list[Source] = []
        self._callbacks: tuple[Callback, ...] = ()
        self._recent: deque[BridgeEvent] = deque(maxlen=history)
        self._lock = threading.Lock()
        #: One start, stop, add or remove at a time: a source is never stopped while another thread is
        #: still starting it (the app's hardware worker adds while a test or the app removes).
        self._changing = threading.Lock()
        self._running = False

    @property
    def sources(self) -> tuple[Source, ...]:
        """The sources in the order they were added."""
        return tuple(self._sources)

    @property
    def running(self) -> bool:
        return self._running

    def add_source(self, source: Source) -> Source:
        """Add a source; if the bridge is already running the source starts at once (and is not kept
        when its start fails: the error is raised)."""
        with self._changing:
            return self._add_source(source)

    def _add_source(self, source: Source) -> Source:
        with self._lock:
            if any(existing.name == source.name for existing in self._sources):
                raise ValueError(f"a source named {source.name!r} is already attached")
            self._sources.append(source)
            running = self._running
        if running:
            try:
                source.start(self._deliver)
            except BaseException:
                with self._lock:
                    self._sources.remove(source)
                raise
        return source

    def remove_source(self, name: str) -> Source | None:
        """Stop and drop the source called `name` (e.g. the sensor, for one at another address); the
        removed source, or None when there was none."""
        with self._changing:
            return self._remove_source(name)

    def _remove_source(self, name: str) -> Source | None:
        with self._lock:
            source = next((existing for existing in self._sources if existing.name == name), None)
            if source is None:
                return None
            self._sources.remove(source)
            running = self._running
        if running:
            source.stop()
        return source

    def replace_source(self, source: Source) -> Source:
        """Put `source` in the place of the source with its name, if any (the sensor at another address):
        one change, so no other start or removal comes between the two."""
        with self._changing:
            self._remove_source(source.name)
            return self._add_source(source)

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
        with self._changing:
            self._start()

    def _start(self) -> None:
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
        with self._changing:
            self._stop()

    def _stop(self) -> None:
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

    def settle(self, event: BridgeEvent, recorded: bool, reason: str | None = None) -> None:
        """Answer `event` on the source it came from: `recorded` once the session journalled it, else
        refused with `reason` (a short code such as a refusal code, `no_game`).  Thread-safe, never
        blocks; events without a seq, or from a source no longer attached, need no answer.  A reason
        that cannot go on the wire is a ValueError here, in the caller."""
        if not recorded:
            nak_reason(reason)
        if event.seq is None:
            return
        with self._lock:
            source = next((known for known in self._sources if known.name == event.source), None)
        if source is not None:
            source.settle(event, recorded, reason)

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
        if isinstance(event, StatusEvent):  # a link that comes and goes is what a report of a fault needs
            log.info("%s: %s (%s)", event.source, event.state, event.detail or "")
        for callback in callbacks:
            try:
                callback(event)
            except Exception:  # a subscriber's bug must not kill a reader thread
                log.exception("bridge subscriber %r failed on %s", callback, event.event)
        if self.auto_settle:
            self.settle(event, True)
