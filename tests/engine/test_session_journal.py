"""Session + journal: validate, journal, acknowledge; undo is journalled; resume; unreadable files."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from companion.engine.core import Player, Setup
from companion.engine.journal import Journal
from companion.engine.record import replay
from companion.engine.session import Session
from tests.engine.counting_game import COUNTING_ID


def _setup(target: int = 12, players: int = 2) -> Setup:
    return Setup(game=COUNTING_ID, players=tuple(Player(name=f"P{i}") for i in range(players)),
                 options={"target": target}, seed=7)


def test_refused_action_changes_nothing_and_is_not_journalled(journal: Journal) -> None:
    session = Session.new(_setup(), journal)
    before = session.state
    outcome = session.submit({"type": "pass"}, "touch")
    assert not outcome.accepted
    assert outcome.refusal is not None and outcome.refusal.rule == "CT-1"
    assert session.state == before
    assert journal.actions(session.game_id) == []


def test_malformed_action_is_refused_with_reason(journal: Journal) -> None:
    session = Session.new(_setup(), journal)
    outcome = session.submit({"type": "roll", "values": ["7"]}, "serial")
    assert not outcome.accepted
    assert outcome.refusal is not None and outcome.refusal.code == "action.malformed"
    assert "values" in outcome.refusal.text()


def test_an_action_of_an_unknown_type_is_refused_naming_its_type(journal: Journal) -> None:
    """pydantic places an unknown tag nowhere; the message names the type, not empty brackets."""
    session = Session.new(_setup(), journal)
    outcome = session.submit({"type": "rob", "colour": "W"}, "serial")
    assert outcome.refusal is not None and outcome.refusal.code == "action.malformed"
    assert outcome.refusal.text().startswith("Unreadable input (type): ")


def test_accepted_actions_are_journalled_before_acknowledged(journal: Journal) -> None:
    session = Session.new(_setup(), journal)
    assert session.submit({"type": "roll", "values": ["4"]}, "gpio").accepted
    other = Journal(journal.path)  # a second connection sees the row at once: it is committed
    assert [a.action for a in other.actions(session.game_id)] == [{"type": "roll", "values": ["4"]}]
    assert other.actions(session.game_id)[0].source == "gpio"
    other.close()


def test_undo_is_journalled_and_history_kept(journal: Journal) -> None:
    session = Session.new(_setup(), journal)
    session.submit({"type": "roll", "values": ["2"]}, "touch")
    session.submit({"type": "roll", "values": ["5"]}, "touch")
    assert session.undo().accepted
    assert session.state.totals == (2, 0)
    kinds = [kind for kind, _ in journal.history(session.game_id)]
    assert kinds == ["action", "action", "undo"]
    assert len(journal.actions(session.game_id)) == 1
    resumed = Session.resume(journal, session.game_id)
    assert resumed.state == session.state


def test_an_undo_is_journalled_with_its_source_and_frame(journal: Journal) -> None:
    """An undo asked by a device's button keeps where it came from, and its frame is known as recorded:
    a restarted app answers the device's resend of it instead of refusing it."""
    session = Session.new(_setup(), journal)
    session.submit({"type": "roll", "values": ["2"]}, "serial", ref="serial:8")
    assert session.undo("serial", "serial:9").accepted
    rows = sqlite3.connect(journal.path).execute(
        "SELECT kind, source, ref FROM entries WHERE game_id = ? AND n >= 0 ORDER BY n", (session.game_id,)).fetchall()
    assert rows == [("action", "serial", "serial:8"), ("undo", "serial", "serial:9")]
    assert journal.is_recorded("serial:9") and not journal.is_recorded("serial:8")
    session.submit({"type": "roll", "values": ["3"]}, "touch")
    assert session.undo().accepted  # by touch: no frame
    assert sqlite3.connect(journal.path).execute(
        "SELECT source, ref FROM entries WHERE game_id = ? ORDER BY n DESC LIMIT 1", (session.game_id,)).fetchone() \
        == ("touch", None)


def test_undo_with_nothing_to_undo_is_refused(journal: Journal) -> None:
    session = Session.new(_setup(), journal)
    outcome = session.undo()
    assert not outcome.accepted and outcome.refusal is not None and outcome.refusal.rule == "TABLE-1"
    assert journal.history(session.game_id) == []


def test_finished_game_is_marked_and_reopened_by_undo(journal: Journal) -> None:
    session = Session.new(_setup(target=3), journal)
    session.submit({"type": "roll", "values": ["6"]}, "touch")
    assert session.is_over()
    assert journal.latest_unfinished() is None
    assert journal.games()[0].finished
    session.undo()
    assert journal.latest_unfinished() == session.game_id


