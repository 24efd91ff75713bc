"""Salvage: every move a damaged journal file still holds, copied into a new journal.

Rows, not trees (docs/architecture.md, "Salvage"): the file is read page by page (`sqlite_pages`), so a
damaged interior, index or schema page costs no row, and each row is known by its shape alone: an
`entries` row has seven columns (six before schema 2) with a kind SQLite's CHECK allows, a `games` row
five with the id as rowid, a `clocks` row three.  Each game's setup is kept twice (its `games` row and the
'setup' row among its moves), so a lost `games` page costs no game either.

A game whose rows have a gap comes back up to the gap; the rest is kept in a 'cut' row that says how
many moves no longer count, and the game can be resumed from the last move before it.  The new journal
keeps every game's id and, for the moves it copies, their row numbers.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import shutil
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from companion.engine.core import N_, Setup
from companion.engine.errors import UserError
from companion.engine.journal_format import ENTRY_KINDS, Cut, migrate, moves_in_force, parse_row, setup_or_none
from companion.engine.journal_lock import JournalLock
from companion.engine.journal_triage import (
    BUSY_TIMEOUT,
    Notice,
    identify,
    not_a_journal,
    reserve_new_file,
    why_not_writable,
)
from companion.engine.paths import sync_folder
from companion.engine.record import GameRecord, RecordedAction, now_utc, replay
from companion.engine.registry import get_game
from companion.engine.sqlite_pages import Cell, PageFile, cells, open_pages, scan

#: How much of a file (and of its WAL) whose header is gone `looks_like_journal` reads to recognise our rows.
RECOGNISE_BYTES = 1 << 20


@dataclass(frozen=True, slots=True)
class GameRow:
    id: int
    game: str
    setup: str
    created: str
    finished: str | None


@dataclass(frozen=True, slots=True)
class EntryRow:
    game_id: int
    n: int
    kind: str
    at: str
    source: str
    action: str | None
    ref: str | None

    def values(self) -> tuple[object, ...]:
        return self.game_id, self.n, self.kind, self.at, self.source, self.action, self.ref


@dataclass(frozen=True, slots=True)
class ClockRow:
    game_id: int
    state: str
    saved: str


@dataclass(frozen=True, slots=True)
class IndexKey:
    """One key of the entries' primary-key index: that row existed, even if its own page is lost."""

    game_id: int
    n: int


Row = GameRow | EntryRow | ClockRow | IndexKey


def _optional_text(value: object) -> bool:
    return value is None or isinstance(value, str)


def classify(cell: Cell) -> Row | None:
    """Which of the journal's tables a cell belongs to, by its shape; None for anything else (the schema's
    own rows, other indexes, garbage that happens to parse)."""
    values = cell.values
    if cell.index:
        if len(values) == 3 and type(values[0]) is int and type(values[1]) is int and type(values[2]) is int:
            return IndexKey(game_id=values[0], n=values[1])
        return None
    if cell.rowid is None:
        return None
    if len(values) in (6, 7):  # entries (six columns: written before `ref` was added)
        game_id, n, kind, at, source, action, *rest = values
        ref = rest[0] if rest else None
        if type(game_id) is int and type(n) is int and kind in ENTRY_KINDS and isinstance(kind, str) \
                and isinstance(at, str) and isinstance(source, str) and _optional_text(action) and _optional_text(ref):
            return EntryRow(game_id, n, kind, at, source, action, ref)  # type: ignore[arg-type]
        return None
    if len(values) == 5:  # games: the id is the rowid (an INTEGER PRIMARY KEY is stored as NULL)
        null, game, setup, created, finished = values
        if null is None and isinstance(game, str) and isinstance(setup, str) and isinstance(created, str) \
                and _optional_text(finished):
            return GameRow(cell.rowid, game, setup, created, finished)  # type: ignore[arg-type]
        return None
    if len(values) == 3:  # clocks: the game id is the rowid
        null, state, saved = values
        if null is None and isinstance(state, str) and isinstance(saved, str):
            return ClockRow(cell.rowid, state, saved)
    return None


