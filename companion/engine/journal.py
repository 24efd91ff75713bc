"""Crash-safe journal: every accepted action is on disk before the table hears "OK".

One SQLite file (stdlib sqlite3, WAL, synchronous=FULL).  Rows are only ever added: an undo is a row
of its own, so the whole history of a game survives and a killed process or a power cut resumes with
exactly the actions that were acknowledged.

Opening tells the faults apart (docs/architecture.md, "Durability contract"): only a Goldtable journal
that SQLite reports as corrupt is moved aside (to a new name nothing else can have); a busy file is
waited for; a full or read-only disk gives a read-only journal that says why; anything that is not a
journal is refused untouched.  A game whose own rows cannot be read is quarantined, the others stay.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import json
import os
import shutil
import sqlite3
import tempfile
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, Literal

from pydantic import ValidationError

from companion.engine.core import N_, Setup, Value
from companion.engine.errors import UserError
from companion.engine.paths import data_dir
from companion.engine.record import ActionSource, GameRecord, RecordedAction, now_utc

#: 2 added entries.ref (the hardware frame an action came in); 3 the clocks table; 4 each game's setup kept
#: a second time among its moves (an entries row, kind 'setup', n = -1) and the 'cut' rows of a salvage.
SCHEMA_VERSION = 4
#: `PRAGMA application_id` of a Goldtable journal ("GdTb"); journals from before it have 0 there.
APPLICATION_ID = 0x47645462
#: Without a game end, the WAL is copied into the main file after this many appends.
CHECKPOINT_EVERY = 100
BUSY_TIMEOUT = 5.0

_SQLITE_MAGIC = b"SQLite format 3\x00"
_INT64 = range(-(2**63), 2**63)

#: The kinds of an entries row.  'setup' (n = -1) is the game's setup again, written by the trigger below
#: in the transaction that starts the game, so it lives in the entries' b-tree beside the game's first
#: moves and a lost `games` page costs no game; 'cut' marks where a salvage found moves missing (its
#: `action` says how many, and keeps the rows read after the gap).  Neither is a move.
ENTRY_KINDS = ("action", "undo", "setup", "cut")
_OLD_KIND_CHECK = "CHECK (kind IN ('action', 'undo'))"
_KIND_CHECK = "CHECK (kind IN ('action', 'undo', 'setup', 'cut'))"

_TABLES = (
    """CREATE TABLE IF NOT EXISTS games (
    id INTEGER PRIMARY KEY,
    game TEXT NOT NULL,
    setup TEXT NOT NULL,
    created TEXT NOT NULL,
    finished TEXT
)""",
    f"""CREATE TABLE IF NOT EXISTS entries (
    game_id INTEGER NOT NULL REFERENCES games(id),
    n INTEGER NOT NULL,
    kind TEXT NOT NULL {_KIND_CHECK},
    at TEXT NOT NULL,
    source TEXT NOT NULL,
    action TEXT,
    ref TEXT,
    PRIMARY KEY (game_id, n)
)""",
    """CREATE TABLE IF NOT EXISTS clocks (
    game_id INTEGER PRIMARY KEY REFERENCES games(id),
    state TEXT NOT NULL,
    saved TEXT NOT NULL
)""",
    """CREATE TRIGGER IF NOT EXISTS setup_beside_moves AFTER INSERT ON games BEGIN
    INSERT INTO entries (game_id, n, kind, at, source, action) VALUES (NEW.id, -1, 'setup', NEW.created, 'journal',
                                                                        NEW.setup);
END""",
)
_SCHEMA = ";\n".join(_TABLES) + ";"


class JournalError(Exception):
    """The journal could not write; the action was not acknowledged and nothing changed."""


class JournalOpenError(UserError):
    """The journal cannot be used at all: not a journal, too new, busy, or missing (for a reader)."""


class JournalDamaged(JournalOpenError):
    """SQLite cannot read the journal far enough to list its games; salvage reads it page by page."""

    def __init__(self, path: Path, problem: object) -> None:
        self.problem = str(problem)
        super().__init__(f"the journal {path} is damaged ({problem}); `goldtable journal salvage -o NEW` copies "
                         f"every readable move to a new journal")


class JournalInUse(JournalOpenError):
    """Another process holds the journal's lock (one app per journal)."""


