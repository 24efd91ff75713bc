"""Opening a journal: faults told apart, nothing good ever replaced, nothing that is not ours touched."""

from __future__ import annotations

import errno
import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from companion.cli import main
from companion.engine.journal import (
    APPLICATION_ID,
    Journal,
    JournalError,
    JournalInUse,
    JournalLock,
    JournalOpenError,
    identify,
    why_not_writable,
)
from companion.engine.salvage import _keep_under_new_name, salvage_in_place
from companion.engine.session import Session
from tests.engine.journal_faults import (
    digest,
    fill,
    journal_with_games,
    python,
    read_only_view,
    setup,
    small_disk,
)
from tests.slow_disk import medium_taking


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def _sqlite_of_another_program(path: Path) -> None:
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE people (name TEXT)")
    conn.commit()
    conn.close()


def _foreign_application(path: Path) -> None:
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA application_id=1234")
    conn.execute("CREATE TABLE games (id INTEGER)")
    conn.commit()
    conn.close()


@pytest.mark.parametrize("make", [
    lambda p: p.write_text(json.dumps({"format": "goldtable-record/1"})),
    lambda p: p.write_bytes(os.urandom(5000)),
    lambda p: p.write_bytes(b"SQLite format 3\x00" + b"\x00" * 20),  # cut off inside the header
    _sqlite_of_another_program,
    _foreign_application,
])
def test_a_file_that_is_not_a_journal_is_refused_untouched(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                           make) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "some.json"
    make(path)
    before = digest(path)
    for argv in (["games", "--journal", str(path)], ["export", "1", "--journal", str(path)],
                 ["journal", "check", "--journal", str(path)]):
        code, out, err = _run(capsys, *argv)
        assert code == 2 and out == "" and err.count("\n") == 1, (argv, err)
        assert "is not a Goldtable journal" in err and str(path) in err
    with pytest.raises(JournalOpenError, match="not a Goldtable journal"):
        Journal(path)  # the app's way in: refused too, never moved aside
    code, out, err = _run(capsys, "app", "--journal", str(path))  # before any window or lock file
    assert (code, out) == (2, "") and err.count("\n") == 1 and "is not a Goldtable journal" in err
    assert digest(path) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["some.json"]


def _corrupt(path: Path) -> bytes:
    """Damage the entries table's pages of a closed journal, the way a bad card does; returns the bytes."""
    data = bytearray(path.read_bytes())
    page = 4096
    assert len(data) >= 4 * page
    data[2 * page:2 * page + 200] = os.urandom(200)
    path.write_bytes(bytes(data))
    return bytes(data)


def test_a_damaged_journal_is_left_untouched_and_salvaged_in_place_only_when_asked(tmp_path: Path) -> None:
    path = tmp_path / "journal.sqlite3"
    ids = journal_with_games(path, games=30, rolls=7)
    damaged = _corrupt(path)
    journal = Journal(path, exclusive=True)
    assert journal.needs_salvage is not None and journal.read_only and journal.games() == []
    assert journal.notices == [f"The game journal {path} is damaged ({journal.needs_salvage}). Salvage copies every "
                               "move that can still be read into a new journal and keeps the damaged file beside "
                               "it, unchanged."]
    with pytest.raises(JournalError):
        Session.new(setup(), journal)
    assert path.read_bytes() == damaged and sorted(p.name for p in tmp_path.iterdir()) == [
        "journal.sqlite3", "journal.sqlite3.lock"]
    done = salvage_in_place(path)  # the app's Salvage button, while it holds the lock
    journal.close()
    assert done.kept.read_bytes() == damaged and done.kept.name.startswith("journal.damaged-")
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["journal.sqlite3", "journal.sqlite3.lock",
                                                                 done.kept.name])
    salvaged = Journal(path)
    assert salvaged.needs_salvage is None and salvaged.notices == []
    assert [g.id for g in salvaged.games()] == ids[::-1] and done.report.copied == tuple(ids)
    assert Session.resume(salvaged, ids[-1]).submit({"type": "roll", "values": ["1"]}, "touch").accepted
    salvaged.close()