@dataclass
class Found:
    """Every journal row read from a file's pages, before any game is put together."""

    games: dict[int, list[GameRow]] = field(default_factory=dict)  # more than one: a stale copy
    entries: dict[tuple[int, int], list[EntryRow]] = field(default_factory=dict)
    clocks: dict[int, ClockRow] = field(default_factory=dict)
    keys: dict[int, int] = field(default_factory=dict)  # game -> the highest row number the index names
    page_count: int = 0
    unreadable: tuple[int, ...] = ()

    def add(self, row: Row, carved: bool) -> None:
        """Rows found on intact pages go first; a carved row only fills in what they lack."""
        if isinstance(row, GameRow):
            versions = self.games.setdefault(row.id, [])
            versions.insert(len(versions) if carved else 0, row)
        elif isinstance(row, EntryRow):
            versions_e = self.entries.setdefault((row.game_id, row.n), [])
            versions_e.insert(len(versions_e) if carved else 0, row)
        elif isinstance(row, ClockRow):
            kept = self.clocks.get(row.game_id)
            if kept is None or row.saved > kept.saved:  # ISO times in UTC sort as text
                self.clocks[row.game_id] = row
        else:
            self.keys[row.game_id] = max(self.keys.get(row.game_id, row.n), row.n)


def read_rows(pages: PageFile) -> Found:
    """Every row of the journal's tables on every page (and carved from damaged ones)."""
    found = Found()

    def keep(cell: Cell) -> None:
        row = classify(cell)
        if row is not None:
            found.add(row, cell.carved)

    result = scan(pages, keep, accept=lambda cell: isinstance(classify(cell), (GameRow, EntryRow, ClockRow)))
    found.page_count, found.unreadable = result.page_count, result.unreadable
    return found


def looks_like_journal(path: Path) -> bool:
    """Whether a file that is not (or no longer) an SQLite file by its header holds journal rows (in it or
    in its WAL): the header is the first thing a bad sector or a cut write takes.  Reads at most
    `RECOGNISE_BYTES` of each."""
    try:
        pages = open_pages(path, Path(f"{path}-wal"), limit=RECOGNISE_BYTES)
    except OSError:
        return False
    for cell in cells(pages):
        row = classify(cell)
        if isinstance(row, EntryRow) or (isinstance(row, GameRow) and setup_or_none(row.setup) is not None):
            return True  # a row of seven typed columns with our kinds, or a game with a Goldtable setup
    return False


def move_pages(path: Path) -> dict[tuple[int, int], set[int]]:
    """Which pages of a journal file hold each move row (game, n): its cell's page and its overflow pages.
    The damage sweep (tests, benchmarks/bench_salvage.py) damages one page and expects every other move
    back."""
    stored: dict[tuple[int, int], set[int]] = {}
    for cell in cells(open_pages(path)):
        row = classify(cell)
        if isinstance(row, EntryRow) and row.kind in ("action", "undo"):
            stored[(row.game_id, row.n)] = {cell.page, *cell.overflow}
    return stored


def salvaged_moves(path: Path) -> dict[tuple[int, int], tuple[object, ...]]:
    """Every move row (game_id, n, kind, at, source, action, ref) a salvaged journal holds, by (game, n):
    those in force and those its cut rows keep from after a gap."""
    conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    try:
        found = {(row[0], row[1]): tuple(row) for row in conn.execute(
            "SELECT game_id, n, kind, at, source, action, ref FROM entries WHERE kind IN ('action', 'undo')")}
        for game_id, payload in conn.execute("SELECT game_id, action FROM entries WHERE kind = 'cut'"):
            found.update({(game_id, row[0]): (game_id, *row) for row in json.loads(payload)["after"]})
        return found
    finally:
        conn.close()


# -- putting games together ---------------------------------------------------------------------------

@dataclass(frozen=True)
class SalvagedGame:
    """One game as it goes into the new journal."""

    id: int
    game: str
    setup: str
    created: str
    finished: str | None
    line: tuple[EntryRow, ...]  # rows 0, 1, 2 ... up to the first one missing or unreadable
    after: tuple[EntryRow, ...]  # readable rows after that gap: kept in the cut row, no longer in force
    lost: int  # rows from the gap to the last one known (0: the game is whole)
    clock: ClockRow | None