class _Damaged(Exception):
    """SQLite's own check found damage in a journal file."""


class DamagedGame(UserError):
    """One game's rows cannot be read; the rest of the journal is fine."""


class Cut(Value):
    """Where a salvage found a game's moves missing (the latest such place): the game goes on from the
    `moves` in force there, and the table must be set up as the board shows them."""

    moves: int  # the moves in force at the cut
    lost: int  # moves the journal had after them that no longer count: unreadable, or after the gap
    since: int  # rows journalled after the cut (0: nobody has played on yet)


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


def parse_row(kind: str, at: Any, source: Any, action: Any, ref: Any) -> RecordedAction | None:
    """One entries row (not the setup copy) as the journal's readers take it: the action for an action
    row, None for an undo or a cut; ValueError when anything in it is unreadable."""
    try:
        if kind == "action":
            return RecordedAction(at=datetime.fromisoformat(at), source=source, action=json.loads(action), ref=ref)
        datetime.fromisoformat(at)
        if kind == "cut":
            _lost_at_cut(action)
        elif kind != "undo":
            raise ValueError(f"unknown row kind {kind!r}")
    except TypeError as error:  # a NULL or number where text belongs
        raise ValueError(str(error)) from None
    return None  # json and pydantic errors are ValueErrors already


def moves_in_force(kinds: Iterable[str]) -> int:
    """How many moves are in force after rows of these kinds: an action adds one, an undo takes one back."""
    count = 0
    for kind in kinds:
        count = count + 1 if kind == "action" else max(count - 1, 0) if kind == "undo" else count
    return count


def setup_or_none(text: Any) -> Setup | None:
    """A setup from its JSON, None if the text is not one (a damaged copy)."""
    try:
        return Setup.model_validate_json(text)
    except (ValidationError, ValueError, TypeError):
        return None


def _lost_at_cut(payload: Any) -> int:
    """How many moves a cut row says were lost; ValueError if its text is not a JSON object."""
    found = json.loads(payload)
    if not isinstance(found, dict):
        raise ValueError("a cut row holds an object")
    lost = found.get("lost")
    return lost if isinstance(lost, int) and lost >= 0 else 0


@dataclass(frozen=True)
class CheckReport:
    """`goldtable journal check`: SQLite's own check, then every game read as the app would."""

    integrity: str
    games: int
    damaged: dict[int, str] = field(default_factory=dict)

    @property
    def clean(self) -> bool:
        return self.integrity == "ok" and not self.damaged


def default_path() -> Path:
    """`journal.sqlite3` in the data folder (`companion.engine.paths.data_dir`)."""
    return data_dir() / "journal.sqlite3"


# -- the lock: one writing app per journal ------------------------------------------------------------

_HELD: dict[str, tuple[int, int]] = {}  # lock file -> (fd, users in this process)


