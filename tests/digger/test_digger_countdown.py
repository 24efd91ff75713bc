"""The sand-timer countdown on a fake clock: no sleeping, every threshold reported exactly once."""

from __future__ import annotations

from typing import Any

import pytest

from companion.engine.countdown import Countdown
from tests.fake_clock import FakeClock


def started(clock: FakeClock, **callbacks: Any) -> Countdown:
    """A 30-second countdown on `clock`, running from now."""
    timer = Countdown(30, clock, **callbacks)
    timer.start()
    return timer


def test_idle_countdown_shows_full_time_and_crosses_nothing() -> None:
    clock = FakeClock()
    timer = Countdown(30, clock)
    clock.advance(100)
    assert timer.remaining() == 30 and not timer.running and not timer.expired and not timer.started
    assert timer.poll() == ()


def test_counts_down_and_fires_warning_then_expiry_once_each() -> None:
    clock = FakeClock()
    heard: list[float] = []
    expired: list[bool] = []
    timer = started(clock, on_threshold=heard.append, on_expired=lambda: expired.append(True))
    clock.advance(10)
    assert timer.remaining() == 20 and timer.running and timer.poll() == ()
    clock.advance(15)
    assert timer.poll() == (5.0,) and timer.poll() == ()
    clock.advance(4.5)
    assert timer.remaining() == pytest.approx(0.5) and not timer.expired
    clock.advance(1)
    assert timer.remaining() == 0 and timer.expired and not timer.running
    assert timer.poll() == (0.0,) and timer.poll() == ()
    assert heard == [5.0, 0.0] and expired == [True]


def test_a_late_poll_reports_every_crossed_threshold_in_order() -> None:
    clock = FakeClock()
    timer = started(clock)
    clock.advance(31)
    assert timer.poll() == (5.0, 0.0)


def test_stop_freezes_the_remaining_time_and_nothing_fires_after() -> None:
    clock = FakeClock()
    heard: list[float] = []
    timer = started(clock, on_threshold=heard.append)
    clock.advance(12.5)
    assert timer.stop() == 17.5
    clock.advance(60)
    assert timer.remaining() == 17.5 and timer.stopped and not timer.expired and not timer.running
    assert timer.poll() == () and heard == []


def test_restart_rearms_thresholds_and_can_change_length() -> None:
    clock = FakeClock()
    timer = started(clock)
    clock.advance(40)
    assert timer.poll() == (5.0, 0.0)
    timer.start(45)
    assert timer.remaining() == 45 and timer.running
    clock.advance(41)
    assert timer.poll() == (5.0,)
    timer.reset()
    assert timer.remaining() == 45 and not timer.started and timer.poll() == ()


def test_custom_thresholds_always_include_expiry() -> None:
    clock = FakeClock()
    timer = Countdown(20, clock, thresholds=(10.0, 3.0))
    assert timer.thresholds == (10.0, 3.0, 0.0)
    timer.start()
    clock.advance(18)
    assert timer.poll() == (10.0, 3.0)


def test_length_must_be_positive() -> None:
    with pytest.raises(ValueError):
        Countdown(0)
    with pytest.raises(ValueError):
        Countdown(30).start(-1)
