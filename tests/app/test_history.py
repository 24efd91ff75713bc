"""History, statistics and export: every journalled game is listed, resumable or abandonable, exported as a
record and as CSV to a (stand-in) USB stick, drawn as a picture; undo on the table says what to put back."""

from __future__ import annotations

import csv
import errno
import io
import os
import threading
from pathlib import Path
from typing import Any

import pytest
from kivy.clock import Clock

from companion.app.chart import session_turn_scores
from companion.app.demo import demo_session
from companion.app.history import HistoryModel, games_csv, player_stats, read_game, seat_colour, usb_folders
from companion.app.launch import pump
from companion.engine import paths
from companion.engine.core import Player, Setup
from companion.engine.journal import Journal
from companion.engine.record import load_record, replay
from companion.engine.session import Session
from tests.app.test_play_touch import set_up_four_players
from tests.app.ui import buttons, history_read, label_texts, tap, until
from tests.table_helpers import make_controller, played


@pytest.fixture
def journal(tmp_path: Path) -> Journal:
    """A finished Digger game, an interrupted one, and an interrupted Goldgräber game with colour names."""
    path = tmp_path / "journal.sqlite3"
    demo_session(path, moves=None).journal.close()  # type: ignore[union-attr]
    demo_session(path, moves=9).journal.close()  # type: ignore[union-attr]
    journal = Journal(path)
    setup = Setup(game="goldgraeber", players=tuple(Player(name=n, colour=c) for n, c in
                                                    (("Anna", "red"), ("Ben", "blue"), ("Cleo", "green"))))
    Session.new(setup, journal)
    return journal


def loaded(journal: Journal) -> HistoryModel:
    """A History model that has read the whole journal."""
    model = HistoryModel()
    model.load(journal)
    history_read(model)
    return model


def test_rows_statuses_and_stats_follow_the_replayed_games(journal: Journal) -> None:
    model = loaded(journal)
    assert [row["status"] for row in model.rows] == ["open", "open", "finished"]  # newest first
    finished = Session.resume(journal, journal.games()[-1].id)
    scores = finished.scores()
    winners = finished.game.winners(finished.state)
    stats = {entry.name: entry for entry in player_stats(model.results)}
    players = finished.setup.players
    assert {name: (entry.plays, entry.wins, entry.average) for name, entry in stats.items()} == {
        player.name: (1, int(seat in winners), float(scores[seat])) for seat, player in enumerate(players)}
    model.select(journal.games()[-1].id)
    assert not model.can_resume and model.chart == session_turn_scores(finished.game, finished.states)
    assert [line["winner"] for line in model.detail_lines].count(True) == len(winners)


def test_abandon_keeps_the_game_but_stops_offering_it(journal: Journal) -> None:
    model = loaded(journal)
    newest = journal.games()[0].id
    model.select(newest)
    assert model.can_resume
    model.abandon()
    assert model.loading and model.message == "The game was abandoned; it stays in the history."
    history_read(model)
    assert model.message == "The game was abandoned; it stays in the history."
    assert journal.latest_unfinished() != newest
    assert model.result(newest).status == "abandoned"  # type: ignore[union-attr]
    assert len(player_stats(model.results)) == 4  # abandoned games do not count as played


def test_colour_names_from_records_become_hex(journal: Journal) -> None:
    result = read_game(journal, journal.games()[0])
    assert result.colours == ("#ff0000", "#0000ff", "#008000")
    assert seat_colour(Setup(game="digger", players=(Player(name="A", colour="no-such"), Player(name="B"))), 0) \
        .startswith("#")