class JournalLock:
    """An OS lock (flock) on `<journal>.lock`, which holds the owner's pid and name for the message.

    The kernel drops it when the process dies, so a killed app never leaves a stale lock.  Taking it
    twice in one process is fine (counted); another process gets `JournalInUse`.  Readers never need it.
    """

    def __init__(self, journal: str | Path | None = None, owner: str = "goldtable app") -> None:
        self.journal = Path(journal) if journal is not None else default_path()
        self.path = Path(f"{self.journal}.lock")
        self.owner = owner
        self._held = False

    def acquire(self, wait: float = 0.0) -> JournalLock:
        """Take the lock, waiting up to `wait` seconds for another process to let it go."""
        key = str(self.path.resolve())
        if key in _HELD:
            fd, users = _HELD[key]
            _HELD[key] = (fd, users + 1)
            self._held = True
            return self
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as error:
            if error.errno in (errno.EROFS, errno.EACCES, errno.EPERM, errno.ENOSPC):
                return self  # nobody can write here either; the journal will open read-only
            raise JournalOpenError(f"cannot lock the journal {self.journal}: {error.strerror}") from None
        deadline = time.monotonic() + wait
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() < deadline:
                    time.sleep(0.05)
                    continue
            holder = os.pread(fd, 200, 0).decode("utf-8", "replace").split("\n")
            os.close(fd)
            pid = holder[0].strip() or "?"
            who = f" ({holder[1].strip()})" if len(holder) > 1 and holder[1].strip() else ""
            raise JournalInUse(f"the journal {self.journal} is in use by process {pid}{who}") from None
        try:
            os.ftruncate(fd, 0)
            os.pwrite(fd, f"{os.getpid()}\n{self.owner}\n".encode(), 0)
        except OSError:
            pass  # a full disk: the lock holds, only the name of the holder is missing
        _HELD[key] = (fd, 1)
        self._held = True
        return self

    def release(self) -> None:
        if not self._held:
            return
        self._held = False
        key = str(self.path.resolve())
        fd, users = _HELD[key]
        if users > 1:
            _HELD[key] = (fd, users - 1)
            return
        del _HELD[key]
        fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)

    def __enter__(self) -> JournalLock:
        return self.acquire()

    def __exit__(self, *_exc: object) -> None:
        self.release()


# -- telling files apart ------------------------------------------------------------------------------

FileKind = Literal["missing", "empty", "journal", "blank", "foreign", "not-sqlite"]


def identify(path: Path) -> FileKind:
    """What a file is, from its header (and, for a plain SQLite file, its table names), without writing.

    A journal has our application id, or (before it existed) schema version 1 or 2, or our tables; a
    file whose header is gone is a (damaged) journal if our rows are found on its first pages.
    """
    try:
        with path.open("rb") as file:
            header = file.read(100)
    except FileNotFoundError:
        return "missing"
    except IsADirectoryError:
        return "not-sqlite"
    except OSError as error:
        raise JournalOpenError(f"{path}: cannot read: {error.strerror or error}") from None
    if not header:
        return "empty"
    if len(header) < 100 or not header.startswith(_SQLITE_MAGIC):
        from companion.engine.salvage import looks_like_journal  # salvage builds on this module

        return "journal" if looks_like_journal(path) else "not-sqlite"
    application_id = int.from_bytes(header[68:72], "big")
    user_version = int.from_bytes(header[60:64], "big")
    wal = Path(f"{path}-wal")
    live = wal.exists() and wal.stat().st_size > 0  # then page 1 may be newer in the WAL than in the file
    options = "mode=ro" if live else "mode=ro&immutable=1"
    try:
        conn = sqlite3.connect(f"{path.resolve().as_uri()}?{options}", uri=True, timeout=0)
        try:
            if live:
                application_id = conn.execute("PRAGMA application_id").fetchone()[0]
                user_version = conn.execute("PRAGMA user_version").fetchone()[0]
            tables: set[str] | None = {row[0] for row in conn.execute("SELECT name FROM sqlite_master "
                                                                     "WHERE type = 'table'")}
        finally:
            conn.close()
    except sqlite3.DatabaseError as error:
        # Damaged schema: only our application id or schema version makes it ours.  Busy, or no side
        # files possible: the opener will tell.
        tables = {"(unreadable)"} if _primary(error) in _CORRUPT else None
    if application_id == APPLICATION_ID or (application_id == 0 and 1 <= user_version <= SCHEMA_VERSION):
        return "journal"
    if application_id != 0 or user_version != 0:
        return "foreign"
    if tables is None:
        return "journal"
    if not tables:
        return "blank"
    return "journal" if tables <= {"games", "entries", "clocks"} else "foreign"


def refuse_if_not_a_journal(path: str | Path) -> FileKind:
    """Raise `JournalOpenError` for a file that is there but is not ours (the app checks this before its
    window opens); otherwise return what `identify` found, for a writer: missing, empty, blank or journal."""
    path = Path(path)
    kind = identify(path)
    if kind in ("not-sqlite", "foreign"):
        raise _not_a_journal(path, kind)
    return kind


