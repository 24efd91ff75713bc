"""The chess clock, stepped by a fake monotonic clock: banks, turn limits, pause/resume, alerts once each."""

from __future__ import annotations

import pytest

from companion.engine.timebank import Alert, BankState, TimeBank, clock_text
from tests.fake_clock import FakeClock


def test_each_seat_is_charged_only_for_its_own_turns() -> None:
    clock = FakeClock(100.0)
    bank = TimeBank(3, bank_seconds=300, clock=clock)
    bank.start_turn(0)
    clock.advance(12)
    bank.start_turn(1)
    clock.advance(30)
    bank.start_turn(2)
    clock.advance(5)
    bank.start_turn(0)
    clock.advance(8)
    assert bank.totals() == [20, 30, 5]
    assert bank.reading().bank_left == 280 and bank.reading().turn_used == 8


def test_pause_stops_the_clock_and_survives_a_turn_change() -> None:
    clock = FakeClock(100.0)
    bank = TimeBank(2, clock=clock)
    bank.start_turn(0)
    clock.advance(10)
    bank.pause()
    clock.advance(600)  # a long break costs nothing
    assert bank.paused and bank.used(0) == 10
    bank.start_turn(1)  # next pressed during the pause: still paused, Ben's clock waits
    clock.advance(50)
    assert bank.paused and bank.used(1) == 0
    bank.resume()
    clock.advance(7)
    assert bank.totals() == [10, 7]


def test_turn_limit_warns_then_runs_over_once_per_turn() -> None:
    clock = FakeClock(100.0)
    bank = TimeBank(2, turn_seconds=60, warn_seconds=10, clock=clock)
    bank.start_turn(1)
    clock.advance(49)
    assert bank.poll() == []
    clock.advance(1)
    assert bank.poll() == [Alert("turn_low", 1)]
    assert bank.poll() == []
    clock.advance(15)
    assert bank.poll() == [Alert("turn_over", 1)]
    reading = bank.reading()
    assert reading.overtime and reading.turn_left == -5
    bank.start_turn(0)  # a new turn arms the alerts again
    assert not bank.reading().overtime and bank.poll() == []
    clock.advance(61)
    assert bank.poll() == [Alert("turn_low", 0), Alert("turn_over", 0)]


def test_bank_running_out_is_overtime_and_shows_negative() -> None:
    clock = FakeClock(100.0)
    bank = TimeBank(2, bank_seconds=30, warn_seconds=5, clock=clock)
    bank.start_turn(0)
    clock.advance(20)
    bank.start_turn(1)
    clock.advance(1)
    bank.start_turn(0)
    clock.advance(6)
    assert bank.poll() == [Alert("bank_low", 0)]
    clock.advance(11)
    assert bank.poll() == [Alert("bank_over", 0)]
    assert bank.reading().bank_left == -7 and clock_text(-7) == "-0:07"


def test_no_bank_no_limit_only_counts() -> None:
    clock = FakeClock(100.0)
    bank = TimeBank(2, clock=clock)
    assert bank.reading().seat is None and bank.poll() == []
    bank.start_turn(0)
    clock.advance(3600)
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


def test_a_snapshot_goes_on_after_a_restart_and_the_break_is_charged_to_no_one() -> None:
    clock = FakeClock(100.0)
    bank = TimeBank(3, bank_seconds=60, turn_seconds=20, clock=clock)
    bank.start_turn(0)
    clock.advance(25)
    assert [alert.kind for alert in bank.poll()] == ["turn_low", "turn_over"]
    bank.start_turn(2)
    clock.advance(7)
    kept = BankState.from_json(bank.snapshot().to_json())  # what the journal keeps
    assert kept == bank.snapshot() and kept.totals() == [25, 0, 7]
    later = FakeClock(5.0)  # another process: its monotonic clock has nothing to do with the first one's
    again = TimeBank.restored(kept, clock=later)
    later.advance(4)
    assert again.totals() == [25, 0, 11]  # 7 s before the snapshot, 4 s since the restart
    reading = again.reading()
    assert (reading.seat, reading.turn_used, reading.bank_left, reading.paused) == (2, 11, 49, False)
    assert (again.bank_seconds, again.turn_seconds) == (60, 20)


def test_a_restored_turn_keeps_its_pause_and_hears_no_alert_twice() -> None:
    clock = FakeClock(100.0)
    bank = TimeBank(2, bank_seconds=30, clock=clock)
    bank.start_turn(1)
    clock.advance(25)
    assert [alert.kind for alert in bank.poll()] == ["bank_low"]
    bank.pause()
    again = TimeBank.restored(BankState.from_json(bank.snapshot().to_json()), clock=clock)
    clock.advance(100)
    assert again.paused and again.totals() == [0, 25] and again.poll() == []
    again.resume()
    clock.advance(6)
    assert [alert.kind for alert in again.poll()] == ["bank_over"] and again.reading().overtime
    fresh = TimeBank.restored(BankState(used=(3.0, 4.0)), clock=clock)  # saved before the first turn
    assert fresh.reading().seat is None and fresh.totals() == [3, 4] and not fresh.paused


@pytest.mark.parametrize("text", ['{"used": []}', '{"used": [1, -2]}', '{"used": [1, 2], "seat": 2}',
                                  '{"used": [1], "fired": ["nap"]}', '{"used": [1], "bank_seconds": 0}', "[1, 2]",
                                  '{"used": [1], "turn": -1}', "not json"])
def test_a_kept_state_that_is_not_one_is_refused(text: str) -> None:
    with pytest.raises(ValueError):
        BankState.from_json(text)
