"""The chess clock, stepped by a fake monotonic clock: banks, turn limits, pause/resume, alerts once each."""

from __future__ import annotations

import pytest

from companion.engine.timebank import Alert, TimeBank, clock_text


class FakeClock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now

    def step(self, seconds: float) -> None:
        self.now += seconds


def test_each_seat_is_charged_only_for_its_own_turns() -> None:
    clock = FakeClock()
    bank = TimeBank(3, bank_seconds=300, clock=clock)
    bank.start_turn(0)
    clock.step(12)
    bank.start_turn(1)
    clock.step(30)
    bank.start_turn(2)
    clock.step(5)
    bank.start_turn(0)
    clock.step(8)
    assert bank.totals() == [20, 30, 5]
    assert bank.reading().bank_left == 280 and bank.reading().turn_used == 8


def test_pause_stops_the_clock_and_survives_a_turn_change() -> None:
    clock = FakeClock()
    bank = TimeBank(2, clock=clock)
    bank.start_turn(0)
    clock.step(10)
    bank.pause()
    clock.step(600)  # a long break costs nothing
    assert bank.paused and bank.used(0) == 10
    bank.start_turn(1)  # next pressed during the pause: still paused, Ben's clock waits
    clock.step(50)
    assert bank.paused and bank.used(1) == 0
    bank.resume()
    clock.step(7)
    assert bank.totals() == [10, 7]


def test_turn_limit_warns_then_runs_over_once_per_turn() -> None:
    clock = FakeClock()
    bank = TimeBank(2, turn_seconds=60, warn_seconds=10, clock=clock)
    bank.start_turn(1)
    clock.step(49)
    assert bank.poll() == []
    clock.step(1)
    assert bank.poll() == [Alert("turn_low", 1)]
    assert bank.poll() == []
    clock.step(15)
    assert bank.poll() == [Alert("turn_over", 1)]
    reading = bank.reading()
    assert reading.overtime and reading.turn_left == -5
    bank.start_turn(0)  # a new turn arms the alerts again
    assert not bank.reading().overtime and bank.poll() == []
    clock.step(61)
    assert bank.poll() == [Alert("turn_low", 0), Alert("turn_over", 0)]


def test_bank_running_out_is_overtime_and_shows_negative() -> None:
    clock = FakeClock()
    bank = TimeBank(2, bank_seconds=30, warn_seconds=5, clock=clock)
    bank.start_turn(0)
    clock.step(20)
    bank.start_turn(1)
    clock.step(1)
    bank.start_turn(0)
    clock.step(6)
    assert bank.poll() == [Alert("bank_low", 0)]
    clock.step(11)
    assert bank.poll() == [Alert("bank_over", 0)]
    assert bank.reading().bank_left == -7 and clock_text(-7) == "-0:07"


def test_no_bank_no_limit_only_counts() -> None:
    clock = FakeClock()
    bank = TimeBank(2, clock=clock)
    assert bank.reading().seat is None and bank.poll() == []
    bank.start_turn(0)
    clock.step(3600)
    reading = bank.reading()
    assert reading.bank_left is None and reading.turn_left is None and not reading.overtime
    assert bank.poll() == []


def test_clock_text_rounds_time_left_up_and_time_used_down() -> None:
    assert clock_text(4.2) == "0:05"
    assert clock_text(4.2, left=False) == "0:04"
    assert clock_text(125) == "2:05"
    assert clock_text(0) == "0:00"


@pytest.mark.parametrize("arguments", [{"players": 0}, {"players": 2, "bank_seconds": 0},
                                       {"players": 2, "turn_seconds": -1}])
def test_nonsense_settings_are_refused(arguments: dict[str, float]) -> None:
    with pytest.raises(ValueError, match=r"must be positive|at least one"):
        TimeBank(**arguments)  # type: ignore[arg-type]