@dataclass(frozen=True)
class SalvageReport:
    """What a salvage copied: games by id, the moves (journal rows) copied, and what was lost."""

    copied: tuple[int, ...]
    moves: int  # rows copied: those in force and those kept after a gap
    cut: dict[int, Cut]  # the games that had moves missing: where they go on from
    lost: dict[int, str]  # games that could not be copied, with why
    pages: int
    unreadable: tuple[int, ...]  # pages that held nothing readable


def _time(text: object) -> datetime | None:
    try:
        return datetime.fromisoformat(text)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return None


def _readable(row: EntryRow) -> bool:
    """Whether the journal's readers can take this row (see `parse_row`)."""
    try:
        parse_row(row.kind, row.at, row.source, row.action, row.ref)
    except ValueError:
        return False
    return True


def _line(found: Found, game_id: int, rows: list[int]) -> tuple[list[EntryRow], list[EntryRow], int]:
    """The rows in force (0, 1, 2 ... up to the first missing or unreadable one), the readable rows after
    that gap, and how many rows from the gap on no longer count."""
    line: list[EntryRow] = []
    after: list[EntryRow] = []
    gap: int | None = None
    for n in rows:
        row = next((version for version in found.entries[(game_id, n)] if _readable(version)), None)
        if gap is None and n == len(line) and row is not None:
            line.append(row)
        else:
            gap = len(line) if gap is None else gap
            if row is not None:
                after.append(row)
    last = max([rows[-1] if rows else -1, found.keys.get(game_id, -1)])
    return line, after, max(last + 1 - len(line), 0)


def _finished(setup: Setup, line: list[EntryRow], known: str | None, whole: bool) -> str | None:
    """When the game ended: as its `games` row says; for a game that lost that row, if its rules say it
    is over; a cut game is open again (it goes on from the cut)."""
    if not whole:
        return None
    if known is not None:
        return known
    actions: list[RecordedAction] = []
    for row in line:
        parsed = parse_row(row.kind, row.at, row.source, row.action, row.ref)
        if row.kind == "undo":
            if actions:
                actions.pop()
        elif parsed is not None:
            actions.append(parsed)
    try:
        result = replay(GameRecord.from_setup(setup, tuple(actions)), "salvage")
        over = get_game(setup.game).is_over(result.state)
    except (UserError, ValueError, KeyError):
        return None
    return line[-1].at if over and line else None


def assemble(found: Found) -> tuple[list[SalvagedGame], dict[int, str]]:
    """The games the rows make up, by id; and the games that cannot be made up, with why."""
    by_game: dict[int, list[int]] = {}
    for game_id, n in found.entries:
        by_game.setdefault(game_id, []).append(n)
    games: list[SalvagedGame] = []
    lost: dict[int, str] = {}
    for game_id in sorted(set(found.games) | set(by_game) | set(found.keys)):
        versions = found.games.get(game_id, [])
        numbers = sorted(n for n in by_game.get(game_id, []) if n >= 0)
        copies = [version.setup for version in versions] + [
            row.action for row in found.entries.get((game_id, -1), []) if row.kind == "setup"]
        setup_text, setup = next(((text, parsed) for text in copies if text is not None
                                  and (parsed := setup_or_none(text)) is not None), ("", None))
        if setup is None:
            lost[game_id] = ("its setup was on a damaged page" if not copies else "its setup is unreadable"
                             if len(copies) == 1 else "both copies of its setup are unreadable")
            continue
        line, after, gone = _line(found, game_id, numbers)
        starts = [version.created for version in versions] + [row.at for row in found.entries.get((game_id, -1), [])]
        created = next((text for text in starts + [row.at for row in line] if _time(text) is not None),
                       now_utc().isoformat())
        known = next((version.finished for version in versions if version.finished is not None), None)
        games.append(SalvagedGame(id=game_id, game=setup.game, setup=setup_text, created=created,
                                  finished=_finished(setup, line, known, gone == 0), line=tuple(line),
                                  after=tuple(after), lost=gone, clock=found.clocks.get(game_id)))
    return games, lost


# -- writing the new journal ----------------------------------------------------------------------

_INSERT_ENTRY = "INSERT INTO entries (game_id, n, kind, at, source, action, ref) VALUES (?, ?, ?, ?, ?, ?, ?)"