def test_resume_rebuilds_exact_state(journal: Journal) -> None:
    session = Session.new(_setup(target=40, players=3), journal)
    for value in "3625416":
        session.submit({"type": "roll", "values": [value]}, "serial")
    resumed = Session.resume(Journal(journal.path), session.game_id)
    assert resumed.state == session.state
    assert resumed.actions == session.actions


def test_virtual_roll_is_reproducible_from_seed(journal: Journal) -> None:
    first = Session.new(_setup(target=30))
    second = Session.new(_setup(target=30))
    for _ in range(5):
        first.virtual_roll()
        second.virtual_roll()
    assert first.state == second.state
    assert all(a.source == "virtual" for a in first.actions)


def test_journal_record_replays_to_same_state(journal: Journal) -> None:
    session = Session.new(_setup(target=20), journal)
    while not session.is_over():
        session.virtual_roll()
    record = journal.record(session.game_id)
    assert replay(record).state == session.state


def test_games_listing_counts_actions_in_force(journal: Journal) -> None:
    session = Session.new(_setup(), journal)
    session.submit({"type": "roll", "values": ["1"]}, "touch")
    session.submit({"type": "roll", "values": ["1"]}, "touch")
    session.undo()
    (summary,) = journal.games()
    assert summary.actions == 1 and summary.players == ("P0", "P1") and not summary.finished


def test_journal_from_a_newer_program_is_refused_untouched(tmp_path: Path) -> None:
    import pytest

    from companion.engine.journal import APPLICATION_ID, JournalOpenError

    path = tmp_path / "journal.sqlite3"
    conn = sqlite3.connect(path)
    conn.execute(f"PRAGMA application_id={APPLICATION_ID}")
    conn.execute("PRAGMA user_version=99")
    conn.close()
    before = path.read_bytes()
    with pytest.raises(JournalOpenError, match="newer Goldtable"):
        Journal(path)
    assert path.read_bytes() == before and sorted(p.name for p in tmp_path.iterdir()) == ["journal.sqlite3"]


def test_journal_write_failure_leaves_state_unchanged(journal: Journal) -> None:
    session = Session.new(_setup(), journal)
    before = session.state
    journal.close()  # any write now fails
    try:
        session.submit({"type": "roll", "values": ["3"]}, "touch")
    except Exception as error:  # noqa: BLE001 - the type is part of what we check
        assert type(error).__name__ == "JournalError"
    else:
        raise AssertionError("a failed journal write must not be acknowledged")
    assert session.state == before and session.actions == []


def test_bad_options_give_a_user_error_naming_the_option() -> None:
    import pytest

    from companion.engine.errors import UserError

    with pytest.raises(UserError, match=r"^options: target: "):
        Session.new(_setup(target=0))
    with pytest.raises(UserError, match=r"^options: colour: "):
        Session.new(Setup(game=COUNTING_ID, players=(Player(name="A"),), options={"colour": "red"}))


def test_seats_that_do_not_fit_the_game_are_refused_at_start() -> None:
    import pytest

    from companion.engine.errors import UserError

    with pytest.raises(UserError, match=r"^players: Counting \(test\) needs 1-4 players, not 5$"):
        Session.new(_setup(players=5))
    with pytest.raises(UserError, match=r"^first_player: must be a seat from 0 to 1$"):
        Session.new(_setup().evolve(first_player=2))
    with pytest.raises(UserError, match=r"^players: player names must be different$"):
        Session.new(Setup(game=COUNTING_ID, players=(Player(name="A"), Player(name="A"))))


def test_reads_never_wait_for_a_commit_under_way_and_cannot_write(journal: Journal) -> None:
    """The UI thread reads while the writer thread is inside a transaction: it sees the last commit at
    once (WAL), not the rows still being written, and its connection refuses to write."""
    session = Session.new(_setup(), journal)
    assert session.submit({"type": "roll", "values": ["4"]}, "serial", ref="tray:1").accepted
    writing = journal._write
    writing.execute("BEGIN IMMEDIATE")  # a transaction under way, its lock held (as during the fsync)
    writing.execute("INSERT INTO entries (game_id, n, kind, at, source, action, ref) VALUES "
                    "(?, 1, 'action', '2026-01-01T00:00:00+00:00', 'serial', '{\"type\": \"pass\"}', 'tray:2')",
                    (session.game_id,))
    assert journal.is_recorded("tray:1") and not journal.is_recorded("tray:2")
    assert [summary.actions for summary in journal.games()] == [1]
    writing.execute("ROLLBACK")
    with pytest.raises(sqlite3.OperationalError, match="readonly"):
        journal._conn.execute("DELETE FROM entries")