def _not_a_journal(path: Path, kind: FileKind) -> JournalOpenError:
    what = {"not-sqlite": "not an SQLite file", "foreign": "an SQLite file of another program",
            "empty": "an empty file", "blank": "an SQLite file without games"}.get(kind, kind)
    return JournalOpenError(f"{path} is not a Goldtable journal ({what}); it was left untouched")


def _primary(error: sqlite3.Error) -> int:
    return int(getattr(error, "sqlite_errorcode", 0) or 0) & 0xFF


_BUSY = {5, 6}  # SQLITE_BUSY, SQLITE_LOCKED
_CORRUPT = {11, 26}  # SQLITE_CORRUPT, SQLITE_NOTADB
_CANNOT_WRITE = {3, 8, 10, 13, 14}  # PERM, READONLY, IOERR, FULL, CANTOPEN


def _integrity(conn: sqlite3.Connection, check: Literal["quick_check", "integrity_check"]) -> str:
    """SQLite's verdict, "ok" or the first problem (a badly damaged file fails the check itself)."""
    try:
        return str(conn.execute(f"PRAGMA {check}").fetchone()[0])
    except sqlite3.DatabaseError as error:
        return str(error)


@dataclass(frozen=True)
class Notice:
    """One thing the user should be told about the journal: a stable code, an English template (marked
    N_, so the app can say it in its language) and its words; a word may be a Notice itself (the reason
    inside a sentence).  `str()` is the English sentence the CLI prints."""

    code: str
    message: str
    params: dict[str, Any] = field(default_factory=dict)

    def __str__(self) -> str:
        return self.message.format(**self.params)


def why_not_writable(path: Path, error: sqlite3.Error | OSError | None) -> Notice:
    """Why the journal cannot be written, from the file system rather than guesses."""
    folder = path.parent if path.parent.exists() else Path(path.anchor or "/")
    full = Notice("reason.disk_full", N_("the disk holding {folder} is full"), {"folder": str(folder)})
    try:
        stats = os.statvfs(folder)
        if stats.f_flag & os.ST_RDONLY:
            return Notice("reason.read_only", N_("the card or folder {folder} is read-only"), {"folder": str(folder)})
        if stats.f_bavail * stats.f_frsize < 64 * 1024:
            return full
    except OSError:
        pass
    if isinstance(error, sqlite3.Error) and _primary(error) == 13:
        return full
    if isinstance(error, OSError) and error.errno == errno.ENOSPC:
        return full
    detail = error.strerror if isinstance(error, OSError) else error
    return Notice("reason.not_writable", N_("{path} cannot be written ({detail})"),
                  {"path": str(path), "detail": str(detail)})


def reserve_new_file(target: Path) -> None:
    """Create `target` empty, only if nothing is there: a copy (backup, salvage) never writes over a file."""
    try:
        os.close(os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644))
    except FileExistsError:
        raise UserError(f"{target}: already exists; choose a new file name") from None
    except OSError as error:
        raise UserError(f"{target}: cannot write: {why_not_writable(target, error)}") from None


def migrate(conn: sqlite3.Connection) -> None:
    """Create or upgrade the tables in one transaction; a current journal is not written at all.

    No move is rewritten: an older journal gets the columns and tables it lacks, the wider CHECK on
    `entries.kind` (the table's schema text edited as SQLite documents for CHECK changes: the rows on
    disk do not change), the trigger, and one 'setup' row per game appended to `entries`."""
    application_id = conn.execute("PRAGMA application_id").fetchone()[0]
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    if application_id == APPLICATION_ID and version == SCHEMA_VERSION:
        return
    conn.execute("BEGIN IMMEDIATE")
    try:
        for statement in _TABLES:
            conn.execute(statement)
        columns = {row[1] for row in conn.execute("PRAGMA table_info(entries)")}
        if "ref" not in columns:  # a version 1 journal
            conn.execute("ALTER TABLE entries ADD COLUMN ref TEXT")
        _widen_kind_check(conn)
        conn.execute("INSERT INTO entries (game_id, n, kind, at, source, action) SELECT id, -1, 'setup', created, "
                     "'journal', setup FROM games WHERE NOT EXISTS (SELECT 1 FROM entries WHERE game_id = games.id "
                     "AND n = -1)")
        conn.execute(f"PRAGMA application_id={APPLICATION_ID}")
        conn.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise


