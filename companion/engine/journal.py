"""Crash-safe journal: every accepted action is on disk before the table hears "OK".

One SQLite file (stdlib sqlite3, WAL, synchronous=FULL).  Rows are only ever added: an undo is a row
of its own, so the whole history of a game survives and a killed process or a power cut resumes with
exactly the actions that were acknowledged.

Beside it: the file's format and migration (journal_format.py), opening that tells the faults apart
(journal_triage.py: a damaged journal is left as it is and offered for salvage, salvage.py), the lock of
one writing app (journal_lock.py) and the chess clocks' table (clock_table.py).  A game whose own rows
cannot be read is quarantined here, the others stay.
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, Literal

from companion.engine.clock_table import ClockTable
from companion.engine.core import N_, Setup, Value
from companion.engine.errors import UserError
from companion.engine.journal_format import (
    APPLICATION_ID,
    ENTRY_KINDS,
    SCHEMA_VERSION,
    Cut,
    default_path,
    lost_at_cut,
    migrate,
    moves_in_force,
    parse_row,
    setup_or_none,
)
from companion.engine.journal_lock import JournalLock
from companion.engine.journal_triage import (
    BUSY_TIMEOUT,
    CANNOT_WRITE,
    JournalDamaged,
    JournalInUse,
    JournalOpenError,
    Notice,
    Opener,
    empty_journal,
    identify,
    primary,
    refuse_if_not_a_journal,
    reserve_new_file,
    sqlite_check,
    why_not_writable,
)
from companion.engine.record import ActionSource, GameRecord, RecordedAction, now_utc

#: Without a game end, the WAL is copied into the main file after this many appends.
CHECKPOINT_EVERY = 100
_INT64 = range(-(2**63), 2**63)
#: One SQL statement and its arguments; `Journal.commit` runs a list of them as one transaction.
Statement = tuple[str, tuple[object, ...]]


class JournalError(Exception):
    """The journal could not write; the action was not acknowledged and nothing changed.  `notice` says
    why in words the app can translate (a German table reads it in German); `str()` is the English
    sentence the command line prints."""

    def __init__(self, notice: Notice) -> None:
        super().__init__(str(notice))
        self.notice = notice


class DamagedGame(UserError):
    """One game's rows cannot be read; the rest of the journal is fine."""


class GameSummary(Value):
    """One line of `goldtable games`.  A damaged game has `damaged` set and may lack players or times;
    a salvaged game that had moves missing has its `cut`."""

    id: int
    game: str
    players: tuple[str, ...]
    created: datetime | None
    updated: datetime | None
    actions: int
    finished: bool
    damaged: str | None = None
    cut: Cut | None = None


@dataclass(frozen=True)
class _GameRows:
    """One game as read from its rows (`Journal._read_game`)."""

    setup: Setup
    started: datetime
    history: list[tuple[str, RecordedAction | None]]
    cut: Cut | None


@dataclass(frozen=True)
class CheckReport:
    """`goldtable journal check`: SQLite's own check, then every game read as the app would."""

    integrity: str
    games: int
    damaged: dict[int, str] = field(default_factory=dict)

    @property
    def clean(self) -> bool:
        return self.integrity == "ok" and not self.damaged


