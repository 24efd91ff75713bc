"""A damaged game is quarantined, the others stay; `goldtable journal check|salvage|backup`."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from companion.cli import main
from companion.engine.journal import DamagedGame, Journal
from companion.engine.session import Session
from tests.engine.journal_faults import digest, journal_with_games, setup


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def _damage(path: Path, sql: str, *args: object) -> None:
    """Change rows behind the journal's back, the way a half-written sector would (quick_check stays ok)."""
    conn = sqlite3.connect(path)
    conn.execute(sql, args)
    conn.commit()
    conn.close()
    assert Journal(path, read_only=True).integrity == "ok"


@pytest.fixture
def damaged_journal(tmp_path: Path) -> tuple[Path, list[int]]:
    """Five open games: #2 has a cut-off setup, #3 a cut-off action, #4 a bad timestamp."""
    path = tmp_path / "journal.sqlite3"
    ids = journal_with_games(path, games=5)
    _damage(path, "UPDATE games SET setup = substr(setup, 1, 30) WHERE id = ?", ids[1])
    _damage(path, "UPDATE entries SET action = substr(action, 1, 12) WHERE game_id = ? AND n = 1", ids[2])
    _damage(path, "UPDATE entries SET at = 'yesterday noon' WHERE game_id = ? AND n = 2", ids[3])
    return path, ids


def test_damaged_games_are_listed_as_such_and_the_others_stay(damaged_journal: tuple[Path, list[int]]) -> None:
    path, ids = damaged_journal
    journal = Journal(path)
    summaries = {g.id: g for g in journal.games()}
    assert {game_id for game_id, g in summaries.items() if g.damaged} == set(ids[1:4])
    assert summaries[ids[1]].damaged == "its setup is unreadable" and summaries[ids[1]].players == ()
    assert summaries[ids[2]].damaged == "row 1 is unreadable"
    assert summaries[ids[4]].damaged is None and summaries[ids[4]].players == ("Ada", "Bo")
    for game_id in ids[1:4]:
        assert any(f"game {game_id} in the journal {path} is damaged" in n for n in journal.notices)
        with pytest.raises(DamagedGame, match=f"^game {game_id} in the journal .* cannot be resumed or exported"):
            Session.resume(journal, game_id)
    for game_id in (ids[0], ids[4]):
        assert Session.resume(journal, game_id).state.totals == (5, 6)
    journal.close()


def test_resume_line_skips_a_damaged_latest_game_and_names_it(tmp_path: Path) -> None:
    path = tmp_path / "journal.sqlite3"
    ids = journal_with_games(path, games=3)
    _damage(path, "UPDATE entries SET action = '{\"type\": \"ro' WHERE game_id = ?", ids[2])
    _damage(path, "UPDATE games SET finished = '2026-01-01T00:00:00+00:00' WHERE id = ?", ids[1])
    journal = Journal(path)
    summary = journal.latest_unfinished_summary()
    assert summary is not None and summary.id == ids[0] and summary.actions == 3 and summary.damaged is None
    assert journal.damaged == {ids[2]: "row 0 is unreadable"}
    assert any(f"game {ids[2]}" in notice for notice in journal.notices)
    assert journal.latest_unfinished() == ids[0]


def test_resume_line_reads_only_the_game_it_offers(tmp_path: Path) -> None:
    path = tmp_path / "journal.sqlite3"
    ids = journal_with_games(path, games=4)
    _damage(path, "UPDATE entries SET action = 'x' WHERE game_id = ?", ids[0])  # an old game, not offered
    journal = Journal(path)
    statements: list[str] = []
    journal._conn.set_trace_callback(statements.append)
    summary = journal.latest_unfinished_summary()
    assert summary is not None and summary.id == ids[-1] and journal.damaged == {}
    assert len(statements) == 2  # the summary query, then that one game's rows
    journal.close()


def test_export_of_a_damaged_game_is_one_line_the_others_export(damaged_journal: tuple[Path, list[int]],
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    path, ids = damaged_journal
    for game_id in ids[1:4]:
        code, out, err = _run(capsys, "export", str(game_id), "--journal", str(path))
        assert (code, out) == (2, "") and err.count("\n") == 1 and f"game {game_id} in the journal" in err
    code, out, _ = _run(capsys, "export", str(ids[4]), "--journal", str(path))
    assert code == 0 and len(json.loads(out)["actions"]) == 3
    code, out, err = _run(capsys, "games", "--journal", str(path))
    assert code == 0 and out.count("DAMAGED") == 3 and err.count("\n") == 3


def test_journal_check_reports_each_damaged_game(damaged_journal: tuple[Path, list[int]], tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    path, ids = damaged_journal
    before = digest(path)
    code, out, err = _run(capsys, "journal", "check", "--journal", str(path))
    assert code == 1 and err == ""
    lines = out.splitlines()
    assert lines[:3] == [f"game {ids[1]}: damaged (its setup is unreadable)", f"game {ids[2]}: damaged (row 1 is "
                         f"unreadable)", f"game {ids[3]}: damaged (row 2 is unreadable)"]
    assert lines[3].startswith(f"{path}: 2 of 5 games readable; ")
    assert digest(path) == before
    clean = tmp_path / "clean.sqlite3"
    journal_with_games(clean, games=2)
    assert _run(capsys, "journal", "check", "--journal", str(clean)) == (0, f"{clean}: 2 of 2 games readable\n", "")


def test_salvage_copies_every_readable_game_into_a_new_journal(damaged_journal: tuple[Path, list[int]],
                                                                tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    path, ids = damaged_journal
    target = tmp_path / "salvaged.sqlite3"
    code, out, _ = _run(capsys, "journal", "salvage", "--journal", str(path), "-o", str(target))
    assert code == 1
    assert out.splitlines()[-1] == f"2 games copied to {target}, 3 could not be read"
    assert f"game {ids[2]}: not copied (row 1 is unreadable)" in out
    salvaged = Journal(target)
    assert [g.id for g in salvaged.games()] == [ids[4], ids[0]] and salvaged.damaged == {}
    original = Journal(path, read_only=True)
    assert salvaged.history(ids[4]) == original.history(ids[4])
    session = Session.resume(salvaged, ids[4])
    assert session.submit({"type": "roll", "values": ["1"]}, "touch").accepted  # it plays on
    salvaged.close()
    # Never over an existing file.
    before = digest(target)
    code, out, err = _run(capsys, "journal", "salvage", "--journal", str(path), "-o", str(target))
    assert (code, out) == (2, "") and err == f"goldtable: {target}: already exists; choose a new file name\n"
    assert digest(target) == before


def test_backup_is_a_consistent_copy_while_a_writer_is_open(tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "journal.sqlite3"
    journal = Journal(path, exclusive=True, checkpoint_every=10_000)
    session = Session.new(setup(target=90, names=("Ada",)), journal)
    for value in "123456":
        session.submit({"type": "roll", "values": [value]}, "touch")
    assert Path(f"{path}-wal").stat().st_size > 0  # the recent rows are only in the WAL
    copy = tmp_path / "copy.sqlite3"
    code, out, err = _run(capsys, "journal", "backup", "--journal", str(path), "-o", str(copy))
    assert code == 0 and out == f"{path} copied to {copy}\n", err
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("copy")) == ["copy.sqlite3"]
    assert len(Journal(copy, read_only=True).actions(session.game_id)) == 6  # type: ignore[arg-type]
    code, _, err = _run(capsys, "journal", "backup", "--journal", str(path), "-o", str(copy))
    assert code == 2 and "already exists" in err
    journal.close()
