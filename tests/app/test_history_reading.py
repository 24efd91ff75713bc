"""History reads the journal on a worker thread: the games come to the screen newest first, a batch at a
time through Kivy's Clock, what a new reading has not reached yet stays as it was, an older reading's
late batches are dropped, and the list has row widgets only for the rows in sight."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from kivy.clock import Clock

import companion.app.history as history
from companion.app.demo import demo_setup, play_move
from companion.app.history import HistoryModel
from companion.app.launch import pump
from companion.engine.journal import Journal, JournalDamaged
from companion.engine.session import Session
from tests.app.ui import history_read


def add_games(journal: Journal, count: int, moves: int = 2) -> None:
    for seed in range(count):
        session = Session.new(demo_setup("digger", seed=seed), journal)
        for _ in range(moves):
            play_move(session)


@pytest.fixture
def journal(tmp_path: Path) -> Journal:
    journal = Journal(tmp_path / "journal.sqlite3")
    add_games(journal, 4)
    return journal


@pytest.fixture
def replays(monkeypatch: pytest.MonkeyPatch) -> list[tuple[int, threading.Thread]]:
    """Every game History replays, with the thread it was replayed on; every game its own batch."""
    calls: list[tuple[int, threading.Thread]] = []
    replay = history.read_game

    def recorded(journal: Journal, summary: Any) -> history.GameResult:
        calls.append((summary.id, threading.current_thread()))
        return replay(journal, summary)

    monkeypatch.setattr(history, "read_game", recorded)
    monkeypatch.setattr(history, "BATCH_SECONDS", 0.0)
    return calls


def listed(model: HistoryModel) -> list[list[int]]:
    """The game ids of the list each time it changes."""
    seen: list[list[int]] = []
    model.bind(rows=lambda *_args: seen.append([row["id"] for row in model.rows]))
    return seen


def test_the_games_are_replayed_on_a_worker_and_come_newest_first(journal: Journal,
                                                                  replays: list[tuple[int, threading.Thread]]) -> None:
    ids = [summary.id for summary in journal.games()]
    model = HistoryModel()
    seen = listed(model)
    model.load(journal)
    assert model.loading and model.rows == []  # nothing was read on this thread
    history_read(model)
    assert [game for game, _thread in replays] == ids
    assert all(thread is not threading.main_thread() for _game, thread in replays)
    assert seen == [ids[:count] for count in range(1, len(ids) + 1)]  # the list filled in, newest first
    assert model.selected == ids[0] and model.detail_title.startswith("Digger")


def test_a_new_reading_shows_the_games_it_has_not_reached_yet_as_before(
        journal: Journal, replays: list[tuple[int, threading.Thread]]) -> None:
    model = HistoryModel()
    model.load(journal)
    history_read(model)
    before = [row["id"] for row in model.rows]
    add_games(journal, 1)
    newest = journal.games()[0].id
    replays.clear()
    seen = listed(model)
    model.load(journal)
    history_read(model)
    assert [game for game, _thread in replays] == [newest]  # the others come from the cache
    assert seen and all(ids[-len(before):] == before for ids in seen)
    assert seen[-1] == [newest, *before]


def test_a_newer_reading_drops_the_batches_of_an_older_one(journal: Journal,
                                                           replays: list[tuple[int, threading.Thread]]) -> None:
    model = HistoryModel()
    for _ in range(3):
        model.load(journal)
    history_read(model)
    time.sleep(0.2)
    Clock.tick()  # any batch of the older readings still on its way
    assert [row["id"] for row in model.rows] == [summary.id for summary in journal.games()]
    assert len(model.results) == len({result.summary.id for result in model.results})


def test_games_gone_from_the_journal_are_forgotten(journal: Journal, monkeypatch: pytest.MonkeyPatch) -> None:
    """History keeps each game's replay and row label between visits; a game a salvage dropped is not kept."""
    model = HistoryModel()
    model.load(journal)
    history_read(model)
    kept = list(journal.each_game())[:2]
    monkeypatch.setattr(journal, "each_game", lambda: iter(kept))
    model.load(journal)
    history_read(model)
    ids = {summary.id for summary in kept}
    assert {row["id"] for row in model.rows} == ids
    assert set(model._cache) == ids and set(model._labels) == ids


