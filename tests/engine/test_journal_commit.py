"""One transaction per submit and undo; WAL checkpoints; a kill at every commit point loses nothing acknowledged."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from companion.engine.journal import Journal, JournalError
from companion.engine.session import Session
from tests.engine.journal_faults import setup

ROOT = Path(__file__).resolve().parents[2]


def _fail_on(journal: Journal, table: str, event: str) -> None:
    """Make the next write of that kind fail inside the transaction (a temporary trigger on this connection)."""
    journal._write.execute(f"CREATE TEMP TRIGGER fail_{table}_{event} BEFORE {event} ON main.{table} "
                          f"BEGIN SELECT RAISE(ABORT, 'injected fault'); END")


def _rows(path: Path, game_id: int) -> list[tuple[str, object]]:
    return [(kind, entry.action if entry else None) for kind, entry in Journal(path, read_only=True).history(game_id)]


def test_an_ending_action_and_its_end_mark_are_one_transaction(journal: Journal) -> None:
    session = Session.new(setup(target=5), journal)
    assert session.submit({"type": "roll", "values": ["4"]}, "touch").accepted
    _fail_on(journal, "games", "UPDATE")  # the end mark fails after the action row was written
    before = session.state
    with pytest.raises(JournalError, match="injected fault"):
        session.submit({"type": "roll", "values": ["6"]}, "touch")
    assert session.state == before and len(session.actions) == 1 and not session.is_over()
    assert _rows(journal.path, session.game_id) == [("action", {"type": "roll", "values": ["4"]})]  # type: ignore[arg-type]
    assert journal.latest_unfinished() == session.game_id
    journal._write.execute("DROP TRIGGER fail_games_UPDATE")
    assert session.submit({"type": "roll", "values": ["6"]}, "touch").accepted  # the retry: once only
    assert len(_rows(journal.path, session.game_id)) == 2  # type: ignore[arg-type]
    assert journal.latest_unfinished() is None and journal.games()[0].finished


def test_an_undo_and_reopening_the_game_are_one_transaction(journal: Journal) -> None:
    session = Session.new(setup(target=5), journal)
    assert session.submit({"type": "roll", "values": ["6"]}, "touch").accepted and session.is_over()
    _fail_on(journal, "games", "UPDATE")
    with pytest.raises(JournalError):
        session.undo()
    assert session.is_over() and len(session.actions) == 1
    assert [kind for kind, _ in _rows(journal.path, session.game_id)] == ["action"]  # type: ignore[arg-type]
    assert journal.games()[0].finished


def test_a_failed_commit_changes_nothing_and_a_retry_journals_once(journal: Journal) -> None:
    session = Session.new(setup(target=50), journal)
    _fail_on(journal, "entries", "INSERT")
    with pytest.raises(JournalError):
        session.submit({"type": "roll", "values": ["2"]}, "serial", ref="serial:7")
    assert session.actions == [] and not session.is_recorded("serial:7")
    journal._write.execute("DROP TRIGGER fail_entries_INSERT")
    assert session.submit({"type": "roll", "values": ["2"]}, "serial", ref="serial:7").accepted
    assert session.is_recorded("serial:7")
    assert [a.ref for a in Journal(journal.path, read_only=True).actions(session.game_id)] == ["serial:7"]  # type: ignore[arg-type]


def test_the_wal_is_checkpointed_at_game_end_every_n_moves_and_on_close(tmp_path: Path) -> None:
    path = tmp_path / "journal.sqlite3"
    wal = Path(f"{path}-wal")
    journal = Journal(path, checkpoint_every=4)
    session = Session.new(setup(target=30), journal)
    sizes = []
    for value in "1111":
        session.submit({"type": "roll", "values": [value]}, "touch")
        sizes.append(wal.stat().st_size)
    assert all(size > 0 for size in sizes[:3]) and sizes[3] == 0  # the 4th append checkpointed
    session.submit({"type": "roll", "values": ["2"]}, "touch")
    assert wal.stat().st_size > 0
    while not session.is_over():
        session.submit({"type": "roll", "values": ["6"]}, "touch")
    assert wal.stat().st_size == 0  # the game's end
    other = Session.new(setup(), journal)
    other.submit({"type": "roll", "values": ["3"]}, "touch")
    # A copy of the main file alone (what a careless backup takes) already holds the finished game.
    copy = tmp_path / "copy.sqlite3"
    copy.write_bytes(path.read_bytes())
    assert Journal(copy, read_only=True).games()[-1].finished
    journal.close()
    assert not wal.exists() or wal.stat().st_size == 0
    copy.unlink()
    copy.write_bytes(path.read_bytes())
    assert [g.actions for g in Journal(copy, read_only=True).games()] == [1, len(session.actions)]


KILL_POINTS = [
    ("INSERT INTO entries", 7, 0, "digger"),  # inside the transaction: not on disk, and was not ACKed
    ("COMMIT", 9, 0, "digger"),  # the commit itself is cut
    ("ACK", 7, 1, "digger"),  # committed, killed before the table heard OK: on disk, resumed with it
    ("PRAGMA wal_checkpoint", 1, 1, "digger"),  # the checkpoint after every N appends: that action is committed
    ("UPDATE games SET finished", 1, 0, "counting_test"),  # the game's last action together with its end mark
    ("PRAGMA wal_checkpoint", 1, 1, "counting_test"),  # the checkpoint at the game's end
]


@pytest.mark.parametrize("writer", ["inline", "thread"])
@pytest.mark.parametrize(("statement", "occurrence", "unannounced", "game"), KILL_POINTS)
def test_a_kill_at_every_commit_point_loses_nothing_acknowledged(tmp_path: Path, statement: str, occurrence: int,
                                                                 unannounced: int, game: str, writer: str) -> None:
    """Committed on the calling thread (the CLI) and on the journal's writer thread (the app) alike."""
    path = tmp_path / "journal.sqlite3"
    child = subprocess.run([sys.executable, "-m", "tests.engine.journal_writer", str(path), "5", statement,
                            str(occurrence), game, writer], cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)},
                           capture_output=True, text=True, timeout=120)
    assert child.returncode == -signal.SIGKILL, child.stderr
    lines = child.stdout.splitlines()
    game_id = int(lines[0].split()[1])
    acknowledged = [json.loads(line.split(" ", 2)[2]) for line in lines if line.startswith("ACK")]
    journal = Journal(path)
    assert journal.needs_salvage is None and journal.notices == [] and not journal.read_only
    resumed = Session.resume(journal, game_id)
    journalled = [entry.action for entry in resumed.actions]
    assert journalled[:len(acknowledged)] == acknowledged
    assert len(journalled) - len(acknowledged) == unannounced
    (summary,) = journal.games()
    assert summary.finished == resumed.is_over() and summary.damaged is None  # never one without the other
    if statement == "UPDATE games SET finished":
        assert not resumed.is_over() and journal.latest_unfinished() == game_id
    if game == "counting_test" and statement == "PRAGMA wal_checkpoint":
        assert resumed.is_over() and journal.latest_unfinished() is None
    if not resumed.is_over():  # and it plays on
        legal = resumed.game.legal_actions(resumed.state)
        outcome = resumed.submit(legal[0], "touch") if legal else resumed.virtual_roll("touch")
        assert outcome is not None and outcome.accepted
    journal.close()