class Journal:
    """The journal file.

    `read_only=True` (the CLI readers) never writes or creates anything: the file is opened with
    `mode=ro` and copied into memory with SQLite's backup API, a consistent snapshot.  A writer that
    finds the disk full or read-only falls back to the same, with `read_only_reason` saying why.
    `exclusive=True` (the app) takes the `JournalLock` for as long as the journal is open.

    A writable journal has two connections: `_write` commits (one thread at a time, `_writing`), `_conn`
    reads and cannot write.  In WAL mode a reader sees the last commit and never waits for one under way,
    so the app's UI thread reads (Home, History, frames already journalled) while its writer thread
    (`companion.engine.writer`) waits for the disk.
    """

    _lock: JournalLock | None
    _write: sqlite3.Connection
    read_only_reason: str | None
    #: Why this journal file is damaged past reading with SQLite (it opened as an empty stand-in).
    needs_salvage: str | None
    _reason: Notice | None  # `read_only_reason` as code, template and words

    def __init__(self, path: str | Path | None = None, *, read_only: bool = False, exclusive: bool = False,
                 busy_timeout: float = BUSY_TIMEOUT, checkpoint_every: int = CHECKPOINT_EVERY) -> None:
        self._prepare(path, read_only, checkpoint_every)
        if exclusive and not read_only:
            self._lock = JournalLock(self.path).acquire()
        try:
            opener = Opener(self.path, busy_timeout)
            opened = opener.reader() if read_only else opener.writer()
            self._conn = self._write = opened.conn
            self.integrity, self.needs_salvage, self._reason = opened.integrity, opened.needs_salvage, opened.reason
            self.read_only_reason = str(opened.reason) if opened.reason is not None else None
            if not read_only and opened.reason is None:
                try:
                    self._conn = opener.second_reader()
                except BaseException:
                    self._write.close()
                    raise
        except BaseException:
            if self._lock is not None:
                self._lock.release()
            raise

    @classmethod
    def unavailable(cls, path: str | Path | None, reason: str) -> Journal:
        """An empty, read-only stand-in when the journal cannot be opened at all, so the app can still
        show why (`read_only_reason`) instead of dying; the file itself is left as it is."""
        journal = cls.__new__(cls)
        journal._prepare(path, False, CHECKPOINT_EVERY)
        journal.read_only_reason = reason
        journal._reason = Notice("reason.other", "{reason}", {"reason": reason})
        journal._stand_in = True
        journal._conn = journal._write = empty_journal()
        return journal

    def _prepare(self, path: str | Path | None, reader: bool, checkpoint_every: int) -> None:
        self.path = Path(path) if path is not None else default_path()
        self.read_only_reason = None
        self.needs_salvage = None
        self._told: list[Notice] = []  # see `tell`
        self._reason = None
        self.integrity = "ok"
        self.damaged: dict[int, str] = {}
        self._checkpoint_every = checkpoint_every
        self._appends = 0
        self._reader = reader
        self._stand_in = False
        self._lock = None
        self._writing = threading.RLock()  # one transaction at a time, whichever thread asks
        #: The chess clocks kept beside the games.
        self.clocks = ClockTable(self)

    @property
    def read_only(self) -> bool:
        return self.read_only_reason is not None

    @property
    def notices(self) -> list[str]:
        """Everything the user should be told about this journal, one English sentence each."""
        return [str(notice) for notice in self.notice_items]

    def tell(self, notice: Notice) -> None:
        """Add something the user should be told with this journal's notices (e.g. how it was salvaged)."""
        self._told.append(notice)

    @property
    def notice_items(self) -> list[Notice]:
        """The same as `notices`, as codes, templates and words (the app says them in its language)."""
        told = list(self._told)
        reason = self._reason or Notice("reason.other", "{reason}", {"reason": self.read_only_reason})
        if self.needs_salvage is not None:
            told.append(Notice("journal.needs_salvage", N_(
                "The game journal {path} is damaged ({problem}). Salvage copies every move that can still be "
                "read into a new journal and keeps the damaged file beside it, unchanged."),
                {"path": str(self.path), "problem": self.needs_salvage}))
            return told
        if self._stand_in:
            told.append(Notice("journal.unavailable", N_("Games cannot be saved or resumed: {reason}."),
                               {"reason": reason}))
        elif self.read_only_reason:
            told.append(Notice("journal.read_only", N_("Games cannot be saved: {reason}. Saved games can still "
                                                       "be viewed and exported."), {"reason": reason}))
        if self.integrity != "ok":
            told.append(Notice("journal.damaged", N_("The journal {path} is damaged ({problem}); `goldtable "
                                                     "journal salvage` copies every readable move to a new "
                                                     "journal."), {"path": str(self.path), "problem": self.integrity}))
        told.extend(self._damaged_notice(game_id, problem) for game_id, problem in sorted(self.damaged.items()))
        return told

    def _damaged_notice(self, game_id: int, problem: str) -> Notice:
        return Notice("game.damaged", N_("game {game} in the journal {path} is damaged ({problem}) and cannot be "
                                         "resumed or exported; the other games are not affected"),
                      {"game": game_id, "path": str(self.path), "problem": problem})

    def close(self) -> None:
        """Copy the WAL into the main file and close (all rows are already durable)."""
        if not self.read_only and not self._reader:
            self.checkpoint()
        self._conn.close()
        self._write.close()
        if self._lock is not None:
            self._lock.release()
            self._lock = None

    def checkpoint(self) -> bool:
        """Move the WAL into the main file, so a copy of the .sqlite3 file alone holds every game.

        Not needed for durability (the WAL is durable too); False when readers kept part of it."""
        try:
            with self._writing:
                busy = self._write.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()[0]
        except sqlite3.Error:
            return False
        return not busy

    def backup(self, target: str | Path) -> Path:
        """A consistent copy of the whole journal in a new file (SQLite backup API); never overwrites."""
        target = Path(target)
        reserve_new_file(target)
        try:
            copy = sqlite3.connect(target)
            try:
                self._conn.backup(copy)
            finally:
                copy.close()
        except sqlite3.Error as error:
            target.unlink(missing_ok=True)
            raise UserError(f"{target}: cannot write: {why_not_writable(target, error)}") from None
        return target

    # -- writing -----------------------------------------------------------------------------------
    def commit(self, statements: list[Statement], wait_for_disk: bool = True) -> int:
        """Run the statements as ONE transaction: all of them are on disk afterwards, or none.

        `wait_for_disk=False` (a running chess clock's periodic saves) commits without SQLite's fsync
        (`synchronous=NORMAL` for this transaction): it survives a killed app at once and a power cut as
        soon as the next commit that waits for the disk is done."""
        if self.read_only_reason is not None:
            raise JournalError(Notice("journal.read_only", N_("cannot save to the game journal {path}: {reason}"),
                                      {"path": str(self.path), "reason": self._reason}))
        if self._reader:
            raise JournalError(Notice("journal.reader", N_("the game journal {path} was opened for reading only"),
                                      {"path": str(self.path)}))
        conn = self._write
        try:
            with self._writing:  # one transaction at a time: none runs without the fsync by mistake
                if not wait_for_disk:
                    conn.execute("PRAGMA synchronous=NORMAL")
                try:
                    conn.execute("BEGIN IMMEDIATE")
                    rowid = 0
                    for sql, args in statements:
                        rowid = int(conn.execute(sql, args).lastrowid or rowid)
                    conn.execute("COMMIT")
                except BaseException:
                    if conn.in_transaction:
                        conn.execute("ROLLBACK")
                    raise
                finally:
                    if not wait_for_disk:
                        conn.execute("PRAGMA synchronous=FULL")
        except sqlite3.Error as error:
            reason = why_not_writable(self.path, error) if primary(error) in CANNOT_WRITE else str(error)
            raise JournalError(Notice("journal.not_saved", N_("could not save to the game journal {path}: {reason}"),
                                      {"path": str(self.path), "reason": reason})) from error
        return rowid

    def query(self, sql: str, args: tuple[object, ...] = ()) -> sqlite3.Cursor:
        """A read on the reading connection: it sees the last commit and never waits for one under way."""
        return self._conn.execute(sql, args)

    def new_game(self, setup: Setup) -> int:
        """Start a game; returns its journal id."""
        return self.commit([("INSERT INTO games (game, setup, created) VALUES (?, ?, ?)",
                                   (setup.game, setup.model_dump_json(), now_utc().isoformat()))])

    def append(self, game_id: int, kind: Literal["action", "undo"], entry: RecordedAction | None,
               at: datetime | None = None, finished: bool | None = None, source: ActionSource = "touch",
               ref: str | None = None) -> None:
        """Add one action (or an undo) to a game, durable when this returns.  An action row takes its
        source and frame from `entry`; an undo row (no entry) from `source` and `ref`, so a device's resent
        undo is known as recorded (`is_recorded`).

        `finished` True/False also marks the game ended/open again, in the same transaction, so a cut
        can never leave an action without its end mark or the other way round."""
        when = entry.at if entry is not None else (at or now_utc())
        if entry is not None:
            source, ref = entry.source, entry.ref
        action = json.dumps(entry.action, sort_keys=True) if entry is not None else None
        statements: list[Statement] = [(
            "INSERT INTO entries (game_id, n, kind, at, source, action, ref) VALUES "
            "(?, (SELECT COALESCE(MAX(n), -1) + 1 FROM entries WHERE game_id = ?), ?, ?, ?, ?, ?)",
            (game_id, game_id, kind, when.isoformat(), source, action, ref))]
        if finished is not None:
            statements.append(("UPDATE games SET finished = ? WHERE id = ?",
                               (now_utc().isoformat() if finished else None, game_id)))
        self.commit(statements)
        self._appends += 1
        if finished or self._appends % self._checkpoint_every == 0:
            self.checkpoint()

    def abandon(self, game_id: int) -> None:
        """Lay an unfinished game aside: it no longer offers itself for Resume, and every row stays (the
        History screen tells it from a played-out game because its rules do not say it is over)."""
        self._game_row(game_id)  # KeyError for a game that is not there
        self.commit([("UPDATE games SET finished = ? WHERE id = ? AND finished IS NULL",
                            (now_utc().isoformat(), game_id))])
        self.checkpoint()

    # -- reading -----------------------------------------------------------------------------------
    def _game_row(self, game_id: int) -> tuple[str, str, str | None]:
        row = None
        if game_id in _INT64:
            row = self._conn.execute("SELECT setup, created, finished FROM games WHERE id = ?",
                                     (game_id,)).fetchone()
        if row is None:
            raise KeyError(f"no game {game_id} in the journal {self.path}")
        return row  # type: ignore[no-any-return]

    def _damaged(self, game_id: int, problem: str) -> DamagedGame:
        self.damaged[game_id] = problem
        return DamagedGame(str(self._damaged_notice(game_id, problem)))

    def _read_game(self, game_id: int, game_row: tuple[str, str, str | None] | None = None) -> _GameRows:
        """Setup, start time and every row of one game, each checked; DamagedGame names the first bad one.
        The setup is read from the `games` row, or from its second copy among the moves when that one
        is unreadable."""
        try:
            setup_json, created, _finished = game_row or self._game_row(game_id)
            rows = self._conn.execute("SELECT n, kind, at, source, action, ref FROM entries WHERE game_id = ? "
                                      "ORDER BY n", (game_id,)).fetchall()
        except sqlite3.DatabaseError as error:
            raise self._damaged(game_id, f"unreadable: {error}") from None
        copies = [setup_json] + [action for n, kind, *_, action, _ref in rows if kind == "setup" and n < 0]
        setup = next((found for found in map(setup_or_none, copies) if found is not None), None)
        if setup is None:
            raise self._damaged(game_id, "its setup is unreadable")
        try:
            started = datetime.fromisoformat(created)
        except (TypeError, ValueError):
            raise self._damaged(game_id, f"its start time {created!r} is unreadable") from None
        history: list[tuple[str, RecordedAction | None]] = []
        cut: Cut | None = None
        for n, kind, at, source, action, ref in rows:
            if kind == "setup":
                continue
            try:
                entry = parse_row(kind, at, source, action, ref)
            except ValueError:
                raise self._damaged(game_id, f"row {n} is unreadable") from None
            history.append((kind, entry))
            if kind == "cut":
                cut = Cut(moves=moves_in_force(kind for kind, _ in history), lost=lost_at_cut(action), since=0)
            elif cut is not None:
                cut = cut.evolve(since=cut.since + 1)
        self.damaged.pop(game_id, None)
        return _GameRows(setup, started, history, cut)

    def setup(self, game_id: int) -> Setup:
        """The setup a journalled game started from; KeyError if there is no such game, DamagedGame if
        its rows cannot be read."""
        return self._read_game(game_id).setup

    def actions(self, game_id: int) -> list[RecordedAction]:
        """The actions in force: every journalled action with the undone ones taken back (a cut only
        marks where moves went missing; the game goes on from the moves before it)."""
        kept: list[RecordedAction] = []
        for kind, entry in self._read_game(game_id).history:
            if kind == "undo":
                if kept:
                    kept.pop()
            elif entry is not None:
                kept.append(entry)
        return kept

    def history(self, game_id: int) -> list[tuple[str, RecordedAction | None]]:
        """Every row of a game including undos and cuts ("cut", None), oldest first (nothing is ever
        deleted)."""
        return self._read_game(game_id).history

    def cut(self, game_id: int) -> Cut | None:
        """Where a salvage found this game's moves missing (the latest such place), None for a whole game."""
        return self._read_game(game_id).cut

    def record(self, game_id: int) -> GameRecord:
        """A game as a game record (for export and `goldtable replay`)."""
        game = self._read_game(game_id)
        return GameRecord.from_setup(game.setup, tuple(self.actions(game_id)), started=game.started)

    _SUMMARY = ("SELECT g.id, g.game, g.setup, g.created, g.finished, MAX(e.at), "
                "SUM(CASE e.kind WHEN 'action' THEN 1 WHEN 'undo' THEN -1 ELSE 0 END) "
                "FROM games g LEFT JOIN entries e ON e.game_id = g.id ")

    def _summary(self, row: tuple[Any, ...], damaged: str | None, game: _GameRows | None) -> GameSummary:
        game_id, name, setup_json, created, finished, last, count = row
        players: tuple[str, ...] = ()
        times: list[datetime | None] = []
        setup = game.setup if game is not None else setup_or_none(setup_json)
        if setup is not None:
            players = tuple(p.name for p in setup.players)
        else:
            damaged = damaged or "its setup is unreadable"
        for text in (created, last or created):
            try:
                times.append(datetime.fromisoformat(text))
            except (TypeError, ValueError):
                times.append(None)
                damaged = damaged or f"a time {text!r} is unreadable"
        if damaged:
            self.damaged[game_id] = damaged
        return GameSummary(id=game_id, game=name, players=players, created=times[0], updated=times[1],
                           actions=max(int(count or 0), 0), finished=finished is not None, damaged=damaged,
                           cut=game.cut if game is not None else None)

    def games(self) -> list[GameSummary]:
        """Every journalled game, newest first; each is read in full, so damaged ones are marked."""
        return list(self.each_game())

    def each_game(self) -> Iterator[GameSummary]:
        """`games()` one game at a time, for a reader that shows each as soon as it is read (History, on
        its worker thread); JournalDamaged before the first when the journal cannot list its games."""
        try:
            rows = self._conn.execute(self._SUMMARY + "GROUP BY g.id ORDER BY g.id DESC").fetchall()
        except sqlite3.DatabaseError as error:
            raise JournalDamaged(self.path, error) from None
        for row in rows:
            try:
                yield self._summary(row, None, self._read_game(row[0]))
            except DamagedGame:
                yield self._summary(row, self.damaged[row[0]], None)

    def is_recorded(self, ref: str) -> bool:
        """Whether `ref` (`<source>:<seq>`) is the newest hardware frame journalled from its source, in any
        game: a device resends its one unanswered frame to a restarted app, maybe before any game is open
        again, and must then hear "recorded", not "no game".  One query, read from the newest row back."""
        prefix = ref.rpartition(":")[0] + ":"
        row = self._conn.execute("SELECT ref FROM entries WHERE ref IS NOT NULL AND substr(ref, 1, ?) = ? "
                                 "ORDER BY rowid DESC LIMIT 1", (len(prefix), prefix)).fetchone()
        return row is not None and row[0] == ref

    def latest_unfinished(self) -> int | None:
        """The most recent game that has not ended and is not damaged, for the Home screen's Resume."""
        summary = self.latest_unfinished_summary()
        return summary.id if summary is not None else None

    def latest_unfinished_summary(self) -> GameSummary | None:
        """The Resume line: one query for the newest open game, then only that game's rows are read to
        vet it; a damaged one is quarantined (see `damaged`) and the next one is tried."""
        while True:
            skip = ",".join(map(str, tuple(self.damaged)))  # one step: History's reader may add to it
            row = self._conn.execute(self._SUMMARY + f"WHERE g.finished IS NULL AND g.id NOT IN ({skip}) "
                                     "GROUP BY g.id ORDER BY g.id DESC LIMIT 1").fetchone()
            if row is None:
                return None
            try:
                game = self._read_game(row[0], (row[2], row[3], row[4]))
            except DamagedGame:
                continue
            summary = self._summary(row, None, game)
            if summary.damaged is None:
                return summary

    # -- repair --------------------------------------------------------------------------------------
    def check(self) -> CheckReport:
        """SQLite's integrity check plus every game read in full."""
        integrity = sqlite_check(self._conn, "integrity_check")
        ids = self._game_ids()
        for game_id in ids:
            with contextlib.suppress(DamagedGame):  # noted in self.damaged
                self._read_game(game_id)
        return CheckReport(integrity=integrity, games=len(ids), damaged=dict(self.damaged))

    def _game_ids(self) -> list[int]:
        try:
            return [row[0] for row in self._conn.execute("SELECT id FROM games ORDER BY id")]
        except sqlite3.DatabaseError as error:
            raise JournalDamaged(self.path, error) from None


__all__ = ["APPLICATION_ID", "ENTRY_KINDS", "SCHEMA_VERSION", "ActionSource", "CheckReport", "Cut", "DamagedGame",
           "GameSummary", "Journal", "JournalDamaged", "JournalError", "JournalInUse", "JournalLock",
           "JournalOpenError", "Notice", "Statement", "default_path", "identify", "migrate", "moves_in_force",
           "parse_row", "refuse_if_not_a_journal", "reserve_new_file", "setup_or_none", "why_not_writable"]