def test_a_journal_that_cannot_list_its_games_is_said(journal: Journal, monkeypatch: pytest.MonkeyPatch) -> None:
    def damaged() -> Any:
        raise JournalDamaged(journal.path, "file is not a database")

    monkeypatch.setattr(journal, "each_game", damaged)
    model = HistoryModel()
    model.load(journal)
    history_read(model)
    assert "is damaged (file is not a database)" in model.message and model.rows == []


@pytest.fixture
def history_of(fresh_app: Any, tmp_path: Path) -> Iterator[Callable[[int], tuple[Journal, Any]]]:
    """History opened in the app on a journal of `count` Digger games without moves; afterwards History
    opens on the newest game again for the tests after this one."""
    screens: list[Any] = []

    def opened(count: int) -> tuple[Journal, Any]:
        journal = Journal(tmp_path / "journal.sqlite3")
        add_games(journal, count, moves=0)
        fresh_app.journal_desk.open(journal)
        fresh_app.go("history")
        screens.append(fresh_app.root.get_screen("history"))
        return journal, screens[-1]

    yield opened
    for screen in screens:
        screen.model.select(-1)


def test_a_long_history_has_row_widgets_only_for_the_rows_in_sight(
        history_of: Callable[[int], tuple[Journal, Any]]) -> None:
    from kivy.tests.common import UnitTestTouch

    _journal, screen = history_of(40)
    history_read(screen.model)
    pump(2)
    assert len(screen.model.rows) == 40
    assert 3 <= len(screen.ids.rows.children) < 20
    screen.ids.games.scroll_y = 0  # to the oldest game
    pump(2)
    oldest = min(screen.ids.rows.children, key=lambda row: row.game_id)
    assert oldest.game_id == screen.model.rows[-1]["id"]
    touch = UnitTestTouch(*oldest.to_window(*oldest.center))
    touch.touch_down()
    touch.touch_up()
    pump(1)
    assert screen.model.selected == oldest.game_id and oldest.state == "down"


def test_the_list_is_given_only_the_rows_that_changed(history_of: Callable[[int], tuple[Journal, Any]],
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """The RecycleView measures every row again when its whole data is replaced: batches append, a tap
    changes two rows, and what the list holds is always the model's rows with the chosen one down."""
    monkeypatch.setattr(history, "BATCH_SECONDS", 0.0)
    journal, screen = history_of(12)
    flags: list[dict[str, Any]] = []

    def shown() -> list[tuple[int, str]]:
        return [(row["game_id"], row["state"]) for row in screen.ids.games.data]

    def wanted() -> list[tuple[int, str]]:
        return [(row["id"], "down" if row["id"] == screen.model.selected else "normal") for row in screen.model.rows]

    screen.ids.games.data_model.bind(on_data_changed=lambda _model, **changes: flags.append(changes))
    screen.ids.games.data = []
    screen.model.load(journal)
    assert "Reading the games in the journal…" in [getattr(widget, "text", "") for widget in screen.walk()]
    history_read(screen.model)
    pump(2)
    assert shown() == wanted() and len(shown()) == 12
    assert flags[0] == {} and all(set(changes) <= {"appended", "modified"} for changes in flags[1:])
    assert any("appended" in changes for changes in flags)
    flags.clear()
    screen.model.select(screen.model.rows[5]["id"])
    pump(1)
    assert shown() == wanted()
    assert sorted(changes["modified"].start for changes in flags) == [0, 5]
    add_games(journal, 1, moves=0)  # a new game comes first: every row moves down one
    screen.model.load(journal)
    history_read(screen.model)
    pump(2)
    assert shown() == wanted() and len(shown()) == 13