def test_export_to_the_usb_stick_record_replays_and_csv_has_every_seat(journal: Journal, tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    stick = tmp_path / "stick"
    stick.mkdir()
    monkeypatch.setenv("GOLDTABLE_USB", str(stick))
    assert usb_folders() == [stick]
    model = loaded(journal)
    model.select(journal.games()[-1].id)
    model.export_record()
    path = saved_as(model)
    assert path.parent.parent == stick
    record = load_record(path)
    assert list(replay(record, str(path)).state.model_dump().items()) == \
        list(Session.resume(journal, journal.games()[-1].id).state.model_dump().items())
    model.export_csv()
    table = saved_as(model)
    rows = list(csv.DictReader(io.StringIO(table.read_text(encoding="utf-8"))))
    assert len(rows) == sum(len(result.names) for result in model.results)
    assert {row["status"] for row in rows} == {"open", "finished"}
    assert table.read_bytes().decode("utf-8") == games_csv(model.results)
    model.export_csv()
    assert saved_as(model) == table, "the same table again lands on the same file"
    table.write_text("name,score\nAnna,99\n", encoding="utf-8")  # edited on someone's computer
    model.export_csv()
    assert saved_as(model) == table.with_name("goldtable-games-2.csv")
    assert table.read_text(encoding="utf-8") == "name,score\nAnna,99\n", "an edited file is never replaced"
    monkeypatch.setenv("GOLDTABLE_USB", str(tmp_path / "not-plugged-in"))
    assert usb_folders() == []


def test_an_export_is_said_saved_only_once_it_is_on_the_stick(journal: Journal, tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """A family takes the stick out when the screen says saved: the file and its folder are flushed to the
    stick first (on a thread: a stick takes up to seconds), and a stick that fails then is said so."""
    monkeypatch.setenv("GOLDTABLE_USB", str(tmp_path))
    model = loaded(journal)
    flushing, synced = threading.Event(), []

    def slow_stick(folder: Path) -> None:
        assert flushing.wait(30), "the test never let the stick take the file"
        synced.append(sorted(entry.name for entry in folder.iterdir()))
        if len(synced) == 2:
            raise OSError(errno.EIO, "Input/output error")

    monkeypatch.setattr(paths, "sync_folder", slow_stick)
    model.export_csv()
    assert model.message == "Saving goldtable-games.csv…", "said at once, before the stick is looked into"
    for _ in range(5):
        Clock.tick()
    assert model.message == "Saving goldtable-games.csv…" and not synced, "not saved before it is on the stick"
    flushing.set()
    table = saved_as(model)
    table.write_text("edited\n", encoding="utf-8")
    model.export_csv()
    until(lambda: model.message.startswith("Could not save"), "the stick's failure")
    assert synced == [["goldtable-games.csv"], ["goldtable-games-2.csv", "goldtable-games.csv"]]
    assert model.message == (f"Could not save: the card or stick holding {table.parent} could not be written "
                             "(taken out, or failing)"), "in words the catalogs translate, not the system's English"


def test_a_stick_too_full_for_the_export_is_left_without_part_of_it(journal: Journal, tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """A file the stick could not take whole is not left there looking like an export (a torn CSV opens in a
    spreadsheet as if it were every game), and saving again once there is room takes the usual name."""
    monkeypatch.setenv("GOLDTABLE_USB", str(tmp_path))
    model = loaded(journal)
    flush = os.fsync

    def full_stick(handle: int) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "fsync", full_stick)
    model.export_csv()
    until(lambda: model.message.startswith(("Saved as ", "Could not save")), "the export to reach the stick")
    assert model.message == f"Could not save: the disk holding {tmp_path / 'goldtable'} is full"
    assert list((tmp_path / "goldtable").iterdir()) == [], "neither part of the file nor a temporary"
    monkeypatch.setattr(os, "fsync", flush)
    model.export_csv()
    assert saved_as(model) == tmp_path / "goldtable" / "goldtable-games.csv"


def test_an_export_never_waits_on_the_screens_thread_for_a_slow_stick(journal: Journal, tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """Finding the stick, comparing with a file already there and writing each take up to a second on a
    slow stick: none of it happens on the thread that draws the screen."""
    import companion.app.history as history

    monkeypatch.setenv("GOLDTABLE_USB", str(tmp_path))
    model = loaded(journal)
    stick_answers, looked = threading.Event(), []

    def slow_folder() -> tuple[Path, bool]:
        looked.append(threading.current_thread())
        assert stick_answers.wait(30), "the test never let the stick answer"
        return tmp_path / "goldtable", True

    monkeypatch.setattr(history, "export_folder", slow_folder)
    model.export_csv()
    assert model.message == "Saving goldtable-games.csv…"
    stick_answers.set()
    assert saved_as(model).parent == tmp_path / "goldtable"
    assert looked and threading.current_thread() not in looked


def saved_as(model: HistoryModel) -> Path:
    """The file an export wrote, once the screen says it is saved."""
    until(lambda: model.message.startswith(("Saved as ", "Could not save")), "the export to reach the stick")
    assert model.message.startswith("Saved as "), model.message
    return Path(model.message.removeprefix("Saved as "))


def test_history_from_home_resume_picture_and_stats_by_touch(fresh_app: Any, tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    app = fresh_app
    monkeypatch.setenv("GOLDTABLE_USB", str(tmp_path))
    set_up_four_players(app)  # leaves an open game in the journal
    app.go("home")
    pump(2)
    tap(app, "History", frames=2)
    assert app.root.current == "history"
    screen = app.root.current_screen
    history_read(screen.model)
    assert buttons(app, "All games (CSV)"), "the games can be saved as CSV"
    tap(app, "Picture", frames=2)
    until(lambda: screen.model.message.startswith("Saved as"), "the picture to reach the stick")
    [picture] = (tmp_path / "goldtable").glob("*-result.png")
    assert picture.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and str(picture) in screen.model.message
    tap(app, "Picture", frames=2)
    until(lambda: screen.model.message.startswith("Saved as"), "the same picture again")
    assert list((tmp_path / "goldtable").glob("*-result*.png")) == [picture], "the same picture, the same file"
    tap(app, "Statistics", frames=2)
    assert app.root.current == "stats"
    tap(app, "Back", frames=2)
    open_id = next(row["id"] for row in screen.model.rows if row["status"] == "open")
    screen.model.select(open_id)
    pump(1)
    tap(app, "Resume", frames=2)
    assert app.root.current == "table" and app.table.session.game_id == open_id


def test_an_empty_history_says_what_it_will_hold_and_offers_nothing_to_save(fresh_app: Any, tmp_path: Path) -> None:
    """A first evening's History is not a blank panel, in the family's language, and has no CSV to save."""
    app = fresh_app
    shared = app.journal.path
    app.journal_desk.open(Journal(tmp_path / "journal.sqlite3"))
    try:
        tap(app, "History", frames=2)
        history_read(app.root.current_screen.model)
        pump(2)
        assert any(text.startswith("No games yet.") for text in label_texts(app))
        assert buttons(app, "All games (CSV)", disabled=True), "nothing to save"
        app.preferences.set_language("de")
        pump(2)
        assert any(text.startswith("Noch keine Spiele.") for text in label_texts(app))
    finally:
        app.preferences.set_language("en")
        app.go("home")
        app.journal_desk.open(Journal(shared))


def test_undo_on_the_table_says_what_to_put_back(fresh_app: Any) -> None:
    app = fresh_app
    set_up_four_players(app)
    session = app.table.session
    assert played(app.table.session, app.flow.controller.submit, {"type": "roll", "values": ["Y", "R", "R", "B", "B"]})
    assert played(app.table.session, app.flow.controller.submit, {"type": "take", "colour": "Y"})
    digger = session.setup.players[session.state.digger].name
    # the Undo button and the hardware undo button both end here
    assert played(app.table.session, app.flow.controller.undo)
    assert f"Put the yellow stone from {digger}'s hand back into the middle." in app.table.notice_text
    app.flow.controller.answer_notice("dismiss")
    # red shows twice: refused
    assert not played(app.table.session, app.flow.controller.submit, {"type": "take", "colour": "R"})
    assert f"Put the red stone from {digger}'s hand back into the middle." in app.table.refusal_text


def test_undo_names_the_board_places_to_highlight() -> None:
    session = demo_session(None, moves=0, game="goldgraeber")
    controller = make_controller(session)
    table = controller.table
    while session.state.phase != "move":  # type: ignore[attr-defined]
        assert played(session, controller.submit, {"type": "roll", "values": ["4"]})
    seat = session.state.actor  # type: ignore[attr-defined]
    start = session.state.figures[seat]  # type: ignore[attr-defined]
    target = sorted(session.game.destinations(session.state))[0]  # type: ignore[attr-defined]
    assert played(session, controller.submit, {"type": "move", "to": target})
    assert played(session, controller.undo)
    assert table.put_back_places == [target, start]
    assert "figure back from" in table.notice_text
    controller.answer_notice("dismiss")
    assert table.put_back_places == []
