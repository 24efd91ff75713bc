"""Spoken announcements through a fake espeak-ng on PATH, and the table's chess clock stepped by a fake clock."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from companion.app.clocks import BANK_STEPS, TURN_STEPS, ClockModel, ClockSettings, step
from companion.app.i18n import set_language
from companion.app.launch import pump
from companion.app.saving import saver
from companion.app.speech import Speaker
from companion.engine.core import Player, Setup
from companion.engine.session import Session
from firmware_bridge.events import TimerEvent
from tests.app.conftest import ManualClock
from tests.app.ui import tap
from tests.fake_clock import FakeClock


@pytest.fixture
def fake_espeak(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """An `espeak-ng` that writes its arguments to a file, then lingers like a long sentence would."""
    said = tmp_path / "said.txt"
    program = tmp_path / "bin" / "espeak-ng"
    program.parent.mkdir()
    program.write_text(f'#!/bin/sh\nprintf "%s|" "$@" >> "{said}"\necho >> "{said}"\nsleep 5\n')
    program.chmod(0o755)
    monkeypatch.setenv("PATH", f"{program.parent}{os.pathsep}{os.environ['PATH']}")
    yield said
    set_language("en")


def wait_for_lines(path: Path, count: int) -> list[str]:
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        if path.exists() and len(path.read_text(encoding="utf-8").splitlines()) >= count:
            return path.read_text(encoding="utf-8").splitlines()
        time.sleep(0.02)
    raise AssertionError(f"espeak-ng was not called {count} time(s)")


def test_speaks_in_the_app_language_without_waiting(fake_espeak: Path) -> None:
    speaker = Speaker(enabled=True)
    set_language("de")
    started = time.monotonic()
    assert speaker.turn("Anna")
    assert time.monotonic() - started < 1.0  # the 5-second sentence runs in its own process
    assert wait_for_lines(fake_espeak, 1) == ["-v|de|--|Anna, du bist dran.|"]
    set_language("fr")
    assert speaker.winners(["Anna", "Ben"])  # cuts the first sentence short
    lines = wait_for_lines(fake_espeak, 2)
    assert lines[1].startswith("-v|fr|--|") and "Anna, Ben" in lines[1]
    speaker.stop()


def test_silent_when_off_or_when_espeak_is_missing(fake_espeak: Path, monkeypatch: pytest.MonkeyPatch,
                                                  tmp_path: Path) -> None:
    assert not Speaker().turn("Anna")  # off by default
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    speaker = Speaker(enabled=True)
    assert not speaker.available()
    assert not speaker.turn("Anna") and not speaker.winners(["Anna"])
    assert not fake_espeak.exists()


def test_clock_follows_the_player_pauses_on_the_flat_hourglass_and_alerts(fake_espeak: Path) -> None:
    clock = FakeClock(0.0)
    model = ClockModel(clock=clock)
    alerts: list[str] = []
    model.bind(on_alert=lambda _model, alert: alerts.append(f"{alert.kind}:{alert.seat}"))
    model.start("goldgraeber", ("Anna", "Ben", "Cleo"),
                ClockSettings(clock=True, bank_minutes=1, turn_seconds=20, speech=True))
    assert model.active
    model.player(1)
    clock.now = 5
    model.update()
    assert (model.turn_text, model.bank_text) == ("0:15", "0:55")
    model.hourglass(flat=True)
    clock.now = 500
    model.update()
    assert model.paused and model.turn_text == "0:15"
    model.next_pressed()
    clock.now = 512
    model.update()
    assert alerts == ["turn_low:1"]
    clock.now = 520
    model.update()
    assert alerts == ["turn_low:1", "turn_over:1"] and model.overtime
    assert any("Ben" in line for line in wait_for_lines(fake_espeak, 1))
    model.player(2)
    clock.now = 523
    model.stop()
    assert model.totals == [{"name": "Anna", "used": "0:00"}, {"name": "Ben", "used": "0:25"},
                            {"name": "Cleo", "used": "0:03"}]
    assert model.summary() == "Anna: 0:00  Ben: 0:25  Cleo: 0:03"
    model.speaker.stop()


def test_digger_keeps_its_sand_timer_and_the_clock_is_off_by_default() -> None:
    model = ClockModel(clock=FakeClock(0.0))
    model.start("digger", ("Anna", "Ben"), ClockSettings(clock=True))
    assert not model.active
    model.start("chinagold", ("Anna", "Pi"), ClockSettings())
    assert not model.active


def test_clock_settings_survive_a_restart_and_bad_values_fall_back(tmp_path: Path) -> None:
    path = tmp_path / "clocks.json"
    ClockSettings(clock=True, bank_minutes=30, turn_seconds=90, speech=True).save(path)
    assert saver.flush()  # on the card: what a restart reads
    assert ClockSettings.load(path) == ClockSettings(clock=True, bank_minutes=30, turn_seconds=90, speech=True)
    path.write_text('{"clock": "yes", "bank_minutes": -5, "turn_seconds": 90}', encoding="utf-8")
    assert ClockSettings.load(path) == ClockSettings(turn_seconds=90)
    assert ClockSettings.load(tmp_path / "missing.json") == ClockSettings()


def test_timer_screen_saves_and_the_hourglass_and_next_button_drive_the_clock(fresh_app: Any,
                                                                              clock: ManualClock) -> None:
    app = fresh_app
    tap(app, "Timer & voice", frames=2)
    assert app.root.current == "clocks"
    screen = app.root.current_screen
    tap(app, "Off")  # the first switch: the chess clock
    assert screen.clock_on and ClockSettings.load().clock
    screen.change(bank_minutes=step(BANK_STEPS, screen.bank_minutes, 2), turn_seconds=30)
    assert ClockSettings.load() == ClockSettings(clock=True, bank_minutes=10, turn_seconds=30)
    try:
        setup = Setup(game="goldgraeber", players=tuple(Player(name=n) for n in ("Anna", "Ben", "Cleo")))
        session = Session.new(setup, app.journal)
        app.flow.resume(session.game_id)
        pump(2)
        assert app.root.current == "table" and app.clocks.active and app.clocks.seat == app.table.player
        bar = next(widget for widget in app.root.current_screen.walk() if type(widget).__name__ == "ClockBar")
        pump(3)
        assert bar.height == 48 and bar.opacity == 1  # the clock is on the Table screen while it runs
        assert bar.children[-1].text.startswith(app.table.player_name(app.table.player))
        clock.advance(5)
        app.clocks.update()  # what the 0.2 s tick does
        assert app.clocks.turn_text in ("0:25", "0:24") and app.clocks.bank_text in ("9:55", "9:54")
        app.flow.controller.on_bridge_event(TimerEvent(source="gpio", state="flat"))
        assert app.clocks.paused
        clock.advance(120)
        app.flow.press_button("next", "gpio")
        app.clocks.update()
        assert not app.clocks.paused and app.clocks.turn_text in ("0:25", "0:24")
        app.flow.controller.submit({"type": "roll", "values": ["L"]})  # the train moves: the next player's clock runs
        pump(1)
        assert app.clocks.seat == app.table.player == 1
        assert bar.line_text.startswith(app.table.player_name(1))
        app.clocks.active = False  # a game without the chess clock: the hidden line is not rendered anew
        shown = bar.line_text
        app.flow.controller.submit({"type": "roll", "values": ["L"]})
        pump(1)
        assert app.table.player == 2 and bar.line_text == shown and bar.height == 0
    finally:
        ClockSettings().save()
        app.go("home")


def test_clock_steps_follow_the_ladder() -> None:
    assert step(BANK_STEPS, 0, 1) == 5 and step(BANK_STEPS, 0, -1) == 0
    assert step(TURN_STEPS, 300, 1) == 300 and step(TURN_STEPS, 100, -1) == 60  # 100 snaps to 90 first


def test_the_winner_and_the_sand_timer_are_announced(fake_espeak: Path) -> None:
    from companion.app.demo import demo_session
    from companion.app.table import TableModel
    from companion.app.timer import TimerModel

    ClockSettings(speech=True).save()
    try:
        table, timer = TableModel(), TimerModel(clock=FakeClock(0.0))
        model = ClockModel(clock=FakeClock(0.0)).follow(table, timer)
        session = demo_session(None, moves=None)
        table.attach(session)
        winners = [session.setup.players[seat].name for seat in session.game.winners(session.state)]
        lines = wait_for_lines(fake_espeak, 1)
        assert all(name in lines[-1] for name in winners) and not model.active
        table.attach(demo_session(None, moves=3))  # Digger: the sand timer's warning names the digger
        timer.dispatch("on_warning", 5.0)
        # "Anna, your turn." may or may not be written before the warning cuts it short: the newest news wins
        wanted = f"{table.player_name(table.player)}, your time is running out."
        deadline = time.monotonic() + 5
        while wanted not in fake_espeak.read_text(encoding="utf-8").splitlines()[-1]:
            assert time.monotonic() < deadline, fake_espeak.read_text(encoding="utf-8")
            time.sleep(0.02)
        model.speaker.stop()
    finally:
        ClockSettings().save()
