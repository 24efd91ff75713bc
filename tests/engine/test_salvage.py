"""Salvage reads rows, not trees: one bad page of a journal costs at most the moves stored on that page.

The sweep damages every page of real Digger journals in turn (several seeds and sizes) and checks that
every acknowledged move not stored on that page comes back, byte for byte, and that no game is lost;
then the pages that every game depends on in a b-tree (schema, `games`, interior, index) one by one.
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path
from random import Random

import pytest

from companion.cli import main
from companion.engine.journal import APPLICATION_ID, SCHEMA_VERSION, Journal, JournalOpenError
from companion.engine.salvage import move_pages, salvage_file, salvaged_moves
from companion.engine.session import Session
from tests.engine.journal_faults import digest, digger_journal

PAGE = 4096
Key = tuple[int, int]


def _acknowledged(path: Path) -> dict[Key, tuple[object, ...]]:
    """Every move row SQLite reads from an intact journal (the undos included)."""
    conn = sqlite3.connect(path)
    try:
        return {(row[0], row[1]): row for row in conn.execute(
            "SELECT game_id, n, kind, at, source, action, ref FROM entries WHERE kind IN ('action', 'undo')")}
    finally:
        conn.close()


def _damage(path: Path, copy: Path, page: int, how: str, rng: Random) -> None:
    data = bytearray(path.read_bytes())
    start = (page - 1) * PAGE
    size = 64 if how == "64 bytes" else PAGE
    data[start:start + size] = rng.randbytes(size)
    copy.write_bytes(bytes(data))


@pytest.mark.parametrize("seed, games", [(1, 3), (2, 6), (5, 2)])
@pytest.mark.parametrize("how", ["whole page", "64 bytes"])
def test_every_page_damaged_in_turn_costs_at_most_the_moves_stored_on_it(tmp_path: Path, seed: int, games: int,
                                                                        how: str) -> None:
    path = tmp_path / "journal.sqlite3"
    digger_journal(path, seed, games)
    acknowledged = _acknowledged(path)
    stored = move_pages(path)
    assert set(stored) == set(acknowledged)  # the page reader sees every row SQLite sees
    pages = path.stat().st_size // PAGE
    assert pages >= 10
    rng = Random(seed)
    for page in range(1, pages + 1):
        damaged, target = tmp_path / f"damaged-{page}.sqlite3", tmp_path / f"salvaged-{page}.sqlite3"
        _damage(path, damaged, page, how, rng)
        report = salvage_file(damaged, target)
        assert report.lost == {} and len(report.copied) == games, (page, report.lost)
        recovered = salvaged_moves(target)
        missing = {key for key in acknowledged if key not in recovered}
        assert missing <= {key for key, on in stored.items() if page in on}, (page, sorted(missing))
        assert all(recovered[key] == acknowledged[key] for key in recovered), page  # nothing invented or changed
        journal = Journal(target, read_only=True)
        for summary in journal.games():
            assert summary.damaged is None
            assert len(Session.resume(journal, summary.id).actions) == summary.actions  # the line replays
        journal.close()
        damaged.unlink()
        target.unlink()


def _pages_named(path: Path, name: str, kind: str | None = None) -> list[int]:
    """The pages SQLite's dbstat gives to a table or index (interior or leaf ones only, if asked)."""
    conn = sqlite3.connect(path)
    try:
        return [page for page, page_type in conn.execute("SELECT pageno, pagetype FROM dbstat WHERE name = ?",
                                                         (name,)) if kind is None or page_type == kind]
    finally:
        conn.close()