def _widen_kind_check(conn: sqlite3.Connection) -> None:
    """Let a journal from before schema 4 take 'setup' and 'cut' rows: SQLite's documented way to change
    a CHECK constraint (https://www.sqlite.org/lang_altertable.html, "other kinds of table schema
    changes"), inside the caller's transaction."""
    row = conn.execute("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'entries'").fetchone()
    if row is None or _OLD_KIND_CHECK not in row[0]:
        return
    version = conn.execute("PRAGMA schema_version").fetchone()[0]
    conn.execute("PRAGMA writable_schema=ON")
    try:
        conn.execute("UPDATE sqlite_master SET sql = ? WHERE type = 'table' AND name = 'entries'",
                     (row[0].replace(_OLD_KIND_CHECK, _KIND_CHECK),))
        conn.execute(f"PRAGMA schema_version={version + 1}")
    finally:
        conn.execute("PRAGMA writable_schema=OFF")


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

    def __init__(self, path: str | Path | None = None, *, read_only: bool = False, exclusive: bool = False,
                 busy_timeout: float = BUSY_TIMEOUT, checkpoint_every: int = CHECKPOINT_EVERY) -> None:
        self._prepare(path, read_only, busy_timeout, checkpoint_every)
        if exclusive and not read_only:
            self._lock = JournalLock(self.path).acquire()
        try:
            self._conn = self._write = self._open_reader() if read_only else self._open_writer()
            if not read_only and self.read_only_reason is None:
                self._conn = self._open_for_reading()
        except BaseException:
            if self._lock is not None:
                self._lock.release()
            raise

    @classmethod
    def unavailable(cls, path: str | Path | None, reason: str) -> Journal:
        """An empty, read-only stand-in when the journal cannot be opened at all, so the app can still
        show why (`read_only_reason`) instead of dying; the file itself is left as it is."""
        journal = cls.__new__(cls)
        journal._prepare(path, False, 0.0, CHECKPOINT_EVERY)
        journal.read_only_reason = reason
        journal._reason = Notice("reason.other", "{reason}", {"reason": reason})
        journal._stand_in = True
        journal._conn = journal._write = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False)
        journal._conn.executescript(_SCHEMA)
        return journal

    def _prepare(self, path: str | Path | None, reader: bool, busy_timeout: float, checkpoint_every: int) -> None:
        self.path = Path(path) if path is not None else default_path()
        self.read_only_reason: str | None = None
        #: Why this journal file is damaged past reading with SQLite (it opened as an empty stand-in).
        self.needs_salvage: str | None = None
        self._told: list[Notice] = []  # see `tell`
        self._reason: Notice | None = None  # `read_only_reason` likewise
        self.integrity = "ok"
        self.damaged: dict[int, str] = {}
        self._busy_timeout = busy_timeout
        self._checkpoint_every = checkpoint_every
        self._appends = 0
        self._reader = reader
        self._stand_in = False
        self._lock = None
        self._writing = threading.RLock()  # one transaction at a time, whichever thread asks

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

    # -- opening -----------------------------------------------------------------------------------
    def _connect(self, target: str, uri: bool = False) -> sqlite3.Connection:
        return sqlite3.connect(target, uri=uri, isolation_level=None, check_same_thread=False,
                               timeout=self._busy_timeout)

    def _busy(self) -> JournalOpenError:
        return JournalOpenError(f"the journal {self.path} is busy: another program kept it locked for more than "
                                f"{self._busy_timeout:g}\u00a0s; try again when it is done")

    def _retrying(self, attempt: Any) -> sqlite3.Connection:
        """`attempt()` again while SQLite says busy (its own busy handler waits inside each try)."""
        deadline = time.monotonic() + self._busy_timeout
        while True:
            try:
                return attempt()  # type: ignore[no-any-return]
            except sqlite3.OperationalError as error:
                if _primary(error) not in _BUSY:
                    raise
                if time.monotonic() >= deadline:
                    raise self._busy() from None
                time.sleep(0.05)

    def _open_reader(self) -> sqlite3.Connection:
        kind = identify(self.path)
        if kind == "missing":
            raise JournalOpenError(f"no journal at {self.path}")
        if kind != "journal":
            raise _not_a_journal(self.path, kind)
        return self._retrying(self._snapshot)

    def _snapshot(self) -> sqlite3.Connection:
        """The journal copied into memory (backup API): one consistent state, and the file is let go at once."""
        memory = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False)
        uri = self.path.resolve().as_uri()
        # Without -wal and -shm the journal was closed cleanly and no one has it open: every row is in the
        # main file, which only a checkpoint changes, so it is read as it is and no side file is created.
        closed = not any(Path(f"{self.path}{suffix}").exists() for suffix in ("-wal", "-shm"))
        try:
            source = self._connect(f"{uri}?mode=ro" + ("&immutable=1" if closed else ""), uri=True)
            try:
                # Take the read lock under the busy timeout first: backup() itself would retry for ever.
                source.execute("BEGIN")
                source.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()
                source.backup(memory)
            finally:
                source.close()
        except sqlite3.Error as error:
            if _primary(error) in _BUSY:
                memory.close()
                raise
            if _primary(error) not in _CANNOT_WRITE:
                memory.close()
                if _primary(error) in _CORRUPT:
                    raise JournalDamaged(self.path, error) from None
                raise JournalOpenError(f"cannot read the journal {self.path}: {error}") from None
            # No -shm can be made (full disk, read-only folder): read the files without SQLite's side files.
            try:
                self._snapshot_without_side_files(memory)
            except (sqlite3.Error, OSError) as again:
                memory.close()
                raise JournalOpenError(f"cannot read the journal {self.path}: {again}") from None
        self._check_schema(memory)
        self.integrity = _integrity(memory, "quick_check")
        if self.integrity == "ok":
            migrate(memory)  # an older journal is read through today's tables; the file is not touched
        return memory

    def _snapshot_without_side_files(self, memory: sqlite3.Connection) -> None:
        wal = Path(f"{self.path}-wal")
        if not wal.exists() or wal.stat().st_size == 0:
            source = self._connect(f"{self.path.resolve().as_uri()}?mode=ro&immutable=1", uri=True)
            try:
                source.backup(memory)
            finally:
                source.close()
            return
        # Committed rows still in the WAL: let SQLite replay it on a private copy.
        with tempfile.TemporaryDirectory(prefix="goldtable-journal-") as folder:
            copy = Path(folder) / "journal.sqlite3"
            shutil.copyfile(self.path, copy)
            shutil.copyfile(wal, f"{copy}-wal")
            source = self._connect(str(copy))
            try:
                source.backup(memory)
            finally:
                source.close()

    def _check_schema(self, conn: sqlite3.Connection) -> None:
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        if version > SCHEMA_VERSION:
            raise JournalOpenError(f"{self.path} was written by a newer Goldtable (journal schema {version}, this "
                                   f"one knows {SCHEMA_VERSION}); it was left untouched")

    def _open_writer(self) -> sqlite3.Connection:
        kind = refuse_if_not_a_journal(self.path)
        if kind == "missing":
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
            except OSError as error:
                return self._read_only_instead(error, create=True)
        try:
            return self._retrying(self._open_file)
        except JournalOpenError:
            raise
        except _Damaged as error:
            return self._offer_salvage(str(error))
        except sqlite3.DatabaseError as error:
            code = _primary(error)
            if code in _CANNOT_WRITE:  # nothing there yet (or nothing in it): an empty read-only journal
                return self._read_only_instead(error, create=kind in ("missing", "empty", "blank"))
            if code in _CORRUPT:
                return self._offer_salvage(str(error))
            raise JournalOpenError(f"cannot open the journal {self.path}: {error}") from None

    def _open_file(self) -> sqlite3.Connection:
        conn = self._connect(str(self.path))
        try:
            check = conn.execute("PRAGMA quick_check").fetchone()[0]
            if check != "ok":
                raise _Damaged(f"integrity check failed: {check}")
            self._check_schema(conn)
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=FULL")
            migrate(conn)
            conn.execute("BEGIN IMMEDIATE")  # proves it can be written (a read-only file fails here)
            conn.execute("ROLLBACK")
        except BaseException:
            conn.close()
            raise
        return conn

    def _open_for_reading(self) -> sqlite3.Connection:
        """The second connection of a writable journal: reads only (`query_only`), never behind a commit."""
        try:
            conn = self._connect(str(self.path))
            conn.execute("PRAGMA query_only=1")
        except BaseException:
            self._write.close()
            raise
        return conn

    def _read_only_instead(self, error: sqlite3.Error | OSError, create: bool) -> sqlite3.Connection:
        """Full or read-only storage: keep the games readable and say why nothing can be saved."""
        self._reason = why_not_writable(self.path, error)
        self.read_only_reason = str(self._reason)
        if create:
            conn = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False)
            conn.executescript(_SCHEMA)
            return conn
        return self._retrying(self._snapshot)

    def _offer_salvage(self, problem: str) -> sqlite3.Connection:
        """A damaged Goldtable journal: the file is left exactly as it is (nothing renamed, nothing
        written) and the journal opens as an empty read-only stand-in whose `needs_salvage` says why;
        `companion.engine.salvage.salvage_in_place` copies what can be read when the user asks."""
        self.needs_salvage = self.integrity = " ".join(problem.replace("*** in database main ***", "").split())[:120]
        self._reason = Notice("reason.needs_salvage", N_("the journal is damaged and has not been salvaged yet"))
        self.read_only_reason = str(self._reason)
        conn = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False)
        conn.executescript(_SCHEMA)
        return conn

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
            raise UserError(f"{target}: cannot write: {error}") from None
        return target

    # -- writing -----------------------------------------------------------------------------------
    def _transaction(self, statements: list[tuple[str, tuple[object, ...]]]) -> int:
        """Run the statements as ONE transaction: all of them are on disk afterwards, or none."""
        if self.read_only_reason is not None:
            raise JournalError(f"cannot save to the game journal {self.path}: {self.read_only_reason}")
        if self._reader:
            raise JournalError(f"the game journal {self.path} was opened for reading only")
        conn = self._write
        try:
            with self._writing:
                conn.execute("BEGIN IMMEDIATE")
                try:
                    rowid = 0
                    for sql, args in statements:
                        rowid = int(conn.execute(sql, args).lastrowid or rowid)
                    conn.execute("COMMIT")
                except BaseException:
                    if conn.in_transaction:
                        conn.execute("ROLLBACK")
                    raise
        except sqlite3.Error as error:
            reason = why_not_writable(self.path, error) if _primary(error) in _CANNOT_WRITE else str(error)
            raise JournalError(f"could not save to the game journal {self.path}: {reason}") from error
        return rowid

    def new_game(self, setup: Setup) -> int:
        """Start a game; returns its journal id."""
        return self._transaction([("INSERT INTO games (game, setup, created) VALUES (?, ?, ?)",
                                   (setup.game, setup.model_dump_json(), now_utc().isoformat()))])

    def append(self, game_id: int, kind: Literal["action", "undo"], entry: RecordedAction | None,
               at: datetime | None = None, finished: bool | None = None) -> None:
        """Add one action (or an undo) to a game, durable when this returns.

        `finished` True/False also marks the game ended/open again, in the same transaction, so a cut
        can never leave an action without its end mark or the other way round."""
        when = entry.at if entry is not None else (at or now_utc())
        source = entry.source if entry is not None else "touch"
        action = json.dumps(entry.action, sort_keys=True) if entry is not None else None
        ref = entry.ref if entry is not None else None
        statements: list[tuple[str, tuple[object, ...]]] = [(
            "INSERT INTO entries (game_id, n, kind, at, source, action, ref) VALUES "
            "(?, (SELECT COALESCE(MAX(n), -1) + 1 FROM entries WHERE game_id = ?), ?, ?, ?, ?, ?)",
            (game_id, game_id, kind, when.isoformat(), source, action, ref))]
        if finished is not None:
            statements.append(("UPDATE games SET finished = ? WHERE id = ?",
                               (now_utc().isoformat() if finished else None, game_id)))
        self._transaction(statements)
        self._appends += 1
        if finished or self._appends % self._checkpoint_every == 0:
            self.checkpoint()

    def save_clock(self, game_id: int, state: str, wait_for_disk: bool = True) -> None:
        """Keep a game's chess clock (`TimeBank.snapshot()` as JSON), replacing the one kept before: one
        small transaction, apart from the actions, since time never enters the record.

        `wait_for_disk=False` (the periodic saves while a clock runs) commits without SQLite's fsync
        (`synchronous=NORMAL` for this transaction): it survives a killed app at once and a power cut as
        soon as the next action or clock save that waits for the disk is committed."""
        quick = not wait_for_disk and self.read_only_reason is None and not self._reader
        with self._writing:  # no other thread's transaction may run without the fsync meanwhile
            if quick:
                self._write.execute("PRAGMA synchronous=NORMAL")
            try:
                self._transaction([("INSERT INTO clocks (game_id, state, saved) VALUES (?, ?, ?) ON CONFLICT "
                                    "(game_id) DO UPDATE SET state = excluded.state, saved = excluded.saved",
                                    (game_id, state, now_utc().isoformat()))])
            finally:
                if quick:
                    self._write.execute("PRAGMA synchronous=FULL")

    def clock(self, game_id: int) -> str | None:
        """The chess clock last kept for a game (JSON, see `save_clock`), None if it never had one or the
        row cannot be read (a clock is never a reason to quarantine a game)."""
        try:
            row = self._conn.execute("SELECT state FROM clocks WHERE game_id = ?", (game_id,)).fetchone()
        except sqlite3.DatabaseError:
            return None
        return row[0] if row is not None and isinstance(row[0], str) else None

    def abandon(self, game_id: int) -> None:
        """Lay an unfinished game aside: it no longer offers itself for Resume, and every row stays (the
        History screen tells it from a played-out game because its rules do not say it is over)."""
        self._game_row(game_id)  # KeyError for a game that is not there
        self._transaction([("UPDATE games SET finished = ? WHERE id = ? AND finished IS NULL",
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
                cut = Cut(moves=moves_in_force(kind for kind, _ in history), lost=_lost_at_cut(action), since=0)
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
        try:
            rows = self._conn.execute(self._SUMMARY + "GROUP BY g.id ORDER BY g.id DESC").fetchall()
        except sqlite3.DatabaseError as error:
            raise JournalDamaged(self.path, error) from None
        summaries = []
        for row in rows:
            try:
                summaries.append(self._summary(row, None, self._read_game(row[0])))
            except DamagedGame:
                summaries.append(self._summary(row, self.damaged[row[0]], None))
        return summaries

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
            skip = ",".join(str(game_id) for game_id in self.damaged)
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
        integrity = _integrity(self._conn, "integrity_check")
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


__all__ = ["APPLICATION_ID", "ENTRY_KINDS", "ActionSource", "CheckReport", "Cut", "DamagedGame", "GameSummary",
           "Journal", "JournalDamaged", "JournalError", "JournalInUse", "JournalLock", "JournalOpenError", "Notice",
           "default_path", "identify", "migrate", "moves_in_force", "parse_row", "refuse_if_not_a_journal",
           "reserve_new_file", "setup_or_none", "why_not_writable"]
