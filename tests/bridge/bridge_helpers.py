"""Shared helpers for the bridge tests: polling waits (no fixed sleeps) and an event collector."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from firmware_bridge.events import BridgeEvent


def wait_for(condition: Callable[[], bool], timeout: float = 5.0, interval: float = 0.005) -> bool:
    """Poll `condition` until it holds or `timeout` passes; returns whether it held."""
    deadline = time.monotonic() + timeout
    while True:
        if condition():
            return True
        if time.monotonic() >= deadline:
            return False
        time.sleep(interval)


class Collector:
    """A thread-safe bridge subscriber that remembers every event."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._events: list[BridgeEvent] = []

    def __call__(self, event: BridgeEvent) -> None:
        with self._lock:
            self._events.append(event)

    @property
    def events(self) -> list[BridgeEvent]:
        with self._lock:
            return list(self._events)

    def of(self, kind: str) -> list[BridgeEvent]:
        return [event for event in self.events if event.event == kind]

    def statuses(self) -> list[str]:
        return [event.state for event in self.of("status")]  # type: ignore[attr-defined]
