"""The chess clock kept in the journal: one row per game beside its actions, replaced at each save, read
by Resume and History, never part of the record; a journal that cannot be written refuses it like an action."""

from __future__ import annotations

import signal
import sqlite3
from pathlib import Path

import pytest

from companion.engine.journal import SCHEMA_VERSION, Journal, JournalError
from companion.engine.salvage import salvage_file
from companion.engine.session import Session
from companion.engine.timebank import BankState
from tests.engine.journal_faults import journal_with_games, python, read_only_view, setup

KEPT = BankState(used=(12.5, 3.0), seat=1, turn=4.0, bank_seconds=600).to_json()


def test_a_clock_is_kept_per_game_replaced_by_each_save_and_never_enters_the_record(tmp_path: Path) -> None:
    path = tmp_path / "journal.sqlite3"
    first, second = journal_with_games(path, games=2)
    journal = Journal(path)
    assert journal.clocks.load(first) is None
    journal.clocks.save(first, BankState(used=(1.0, 0.0)).to_json())
    journal.clocks.save(first, KEPT, wait_for_disk=False)
    assert journal._write.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL again for the next action
    assert journal.clocks.load(first) == KEPT and journal.clocks.load(second) is None
    assert [g.actions for g in journal.games()] == [3, 3]
    assert "12.5" not in journal.record(first).to_json()
    journal.close()
    reader = Journal(path, read_only=True)
    assert reader.clocks.load(first) == KEPT
    reader.close()


def test_a_clock_saved_without_waiting_for_the_disk_survives_a_killed_app(tmp_path: Path) -> None:
    path = tmp_path / "journal.sqlite3"
    (game,) = journal_with_games(path, games=1)
    child = python("import sys, time\nfrom companion.engine.journal import Journal\n"
                   "journal = Journal(sys.argv[1], exclusive=True)\n"
                   "journal.clocks.save(int(sys.argv[2]), sys.argv[3], wait_for_disk=False)\n"
                   "print('saved', flush=True)\ntime.sleep(60)", str(path), str(game), KEPT)
    try:
        assert child.stdout is not None and child.stdout.readline() == "saved\n"
    finally:
        child.send_signal(signal.SIGKILL)
        child.communicate()
    journal = Journal(path)
    assert journal.clocks.load(game) == KEPT and Session.resume(journal, game).state.totals == (5, 6)
    journal.close()


def test_an_older_journal_gets_the_clocks_table_and_its_games_play_on(tmp_path: Path) -> None:
    path = tmp_path / "journal.sqlite3"
    (game,) = journal_with_games(path, games=1)
    conn = sqlite3.connect(path)
    conn.executescript("DROP TABLE clocks; PRAGMA user_version=2;")  # as schema 2 left it
    conn.close()
    reader = Journal(path, read_only=True)  # read through today's tables, the file untouched
    assert reader.clocks.load(game) is None and len(reader.games()) == 1
    reader.close()
    journal = Journal(path)
    assert journal._conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 4
    journal.clocks.save(game, KEPT)
    assert journal.clocks.load(game) == KEPT
    journal.close()


def test_a_read_only_card_shows_the_kept_clock_and_refuses_a_new_one(tmp_path: Path) -> None:
    folder = tmp_path / "data"
    folder.mkdir()
    (game,) = journal_with_games(folder / "journal.sqlite3", games=1)
    journal = Journal(folder / "journal.sqlite3")
    journal.clocks.save(game, KEPT)
    journal.close()
    with read_only_view(folder, tmp_path / "card") as card:
        journal = Journal(card / "journal.sqlite3", exclusive=True)
        assert journal.read_only and journal.clocks.load(game) == KEPT
        with pytest.raises(JournalError, match="read-only"):
            journal.clocks.save(game, BankState(used=(0.0, 0.0)).to_json(), wait_for_disk=False)
        journal.close()


def test_salvage_keeps_the_clocks(tmp_path: Path) -> None:
    path = tmp_path / "journal.sqlite3"
    first, second = journal_with_games(path, games=2)
    journal = Journal(path)
    journal.clocks.save(second, KEPT)
    journal.close()
    report = salvage_file(path, tmp_path / "copy.sqlite3")
    assert report.copied == (first, second)
    copy = Journal(tmp_path / "copy.sqlite3", read_only=True)
    assert copy.clocks.load(second) == KEPT and copy.clocks.load(first) is None
    copy.close()


def test_a_clock_of_a_session_game_is_apart_from_its_actions(tmp_path: Path) -> None:
    journal = Journal(tmp_path / "journal.sqlite3")
    session = Session.new(setup(), journal)
    assert session.game_id is not None
    journal.clocks.save(session.game_id, KEPT)
    assert session.submit({"type": "roll", "values": ["4"]}, "touch").accepted
    session.undo()
    assert journal.clocks.load(session.game_id) == KEPT and journal.actions(session.game_id) == []
    journal.close()