def test_kept_names_are_never_reused_and_keep_the_bytes(tmp_path: Path) -> None:
    path = tmp_path / "journal.sqlite3"
    path.write_bytes(b"damaged bytes")
    names = {_keep_under_new_name(path) for _ in range(5)}
    assert len(names) == 5 and all(str(os.getpid()) in name.name for name in names)
    assert {name.read_bytes() for name in names} == {b"damaged bytes"} and path.read_bytes() == b"damaged bytes"


def test_two_processes_opening_the_same_damaged_journal_change_nothing(tmp_path: Path) -> None:
    path = tmp_path / "journal.sqlite3"
    journal_with_games(path, games=30, rolls=7)
    damaged = _corrupt(path)
    children = [python("import sys; from companion.engine.journal import Journal\n"
                       "j = Journal(sys.argv[1]); print('salvage' if j.needs_salvage else 'clean'); j.close()",
                       str(path)) for _ in range(2)]
    outputs = [child.communicate(timeout=60) for child in children]
    assert all(child.returncode == 0 for child in children), outputs
    assert [out.strip() for out, _ in outputs] == ["salvage", "salvage"]
    assert path.read_bytes() == damaged and sorted(p.name for p in tmp_path.iterdir()) == ["journal.sqlite3"]


def test_a_journal_another_app_holds_is_not_salvaged_under_it(tmp_path: Path) -> None:
    path = tmp_path / "journal.sqlite3"
    journal_with_games(path, games=30, rolls=7)
    damaged = _corrupt(path)
    holder = python("import sys, time; from companion.engine.journal import JournalLock\n"
                    "JournalLock(sys.argv[1]).acquire(); print('HELD', flush=True); time.sleep(30)", str(path))
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "HELD"
        with pytest.raises(JournalInUse, match="is in use by process"):
            salvage_in_place(path)
    finally:
        holder.kill()
        holder.wait()
    assert path.read_bytes() == damaged and not [p for p in tmp_path.iterdir() if "damaged" in p.name
                                                  or "salvaged" in p.name]


def test_a_busy_journal_is_waited_for_then_refused_in_one_sentence(tmp_path: Path) -> None:
    path = tmp_path / "journal.sqlite3"
    journal_with_games(path, games=1)
    before = digest(path)
    holder = python("import sqlite3, sys, time\n"
                    "c = sqlite3.connect(sys.argv[1], isolation_level=None)\n"
                    "c.execute('PRAGMA locking_mode=EXCLUSIVE'); c.execute('BEGIN EXCLUSIVE')\n"
                    "c.execute('UPDATE games SET finished = finished')\n"
                    "print('HELD', flush=True); time.sleep(30)", str(path))
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "HELD"
        for read_only in (False, True):
            with pytest.raises(JournalOpenError, match=r"is busy: another program kept it locked for more than "
                                                       "0.3\u00a0s; try again"):
                Journal(path, read_only=read_only, busy_timeout=0.3)
    finally:
        holder.kill()
        holder.wait()
    assert digest(path) == before and not [p for p in tmp_path.iterdir() if "damaged" in p.name]
    assert len(Journal(path, read_only=True).games()) == 1