@pytest.fixture(scope="module")
def big_journal(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Enough games that `games`, the entries and their index each span pages and have interior pages."""
    path = tmp_path_factory.mktemp("big") / "journal.sqlite3"
    digger_journal(path, seed=7, games=14)
    return path


@pytest.mark.parametrize("what", ["schema", "games", "games interior", "entries interior", "index leaf",
                                  "index interior"])
@pytest.mark.parametrize("how", ["whole page", "64 bytes"])
def test_a_damaged_schema_games_interior_or_index_page_loses_no_game_and_no_move(
        big_journal: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], what: str, how: str) -> None:
    pages = {"schema": [1], "games": _pages_named(big_journal, "games", "leaf"),
             "games interior": _pages_named(big_journal, "games", "internal"),
             "entries interior": _pages_named(big_journal, "entries", "internal"),
             "index leaf": _pages_named(big_journal, "sqlite_autoindex_entries_1", "leaf"),
             "index interior": _pages_named(big_journal, "sqlite_autoindex_entries_1", "internal")}[what]
    assert pages, what
    acknowledged = _acknowledged(big_journal)
    games = Journal(big_journal, read_only=True).games()
    for page in pages:
        damaged, target = tmp_path / "damaged.sqlite3", tmp_path / "salvaged.sqlite3"
        _damage(big_journal, damaged, page, how, Random(page))
        code, out, err = _run(capsys, "journal", "salvage", "--journal", str(damaged), "-o", str(target))
        assert (code, err) == (0, ""), out
        assert out.startswith(f"14 games ({len(acknowledged)} moves) copied to {target}, 0 cut, 0 could not be read")
        assert salvaged_moves(target) == acknowledged
        salvaged = Journal(target, read_only=True)
        again = salvaged.games()
        assert [(g.id, g.players, g.actions, g.cut) for g in again] == [(g.id, g.players, g.actions, None)
                                                                         for g in games]
        for before, after in zip(games, again):  # a lost games row: the rules say if the game ended
            over = Session.resume(salvaged, after.id).is_over()
            assert after.finished == before.finished or (what == "games" and before.finished and not over), after.id
        salvaged.close()
        damaged.unlink()
        target.unlink()


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_the_issue_s_three_games_with_the_games_page_hit_come_back_whole(tmp_path: Path,
                                                                         capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "journal.sqlite3"
    digger_journal(path, seed=3, games=3)
    (games_page,) = _pages_named(path, "games")
    damaged = tmp_path / "damaged.sqlite3"
    _damage(path, damaged, games_page, "64 bytes", Random(0))
    before = digest(damaged)
    code, out, err = _run(capsys, "games", "--journal", str(damaged))
    assert code == 2 and "is damaged" in err and "goldtable journal salvage -o NEW" in err
    code, out, _ = _run(capsys, "journal", "check", "--journal", str(damaged))
    assert code == 1 and out.splitlines()[-1].startswith("`goldtable journal salvage -o NEW` would copy 3 games")
    code, out, _ = _run(capsys, "journal", "salvage", "--journal", str(damaged), "-o", str(tmp_path / "new.sqlite3"))
    assert code == 0 and out.startswith("3 games (")
    assert digest(damaged) == before  # the damaged file is only read
    assert salvaged_moves(tmp_path / "new.sqlite3") == _acknowledged(path)


def test_a_game_cut_by_a_lost_page_resumes_before_the_gap_and_says_so(tmp_path: Path,
                                                                       capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "journal.sqlite3"
    digger_journal(path, seed=2, games=3)
    stored = move_pages(path)
    rows_by_page: dict[int, list[Key]] = {}
    for key, on in stored.items():
        for page in on:
            rows_by_page.setdefault(page, []).append(key)
    # A page in the middle of one game: that game has rows before it and after it.
    middle, game_id = next((page, keys[0][0]) for page, keys in sorted(rows_by_page.items())
                           if len({game for game, _n in keys}) == 1
                           and any(g == keys[0][0] and n < min(n for _g, n in keys) for g, n in stored)
                           and any(g == keys[0][0] and n > max(n for _g, n in keys) for g, n in stored))
    on_page = sorted(n for game, n in rows_by_page[middle])
    damaged, target = tmp_path / "damaged.sqlite3", tmp_path / "salvaged.sqlite3"
    _damage(path, damaged, middle, "whole page", Random(1))
    report = salvage_file(damaged, target)
    last = max(n for game, n in stored if game == game_id)
    assert list(report.cut) == [game_id]
    cut = report.cut[game_id]
    assert cut.lost == last + 1 - on_page[0]  # every row from the gap on no longer counts
    journal = Journal(target)
    summary = next(g for g in journal.games() if g.id == game_id)
    assert summary.cut == cut and not summary.finished
    session = Session.resume(journal, game_id)
    assert len(session.actions) == cut.moves == summary.actions
    prompt_before = session.prompt()
    assert prompt_before is not None
    journal.close()
    code, out, _ = _run(capsys, "games", "--journal", str(target))
    line = next(line for line in out.splitlines() if line.startswith(f"{game_id:4d}"))
    assert code == 0 and line.endswith(f"(cut after move {cut.moves}: {cut.lost} moves lost)")


def test_rows_still_in_the_wal_of_a_killed_app_are_salvaged(tmp_path: Path) -> None:
    import subprocess
    import sys

    from tests.engine.journal_faults import ROOT

    path = tmp_path / "journal.sqlite3"
    child = subprocess.run([sys.executable, "-m", "tests.engine.journal_writer", str(path), "3", "ACK", "12"],
                           cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True,
                           timeout=120)
    assert child.returncode == -9 and Path(f"{path}-wal").stat().st_size > 0
    data = bytearray(path.read_bytes())
    data[:100] = Random(3).randbytes(100)  # the file's header gone as well: recognised by the rows in its WAL
    path.write_bytes(bytes(data))
    report = salvage_file(path, tmp_path / "new.sqlite3")
    assert report.moves == 12 and report.cut == {}


def test_a_journal_of_this_version_is_refused_by_an_older_one_and_the_other_way_round(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import companion.engine.journal_format as journal_format
    import companion.engine.journal_triage as journal_triage

    path = tmp_path / "journal.sqlite3"
    digger_journal(path, seed=1, games=1)
    before = digest(path)
    for module in (journal_format, journal_triage):  # the Goldtable before this one
        monkeypatch.setattr(module, "SCHEMA_VERSION", SCHEMA_VERSION - 1)
    for read_only in (False, True):
        with pytest.raises(JournalOpenError, match=f"was written by a newer Goldtable \\(journal schema "
                                                   f"{SCHEMA_VERSION}, this one knows {SCHEMA_VERSION - 1}\\); it "
                                                   "was left untouched"):
            Journal(path, read_only=read_only)
    monkeypatch.undo()
    assert digest(path) == before
    conn = sqlite3.connect(path)
    conn.execute(f"PRAGMA user_version={SCHEMA_VERSION + 1}")  # as a Goldtable after this one leaves it
    conn.close()
    newer = digest(path)
    for read_only in (False, True):
        with pytest.raises(JournalOpenError, match=f"journal schema {SCHEMA_VERSION + 1}, this one knows "
                                                   f"{SCHEMA_VERSION}"):
            Journal(path, read_only=read_only)
    assert digest(path) == newer


V3_SCHEMA = f"""
CREATE TABLE games (id INTEGER PRIMARY KEY, game TEXT NOT NULL, setup TEXT NOT NULL, created TEXT NOT NULL,
                    finished TEXT);
CREATE TABLE entries (game_id INTEGER NOT NULL REFERENCES games(id), n INTEGER NOT NULL,
                      kind TEXT NOT NULL CHECK (kind IN ('action', 'undo')), at TEXT NOT NULL, source TEXT NOT NULL,
                      action TEXT, ref TEXT, PRIMARY KEY (game_id, n));
CREATE TABLE clocks (game_id INTEGER PRIMARY KEY REFERENCES games(id), state TEXT NOT NULL, saved TEXT NOT NULL);
PRAGMA application_id={APPLICATION_ID};
PRAGMA user_version=3;
"""


def _as_schema_3(path: Path, old: Path) -> None:
    """The same games as a Goldtable of schema 3 wrote them: no setup rows, the narrower CHECK."""
    conn = sqlite3.connect(old)
    conn.executescript(V3_SCHEMA)
    conn.execute("ATTACH ? AS new", (str(path),))
    conn.execute("INSERT INTO games SELECT * FROM new.games")
    conn.execute("INSERT INTO entries SELECT * FROM new.entries WHERE kind != 'setup' ORDER BY rowid")
    conn.commit()
    conn.close()


def _page_bytes(path: Path, pages: list[int]) -> dict[int, bytes]:
    data = path.read_bytes()
    return {page: data[(page - 1) * PAGE:page * PAGE] for page in pages}


def test_an_older_journal_migrates_without_rewriting_a_move_and_salvages_like_a_new_one(tmp_path: Path) -> None:
    new = tmp_path / "new.sqlite3"
    digger_journal(new, seed=4, games=5)
    old = tmp_path / "old.sqlite3"
    _as_schema_3(new, old)
    leaves = _pages_named(old, "entries", "leaf")
    before = _page_bytes(old, leaves)
    moves = _acknowledged(old)
    journal = Journal(old)  # the first open by this version migrates
    assert journal._conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    journal.close()
    after = _page_bytes(old, leaves)
    changed = [page for page in leaves if before[page] != after[page]]
    assert changed == [leaves[-1]] or changed == []  # only the last leaf, where the setup rows are appended
    assert _acknowledged(old) == moves
    conn = sqlite3.connect(old)
    assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    assert conn.execute("SELECT COUNT(*) FROM games g JOIN entries e ON e.game_id = g.id AND e.n = -1 "
                        "AND e.kind = 'setup' AND e.action = g.setup").fetchone() == (5,)
    conn.close()
    (games_page,) = _pages_named(old, "games", "leaf")
    damaged = tmp_path / "damaged.sqlite3"
    _damage(old, damaged, games_page, "whole page", Random(4))
    report = salvage_file(damaged, tmp_path / "salvaged.sqlite3")
    assert report.lost == {} and salvaged_moves(tmp_path / "salvaged.sqlite3") == moves


def test_salvage_in_place_on_a_read_only_card_or_a_full_disk_says_why_and_changes_nothing(tmp_path: Path) -> None:
    from companion.engine.errors import UserError
    from companion.engine.salvage import salvage_in_place
    from tests.engine.journal_faults import fill, read_only_view, small_disk

    folder = tmp_path / "data"
    folder.mkdir()
    path = folder / "journal.sqlite3"
    digger_journal(path, seed=3, games=2)
    _damage(path, path, 2, "whole page", Random(2))  # the games page: SQLite calls it corrupt
    damaged = path.read_bytes()
    with read_only_view(folder, tmp_path / "card") as card, pytest.raises(
            UserError, match=r"cannot write: the card or folder .* is read-only"):
        salvage_in_place(card / "journal.sqlite3")
    assert sorted(p.name for p in folder.iterdir()) == ["journal.sqlite3"] and path.read_bytes() == damaged
    with small_disk(tmp_path / "small", size_kib=512) as small:
        (small / "journal.sqlite3").write_bytes(damaged)
        filler = fill(small)
        with pytest.raises(UserError, match="is full"):
            salvage_in_place(small / "journal.sqlite3")
        assert (small / "journal.sqlite3").read_bytes() == damaged
        assert sorted(p.name for p in small.iterdir()) == ["filler", "journal.sqlite3", "journal.sqlite3.lock"]
        filler.unlink()
        done = salvage_in_place(small / "journal.sqlite3")  # space again: the same tap works
        assert done.kept.read_bytes() == damaged and len(done.report.copied) == 2
