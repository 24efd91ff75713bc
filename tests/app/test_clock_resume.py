"""The chess clock survives the app: kept in the journal at every turn change, pause and every few
seconds, restored by Resume (Home and History) after a SIGKILL, shown per player in History; a journal
that cannot be written keeps no clock and the game goes on."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from companion.app.clocks import SAVE_SECONDS, ClockModel, ClockSettings, kept_totals
from companion.app.history import shared_model
from companion.app.launch import pump
from companion.engine.core import Player, Setup
from companion.engine.journal import Journal
from companion.engine.session import Session
from companion.engine.timebank import BankState
from tests.app.conftest import ManualClock, kill_when_ready
from tests.app.ui import history_read, tap
from tests.engine.journal_faults import read_only_view
from tests.fake_clock import FakeClock

NAMES = ("Anna", "Ben", "Cleo")
SETUP = Setup(game="goldgraeber", players=tuple(Player(name=name) for name in NAMES))
TEN_MINUTES = ClockSettings(clock=True, bank_minutes=10)


@pytest.fixture
def journal(tmp_path: Path) -> Iterator[Journal]:
    journal = Journal(tmp_path / "journal.sqlite3")
    yield journal
    journal.close()


def kept(journal: Journal, game: int) -> BankState:
    text = journal.clocks.load(game)
    assert text is not None
    return BankState.from_json(text)


def running_clock(journal: Journal) -> tuple[int, FakeClock, ClockModel]:
    """A new game in the journal with its chess clock running for Anna (seat 0)."""
    game = Session.new(SETUP, journal).game_id
    assert game is not None
    clock = FakeClock(0.0)
    model = ClockModel(clock=clock)
    model.start("goldgraeber", NAMES, TEN_MINUTES, journal, game)
    model.player(0)
    return game, clock, model


def test_turn_changes_pauses_and_the_running_clock_are_kept_and_restored(journal: Journal) -> None:
    game, clock, model = running_clock(journal)
    clock.now = 30
    model.player(1)  # saved at the turn change
    assert kept(journal, game).totals() == [30, 0, 0]
    clock.now = 30 + SAVE_SECONDS - 1
    model.update()
    assert kept(journal, game).totals() == [30, 0, 0]  # not yet
    clock.now = 30 + SAVE_SECONDS + 2
    model.update()
    assert kept(journal, game).totals() == [30, SAVE_SECONDS + 2, 0]
    at_the_kill = journal.clocks.load(game)
    clock.now += 3  # not kept: the app dies before the next save
    model.stop()  # stands for the kill, except that it saves: put back what the journal held before it
    journal.clocks.save(game, at_the_kill or "")
    later = FakeClock(5000.0)  # a new process: a new monotonic clock, and the settings changed meanwhile
    again = ClockModel(clock=later)
    again.start("goldgraeber", NAMES, ClockSettings(clock=True, bank_minutes=90), journal, game)
    assert again.active and again.seat == 1
    again.player(1)  # the engine names Ben again: his turn goes on, not afresh
    later.now += 1
    again.update()
    assert (again.turn_text, again.bank_text) == ("0:08", "9:52")  # his 8 s, of the game's own 10-minute bank
    again.hourglass(flat=True)
    assert kept(journal, game).paused  # a pause is kept at once
    later.now += 300
    resumed = ClockModel(clock=later)
    resumed.start("goldgraeber", NAMES, TEN_MINUTES, journal, game)
    resumed.update()
    assert resumed.paused and resumed.turn_text == "0:08"  # still on the break after the restart
    resumed.stop()
    assert resumed.totals == [{"name": "Anna", "used": "0:30"}, {"name": "Ben", "used": "0:08"},
                              {"name": "Cleo", "used": "0:00"}]
    assert kept_totals(journal, game, NAMES) == resumed.totals  # what History shows


def test_a_journal_fault_keeps_no_clock_and_the_game_goes_on(journal: Journal) -> None:
    game, clock, model = running_clock(journal)
    before = journal.clocks.load(game)
    journal._write.execute("PRAGMA query_only=1")  # every write now fails as on a card gone read-only
    clock.now = 20
    model.player(1)
    model.hourglass(flat=True)
    model.hourglass(flat=False)
    clock.now = 40
    model.update()
    assert model.seat == 1 and model.turn_text == "0:20" and journal.clocks.load(game) == before
    journal._write.execute("PRAGMA query_only=0")


def test_a_clock_that_does_not_fit_the_game_starts_afresh(journal: Journal) -> None:
    game = Session.new(SETUP, journal).game_id
    assert game is not None
    model = ClockModel(clock=FakeClock(0.0))
    for text in ("{not json", BankState(used=(5.0, 5.0)).to_json()):  # unreadable; two seats for three players
        journal.clocks.save(game, text)
        model.start("goldgraeber", NAMES, TEN_MINUTES, journal, game)
        model.player(0)
        assert model.active and model.bank_text == "10:00"
    model.stop()


@pytest.fixture
def clock_on() -> Iterator[None]:
    TEN_MINUTES.save()
    yield
    ClockSettings().save()


def test_a_killed_app_resumes_with_its_clocks_from_home_and_history(fresh_app: Any, tmp_path: Path,
                                                                   clock: ManualClock, clock_on: None) -> None:
    line = kill_when_ready("tests.app.killed_clock_app", tmp_path)
    game, saved = int(line.split()[1]), BankState.from_json(line.split(maxsplit=2)[2])
    assert saved.seat == 1 and round(saved.used[0]) == 30 and round(saved.turn) == 12
    app = fresh_app
    app.journal_desk.open(Journal(tmp_path / "journal.sqlite3"))
    try:
        with clock.held():  # the seconds shown must not tick on while a loaded machine pauses
            app.go("settings")
            app.go("home")
            pump(2)
            clock.advance(3600)  # the hour the app was dead is charged to no one
            tap(app, app.journal_desk.resume_text)
            assert app.root.current == "table" and app.table.player == app.clocks.seat == 1
            app.clocks.update()
            assert (app.clocks.turn_text, app.clocks.bank_text) == ("0:12", "9:48")
            app.go("history")
            history = app.root.current_screen
            history_read(history.model)
            history.model.select(game)
            assert history.model.times == [{"name": "Anna", "used": "0:30"}, {"name": "Ben", "used": "0:12"},
                                           {"name": "Cleo", "used": "0:00"}]
            pump(1)
            shown = "".join(getattr(child, "text", "") for child in history.ids.result.children)
            assert "Time used" in shown and "0:30" in shown
            history.resume_selected()
            pump(2)
            app.clocks.update()
            assert app.root.current == "table" and (app.clocks.seat, app.clocks.turn_text) == (1, "0:12")
    finally:
        shared_model().select(-1)  # History opens on the newest game again for the tests after this one
        app.table.attach(None)
        app.go("home")


def test_a_read_only_journal_resumes_the_kept_clock_and_still_plays(fresh_app: Any, tmp_path: Path,
                                                                    clock: ManualClock, clock_on: None) -> None:
    folder = tmp_path / "data"
    folder.mkdir()
    journal = Journal(folder / "journal.sqlite3")
    game = Session.new(SETUP, journal).game_id
    assert game is not None
    journal.clocks.save(game, BankState(used=(40.0, 0.0, 0.0), seat=0, turn=15.0, bank_seconds=600).to_json())
    journal.close()
    app = fresh_app
    with read_only_view(folder, tmp_path / "card") as card:
        app.journal_desk.open(Journal(card / "journal.sqlite3", exclusive=True))
        try:
            assert app.journal.read_only
            with clock.held():  # the seconds shown must not tick on while a loaded machine pauses
                app.flow.resume(game)
                pump(2)
                app.clocks.update()
                assert (app.clocks.seat, app.clocks.turn_text, app.clocks.bank_text) == (0, "0:15", "9:05")
                app.flow.press_button("flat", "gpio")
                assert app.clocks.paused
                app.flow.press_button("next", "gpio")
                clock.advance(SAVE_SECONDS + 1)
                app.clocks.update()  # the periodic save is skipped, nothing raised
                assert not app.clocks.paused and app.clocks.turn_text == "0:21"
        finally:
            app.table.attach(None)
            app.journal_desk.open(Journal(folder / "journal.sqlite3"))  # closes the read-only one
            app.go("home")