def test_leftover_garbage_wal_is_ignored_and_nothing_lost(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "journal.sqlite3"
    ids = journal_with_games(path, games=2)
    Path(f"{path}-wal").write_bytes(os.urandom(9000))
    code, out, _ = _run(capsys, "games", "--journal", str(path), "--json")
    assert code == 0 and [g["id"] for g in json.loads(out)] == ids[::-1]
    journal = Journal(path)
    assert journal.notices == [] and [g.actions for g in journal.games()] == [3, 3]
    session = Session.resume(journal, ids[0])
    assert session.submit({"type": "roll", "values": ["1"]}, "touch").accepted
    journal.close()
    assert Journal(path, read_only=True).actions(ids[0])[-1].action == {"type": "roll", "values": ["1"]}


def test_full_disk_at_start_opens_read_only_and_says_why(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with small_disk(tmp_path / "card") as card:
        path = card / "journal.sqlite3"
        ids = journal_with_games(path, games=2)
        filler = fill(card)
        before = digest(path)
        journal = Journal(path, exclusive=True)
        assert journal.read_only and "is full" in (journal.read_only_reason or "")
        assert any("cannot be saved" in notice and "full" in notice for notice in journal.notices)
        assert [g.id for g in journal.games()] == ids[::-1]
        assert Session.resume(journal, ids[0]).state.totals == (5, 6)  # viewable
        with pytest.raises(JournalError, match=r"cannot save to the game journal .* is full"):
            Session.new(setup(), journal)
        journal.close()
        code, out, _ = _run(capsys, "export", str(ids[0]), "--journal", str(path))
        assert code == 0 and len(json.loads(out)["actions"]) == 3
        assert digest(path) == before
        filler.unlink()  # space again: the same journal, nothing replaced
        journal = Journal(path)
        assert not journal.read_only and journal.notices == [] and len(journal.games()) == 2
        journal.close()


def test_disk_filling_up_during_play_loses_nothing_and_journals_nothing_twice(tmp_path: Path) -> None:
    with small_disk(tmp_path / "card") as card:
        path = card / "journal.sqlite3"
        journal = Journal(path)
        session = Session.new(setup(target=100), journal)
        assert session.submit({"type": "roll", "values": ["2"]}, "touch").accepted
        journal.checkpoint()
        filler = fill(card)
        before = session.state
        with pytest.raises(JournalError, match=r"could not save .* is full"):
            session.submit({"type": "roll", "values": ["5"]}, "serial")
        assert session.state == before and len(session.actions) == 1
        filler.unlink()
        assert session.submit({"type": "roll", "values": ["5"]}, "serial").accepted  # the retry
        journal.close()
        actions = Journal(path, read_only=True).actions(session.game_id)  # type: ignore[arg-type]
        assert [a.action["values"] for a in actions] == [["2"], ["5"]]


def test_read_only_card_lists_exports_and_resumes_but_never_writes(tmp_path: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "data"
    folder.mkdir()
    ids = journal_with_games(folder / "journal.sqlite3", games=2)
    before = digest(folder / "journal.sqlite3")
    with read_only_view(folder, tmp_path / "card") as card:
        path = card / "journal.sqlite3"
        code, out, err = _run(capsys, "games", "--journal", str(path))
        assert code == 0 and err == "" and out.count("in progress") == 2
        code, out, _ = _run(capsys, "export", str(ids[1]), "--journal", str(path))
        assert code == 0 and json.loads(out)["players"][0]["name"] == "Ada"
        journal = Journal(path, exclusive=True)
        assert journal.read_only and "read-only" in (journal.read_only_reason or "")
        assert Session.resume(journal, ids[1]).state.totals == (5, 6)
        with pytest.raises(JournalError, match="read-only"):
            Session.new(setup(), journal)
        journal.close()
        missing = Journal(card / "new.sqlite3")  # nothing there, nothing can be made: say so
        assert missing.read_only and missing.games() == []
    assert digest(folder / "journal.sqlite3") == before
    assert sorted(p.name for p in folder.iterdir()) == ["journal.sqlite3"]


def test_a_second_app_is_told_which_process_holds_the_journal(tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "journal.sqlite3"
    ids = journal_with_games(path, games=1)
    holder = python("import sys, time; from companion.engine.journal import Journal\n"
                    "j = Journal(sys.argv[1], exclusive=True); print('HELD', flush=True); time.sleep(30)", str(path))
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "HELD"
        message = f"the journal {path} is in use by process {holder.pid} (goldtable app)"
        with pytest.raises(JournalInUse) as caught:
            Journal(path, exclusive=True)
        assert str(caught.value) == message
        code, out, err = _run(capsys, "app", "--journal", str(path))
        assert (code, out, err) == (2, "", f"goldtable: {message}\n")
        code, out, _ = _run(capsys, "games", "--journal", str(path), "--json")  # readers need no lock
        assert code == 0 and json.loads(out)[0]["id"] == ids[0]
    finally:
        holder.kill()
        holder.wait()
    with JournalLock(path):  # the kernel let go of the killed holder's lock
        journal = Journal(path, exclusive=True)  # same process: fine
        journal.close()


def test_reading_commands_create_and_change_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / "typo" / "jornal.sqlite3"
    for argv in (["games", "--journal", str(missing)], ["export", "1", "--journal", str(missing)],
                 ["journal", "backup", "--journal", str(missing), "-o", str(tmp_path / "b.sqlite3")]):
        code, out, err = _run(capsys, *argv)
        assert (code, out) == (2, "") and err == f"goldtable: no journal at {missing}\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == []
    path = tmp_path / "journal.sqlite3"
    ids = journal_with_games(path, games=2)
    before = digest(path)
    assert _run(capsys, "games", "--journal", str(path))[0] == 0
    assert _run(capsys, "export", str(ids[0]), "--journal", str(path))[0] == 0
    assert _run(capsys, "journal", "check", "--journal", str(path))[0] == 0
    reader = Journal(path, read_only=True)
    with pytest.raises(JournalError, match="opened for reading only"):
        reader.new_game(setup())
    reader.close()
    assert digest(path) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["journal.sqlite3"]  # no side files either
    code, out, err = _run(capsys, "export", "1" * 30, "--journal", str(path))
    assert (code, out) == (2, "") and err == f"goldtable: no game {'1' * 30} in the journal {path}\n"


def test_an_old_journal_is_accepted_and_gets_our_application_id(tmp_path: Path) -> None:
    path = tmp_path / "journal.sqlite3"
    conn = sqlite3.connect(path)
    conn.executescript("CREATE TABLE games (id INTEGER PRIMARY KEY, game TEXT NOT NULL, setup TEXT NOT NULL, "
                       "created TEXT NOT NULL, finished TEXT); CREATE TABLE entries (game_id INTEGER NOT NULL, "
                       "n INTEGER NOT NULL, kind TEXT NOT NULL, at TEXT NOT NULL, source TEXT NOT NULL, "
                       "action TEXT, PRIMARY KEY (game_id, n)); PRAGMA user_version=1;")
    conn.execute("INSERT INTO games VALUES (4, 'counting_test', ?, '2026-01-01T10:00:00+00:00', NULL)",
                 (setup().model_dump_json(),))
    conn.execute("INSERT INTO entries VALUES (4, 0, 'action', '2026-01-01T10:00:05+00:00', 'gpio', "
                 "'{\"type\": \"roll\", \"values\": [\"6\"]}')")
    conn.commit()
    conn.close()
    reader = Journal(path, read_only=True)
    assert [(g.actions, g.damaged) for g in reader.games()] == [(1, None)]
    assert reader.record(4).actions[0].source == "gpio"
    assert identify(path) == "journal"
    journal = Journal(path)
    assert journal.notices == [] and Session.resume(journal, 4).state.totals == (6, 0)
    assert journal._conn.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID
    journal.close()


def test_an_unusable_journal_gives_the_app_a_read_only_stand_in_that_says_why(tmp_path: Path) -> None:
    path = tmp_path / "some.json"
    path.write_text("{}")
    with pytest.raises(JournalOpenError) as caught:
        Journal(path, exclusive=True)
    other = python("import sys; from companion.engine.journal import JournalLock\n"
                   "JournalLock(sys.argv[1]).acquire(); print('taken')", str(path))
    assert other.communicate(timeout=60)[0] == "taken\n"  # the failed open let go of the lock
    stand_in = Journal.unavailable(path, str(caught.value))
    assert stand_in.read_only and stand_in.games() == [] and stand_in.latest_unfinished_summary() is None
    assert stand_in.notices == [f"Games cannot be saved or resumed: {caught.value}."]
    with pytest.raises(JournalError, match="is not a Goldtable journal"):
        Session.new(setup(), stand_in)
    stand_in.close()
    assert path.read_text() == "{}"


def test_games_on_a_new_install_says_no_saved_games_and_creates_nothing(tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch,
                                                                        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("GOLDTABLE_DATA", str(tmp_path / "data"))
    assert _run(capsys, "games") == (0, "No saved games.\n", "")
    assert list(tmp_path.iterdir()) == []


def test_a_damaged_journal_on_a_read_only_card_is_reported_not_moved(tmp_path: Path,
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "data"
    folder.mkdir()
    journal_with_games(folder / "journal.sqlite3", games=30, rolls=7)
    damaged = _corrupt(folder / "journal.sqlite3")
    with read_only_view(folder, tmp_path / "card") as card:
        journal = Journal(card / "journal.sqlite3")
        assert journal.read_only and journal.integrity != "ok"
        assert any("is damaged" in notice and "salvage" in notice for notice in journal.notices)
        journal.close()
        code, out, _ = _run(capsys, "journal", "check", "--journal", str(card / "journal.sqlite3"))
        assert code == 1 and out.startswith("SQLite integrity check: ")
    assert (folder / "journal.sqlite3").read_bytes() == damaged
    assert sorted(p.name for p in folder.iterdir()) == ["journal.sqlite3"]


def test_rows_left_in_the_wal_by_a_crash_are_read_from_a_read_only_card(tmp_path: Path) -> None:
    import subprocess
    import sys

    from tests.engine.journal_faults import ROOT

    folder = tmp_path / "data"
    folder.mkdir()
    path = folder / "journal.sqlite3"
    child = subprocess.run([sys.executable, "-m", "tests.engine.journal_writer", str(path), "3", "ACK", "12"],
                           cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True,
                           timeout=120)
    assert child.returncode == -9 and Path(f"{path}-wal").stat().st_size > 0  # killed: rows only in the WAL
    Path(f"{path}-shm").unlink()  # as after a power cut on some cards; a read-only folder cannot remake it
    wal = Path(f"{path}-wal").read_bytes()
    with read_only_view(folder, tmp_path / "card") as card:
        journal = Journal(card / "journal.sqlite3", read_only=True)
        (summary,) = journal.games()
        assert summary.actions == 12 and summary.damaged is None
    assert Path(f"{path}-wal").read_bytes() == wal and not Path(f"{path}-shm").exists()


def test_a_file_whose_header_is_gone_is_a_journal_only_if_journal_rows_are_found(tmp_path: Path) -> None:
    journal, other = tmp_path / "journal.sqlite3", tmp_path / "other.sqlite3"
    journal_with_games(journal, games=2)
    conn = sqlite3.connect(other)  # another program's table of the same shape as `games`
    conn.execute("CREATE TABLE people (id INTEGER PRIMARY KEY, a TEXT, b TEXT, c TEXT, d TEXT)")
    conn.executemany("INSERT INTO people (a, b, c, d) VALUES (?, ?, ?, ?)", [("x", "{}", "y", None)] * 50)
    conn.commit()
    conn.close()
    for path in (journal, other):
        data = bytearray(path.read_bytes())
        data[:100] = os.urandom(100)
        path.write_bytes(bytes(data))
    assert identify(other) == "not-sqlite"
    with pytest.raises(JournalOpenError, match="not a Goldtable journal"):
        Journal(other, exclusive=True)
    assert identify(journal) == "journal"
    damaged = journal.read_bytes()
    opened = Journal(journal, exclusive=True)
    assert opened.needs_salvage is not None and journal.read_bytes() == damaged
    opened.close()


def test_export_writes_a_new_file_and_never_over_one_with_other_contents(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "journal.sqlite3"
    ids = journal_with_games(path, games=2)
    record = tmp_path / "game.json"
    assert _run(capsys, "export", str(ids[0]), "--journal", str(path), "-o", str(record)) == (0, f"{record}\n", "")
    written = record.read_bytes()
    assert json.loads(written)["actions"]
    assert _run(capsys, "export", str(ids[0]), "--journal", str(path), "-o", str(record))[0] == 0, \
        "the same record again is no conflict"
    code, out, err = _run(capsys, "export", str(ids[1]), "--journal", str(path), "-o", str(record))
    assert (code, out) == (2, "") and err == f"goldtable: {record}: already exists with other contents; choose a new " \
        "file name\n"
    assert record.read_bytes() == written


@pytest.mark.parametrize(("command", "problem"), [
    (["export", "1"], "File too large"),
    (["journal", "backup"], "the card or stick holding {folder} could not be written (taken out, or failing)"),
    (["journal", "salvage"], "the card or stick holding {folder} could not be written (taken out, or failing)"),
])
def test_a_file_the_medium_cannot_take_is_not_left_in_part(tmp_path: Path, command: list[str], problem: str) -> None:
    """A stick that fills up part way: one line, and nothing left that looks like the file or blocks the
    next try (which works once there is room)."""
    path = tmp_path / "journal.sqlite3"
    journal_with_games(path, games=4)
    folder = tmp_path / "out"
    folder.mkdir()
    target = folder / "copy"
    run = [sys.executable, "-m", "companion.cli", *command, "--journal", str(path), "-o", str(target)]
    assert subprocess.run(run, capture_output=True, timeout=120).returncode == 0
    whole = target.read_bytes()
    target.unlink()
    done = subprocess.run(run, capture_output=True, text=True, preexec_fn=medium_taking(len(whole) // 2),
                          timeout=120)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == f"goldtable: {target}: cannot write: {problem.format(folder=folder)}\n"
    assert list(folder.iterdir()) == [], "neither a torn file nor a temporary is left"
    assert subprocess.run(run, capture_output=True, timeout=120).returncode == 0, "so trying again works"
    assert target.stat().st_size == len(whole)


def _sqlite_error(code: int) -> sqlite3.Error:
    error = sqlite3.OperationalError("disk trouble")
    error.sqlite_errorcode = code  # type: ignore[attr-defined]  # set by SQLite on a real failure
    return error


@pytest.mark.parametrize(("error", "key"), [
    (OSError(errno.ENOSPC, "No space left on device"), "reason.disk_full"),
    (OSError(errno.EDQUOT, "Disk quota exceeded"), "reason.disk_full"),
    (_sqlite_error(13), "reason.disk_full"),
    (OSError(errno.EROFS, "Read-only file system"), "reason.read_only"),
    (OSError(errno.EIO, "Input/output error"), "reason.io_error"),
    (OSError(errno.ENOTCONN, "Transport endpoint is not connected"), "reason.io_error"),
    (OSError(errno.ENODEV, "No such device"), "reason.io_error"),
    (_sqlite_error(10), "reason.io_error"),
    (OSError(errno.EACCES, "Permission denied"), "reason.not_writable"),
])
def test_why_a_file_cannot_be_written_is_said_in_words_the_catalogs_translate(
        tmp_path: Path, error: OSError | sqlite3.Error, key: str) -> None:
    """A card that is full, read-only or failing is named as such even where the folder itself looks fine
    (a stick remounted read-only after an error, a write that failed half way); anything else keeps the
    system's own words as a detail."""
    notice = why_not_writable(tmp_path / "settings.json", error)
    assert notice.code == key
    if key == "reason.not_writable":
        assert notice.params["detail"] == "Permission denied"
    else:
        assert notice.params == {"folder": str(tmp_path)}


def test_a_stick_taken_out_during_a_save_is_named_though_its_folder_cannot_be_looked_at(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Pulled out mid-save, a stick's folder answers every look with an error of its own (here FUSE's, as
    for an NTFS stick): the reason must still come out, or the export thread died and "Saving…" stayed."""
    gone = tmp_path / "stick" / "goldtable"
    real_stat = Path.stat

    def stat(self: Path, *args: Any, **kwargs: Any) -> Any:
        if self == gone or gone in self.parents:
            raise OSError(errno.ENOTCONN, "Transport endpoint is not connected")
        return real_stat(self, *args, **kwargs)

    monkeypatch.setattr(Path, "stat", stat)
    aborted = OSError(errno.ECONNABORTED, "Software caused connection abort")
    notice = why_not_writable(gone / "goldtable-games.csv", aborted)
    assert notice.code == "reason.io_error" and notice.params == {"folder": str(gone)}