def write_journal(target: Path, games: list[SalvagedGame]) -> None:
    """Write the games into `target`, an empty file: one transaction, SQLite's fsync included."""
    conn = sqlite3.connect(target, isolation_level=None)
    try:
        conn.execute("PRAGMA synchronous=FULL")
        migrate(conn)
        conn.execute("BEGIN IMMEDIATE")
        cut_at = now_utc().isoformat()
        for game in games:  # the trigger adds each game's second setup copy, right before its moves
            conn.execute("INSERT INTO games (id, game, setup, created, finished) VALUES (?, ?, ?, ?, ?)",
                         (game.id, game.game, game.setup, game.created, game.finished))
            conn.executemany(_INSERT_ENTRY, (row.values() for row in game.line))
            if game.lost:
                payload = {"lost": game.lost, "after": [list(row.values())[1:] for row in game.after]}
                conn.execute(_INSERT_ENTRY, (game.id, len(game.line), "cut", cut_at, "journal", json.dumps(payload),
                                             None))
            if game.clock is not None:
                conn.execute("INSERT INTO clocks (game_id, state, saved) VALUES (?, ?, ?)",
                             (game.id, game.clock.state, game.clock.saved))
        conn.execute("COMMIT")
    finally:
        conn.close()


@contextlib.contextmanager
def _held_still(path: Path) -> Iterator[None]:
    """While a writer may be at work (its WAL is there), hold an SQLite read transaction so no checkpoint
    rewrites the pages being read and the WAL is not started over; best effort (a file SQLite cannot open
    has no writer).  A journal closed cleanly is read as it is, and nothing is created beside it."""
    conn = None
    if Path(f"{path}-wal").exists():
        try:
            conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True, timeout=BUSY_TIMEOUT)
            conn.execute("BEGIN")
            conn.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()
        except sqlite3.Error:
            if conn is not None:
                conn.close()
            conn = None
    try:
        yield
    finally:
        if conn is not None:
            conn.close()


def _read(source: Path) -> tuple[list[SalvagedGame], dict[int, str], Found]:
    try:
        with _held_still(source):
            pages = open_pages(source, Path(f"{source}-wal"))
    except OSError as error:
        raise UserError(f"cannot read the journal {source}: {error.strerror or error}") from None
    found = read_rows(pages)
    games, lost = assemble(found)
    return games, lost, found


def _report(games: list[SalvagedGame], lost: dict[int, str], found: Found) -> SalvageReport:
    return SalvageReport(copied=tuple(game.id for game in games),
                         moves=sum(len(game.line) + len(game.after) for game in games),
                         cut={game.id: Cut(moves=moves_in_force(row.kind for row in game.line), lost=game.lost, since=0)
                              for game in games if game.lost},
                         lost=lost, pages=found.page_count, unreadable=found.unreadable)


def survey(source: str | Path) -> SalvageReport:
    """What a salvage of `source` would copy, without writing anything (`goldtable journal check`)."""
    return _report(*_read(_checked_source(Path(source))))


def _salvage_into(source: Path, target: Path) -> SalvageReport:
    """Read `source` page by page and write its games into `target` (reserved, empty; removed again if
    the salvage fails)."""
    try:
        games, lost, found = _read(source)
        try:
            write_journal(target, games)
        except (OSError, sqlite3.OperationalError) as error:
            raise UserError(f"{target}: cannot write: {why_not_writable(target, error)}") from None
    except BaseException:
        target.unlink(missing_ok=True)
        Path(f"{target}-journal").unlink(missing_ok=True)
        raise
    return _report(games, lost, found)


def _checked_source(source: Path) -> Path:
    kind = identify(source)
    if kind == "missing":
        raise UserError(f"no journal at {source}")
    if kind != "journal":
        raise not_a_journal(source, kind)
    return source


def salvage_file(source: str | Path, target: str | Path) -> SalvageReport:
    """`goldtable journal salvage`: copy every readable game of `source` into the new journal `target`."""
    source, target = _checked_source(Path(source)), Path(target)
    reserve_new_file(target)
    return _salvage_into(source, target)


# -- salvaging in place (the app's one tap) -----------------------------------------------------------

