"""A damaged game is quarantined, the others stay; `goldtable journal check|salvage|backup`."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from companion.cli import main
from companion.engine.journal import Cut, DamagedGame, Journal
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
    """Five open games: #2 has both copies of its setup cut off, #3 a cut-off action, #4 a bad timestamp."""
    path = tmp_path / "journal.sqlite3"
    ids = journal_with_games(path, games=5)
    _damage(path, "UPDATE games SET setup = substr(setup, 1, 30) WHERE id = ?", ids[1])
    _damage(path, "UPDATE entries SET action = substr(action, 1, 30) WHERE game_id = ? AND kind = 'setup'", ids[1])
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


def test_one_readable_copy_of_a_setup_is_enough(tmp_path: Path) -> None:
    path = tmp_path / "journal.sqlite3"
    ids = journal_with_games(path, games=2)
    for damage, game_id in zip(("UPDATE games SET setup = '{\"game\": \"counting_te' WHERE id = ?",  # one copy each
                                "UPDATE entries SET action = 'garbage' WHERE game_id = ? AND kind = 'setup'"), ids):
        _damage(path, damage, game_id)
    journal = Journal(path)
    assert [(g.players, g.damaged) for g in journal.games()] == [(("Ada", "Bo"), None)] * 2
    for game_id in ids:
        assert Session.resume(journal, game_id).state.totals == (5, 6)
    assert journal.notices == []
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
    assert lines[3:] == [f"{path}: 2 of 5 games readable with SQLite",
                         "`goldtable journal salvage -o NEW` would copy 4 games (10 moves), 2 of them cut where moves "
                         "are missing; 1 could not be read"]
    assert digest(path) == before
    clean = tmp_path / "clean.sqlite3"
    journal_with_games(clean, games=2)
    assert _run(capsys, "journal", "check", "--journal", str(clean)) == (0, f"{clean}: 2 of 2 games readable\n", "")


def test_salvage_copies_every_readable_move_and_cuts_a_game_at_its_first_unreadable_row(
        damaged_journal: tuple[Path, list[int]], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path, ids = damaged_journal
    target = tmp_path / "salvaged.sqlite3"
    code, out, _ = _run(capsys, "journal", "salvage", "--journal", str(path), "-o", str(target))
    assert code == 1
    assert out.splitlines() == [f"game {ids[1]}: not copied (both copies of its setup are unreadable)",
                                f"game {ids[2]}: cut after move 1: 2 moves lost",
                                f"game {ids[3]}: cut after move 2: 1 move lost",
                                f"4 games (10 moves) copied to {target}, 2 cut, 1 could not be read"]
    salvaged = Journal(target)
    summaries = {g.id: g for g in salvaged.games()}
    assert sorted(summaries) == [ids[0], *ids[2:]] and salvaged.damaged == {}
    assert summaries[ids[2]].cut == Cut(moves=1, lost=2, since=0) and summaries[ids[2]].actions == 1
    assert summaries[ids[3]].cut == Cut(moves=2, lost=1, since=0) and summaries[ids[4]].cut is None
    original = Journal(path, read_only=True)
    assert salvaged.history(ids[4]) == original.history(ids[4])
    kept_after_the_gap = json.loads(salvaged._conn.execute(
        "SELECT action FROM entries WHERE game_id = ? AND kind = 'cut'", (ids[2],)).fetchone()[0])["after"]
    assert [row[:2] for row in kept_after_the_gap] == [[2, "action"]]  # row 1 was unreadable, row 2 is kept
    for game_id in (ids[2], ids[4]):
        session = Session.resume(salvaged, game_id)
        assert session.submit({"type": "roll", "values": ["1"]}, "touch").accepted  # it plays on
    assert {g.id: g.cut for g in salvaged.games()}[ids[2]] == Cut(moves=1, lost=2, since=1)
    salvaged.close()
    code, out, _ = _run(capsys, "games", "--journal", str(target))
    line = next(line for line in out.splitlines() if line.startswith(f"{ids[2]:4d}"))
    assert line.endswith("Ada, Bo  (cut after move 1: 2 moves lost)") and "   2 actions  in progress" in line
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