@dataclass(frozen=True)
class InPlace:
    """A journal salvaged where it lies: what was copied, and where the damaged file was kept."""

    report: SalvageReport
    kept: Path

    def notices(self) -> list[Notice]:
        """What the app tells with the salvaged journal (`Journal.tell`)."""
        report = self.report
        told = [Notice("journal.salvaged", N_("The journal was salvaged (games: {games}, moves: {moves}); the damaged "
                                              "file is kept beside it as {kept}."),
                       {"games": len(report.copied), "moves": report.moves, "kept": self.kept.name})]
        if report.cut:
            told.append(Notice("journal.salvaged_cut", N_("Games cut by a damaged page: {cut}; each goes on from its "
                                                          "last move before the gap (see History)."),
                               {"cut": len(report.cut)}))
        if report.lost:
            told.append(Notice("journal.salvaged_lost", N_("Games that could not be read at all: {lost}."),
                               {"lost": len(report.lost)}))
        return told


def _new_name(path: Path, what: str) -> Iterator[Path]:
    stamp = now_utc().strftime("%Y%m%dT%H%M%S")
    counter = 0
    while True:
        yield path.with_name(f"{path.stem}.{what}-{stamp}-{os.getpid()}-{counter}{path.suffix}")
        counter += 1


def _keep(original: Path, copy: Path) -> None:
    """`copy` becomes the same bytes as `original` without touching it: a second name (hard link), or,
    where the file system has none, a copy.  FileExistsError if `copy` is taken."""
    try:
        os.link(original, copy)
        return
    except FileExistsError:
        raise
    except OSError as error:
        if error.errno not in (errno.EPERM, errno.EXDEV, errno.ENOTSUP, errno.EOPNOTSUPP, errno.ENOSYS, errno.EMLINK):
            raise
    with original.open("rb") as source, open(copy, "xb") as target:
        shutil.copyfileobj(source, target)
        target.flush()
        os.fsync(target.fileno())


def salvage_in_place(path: str | Path) -> InPlace:
    """Salvage the journal at `path` into a new file that then takes its name; the damaged file (and its
    WAL) are kept, byte for byte, as `<name>.damaged-<time>-<pid>-<n>.sqlite3` beside it.

    Only on the user's word (the app's Salvage button), under the journal lock.  Order, so that a cut at
    any point loses nothing: the new journal is complete and on disk first; then the damaged file gets
    its second name; then its WAL and shared-memory files go (a WAL left beside the new journal would
    be replayed into it); last the new journal is renamed over the old name."""
    path = Path(path)
    folder = path.parent
    with JournalLock(path, owner="goldtable (salvaging the journal)").acquire(wait=BUSY_TIMEOUT):
        target = next(name for name in _new_name(path, "salvaged") if not name.exists())
        reserve_new_file(target)
        report = _salvage_into(path, target)
        wal = Path(f"{path}-wal")
        try:
            kept = _keep_under_new_name(path)
            if wal.exists():
                _keep(wal, Path(f"{kept}-wal"))
            sync_folder(folder)
        except OSError as error:  # nothing has changed yet but the two new names
            target.unlink(missing_ok=True)
            raise UserError(f"cannot salvage the journal {path}: {why_not_writable(path, error)}") from None
        try:
            wal.unlink(missing_ok=True)
            Path(f"{path}-shm").unlink(missing_ok=True)
            os.replace(target, path)
            sync_folder(folder)
        except OSError as error:  # the salvaged journal stays under its own name; the damaged one is kept
            raise UserError(f"the journal {path} was salvaged into {target} but could not take its name: "
                            f"{why_not_writable(path, error)}") from None
    return InPlace(report=report, kept=kept)


def _keep_under_new_name(path: Path) -> Path:
    for name in _new_name(path, "damaged"):
        with contextlib.suppress(FileExistsError):
            _keep(path, name)
            return name
    raise AssertionError("unreachable: _new_name never ends")


__all__ = ["InPlace", "SalvageReport", "SalvagedGame", "assemble", "classify", "looks_like_journal", "move_pages",
           "read_rows", "salvage_file", "salvage_in_place", "salvaged_moves", "survey", "write_journal"]
