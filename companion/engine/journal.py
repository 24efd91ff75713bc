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
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, Literal

from pydantic import ValidationError

from companion.engine.core import N_, Setup, Value
from companion.engine.errors import UserError
from companion.engine.paths import data_dir
from companion.engine.record import GameRecord, RecordedAction, Source, now_utc

SCHEMA_VERSION = 3  # 2 added entries.ref (the hardware frame an action came in); 3 the clocks table
#: `PRAGMA application_id` of a Goldtable journal ("GdTb"); journals from before it have 0 there.
APPLICATION_ID = 0x47645462
#: Without a game end, the WAL is copied into the main file after this many appends.
CHECKPOINT_EVERY = 100
BUSY_TIMEOUT = 5.0

_SQLITE_MAGIC = b"SQLite format 3\x00"
_INT64 = range(-(2**63), 2**63)

_SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    id INTEGER PRIMARY KEY,
    game TEXT NOT NULL,
    setup TEXT NOT NULL,
    created TEXT NOT NULL,
    finished TEXT
);
CREATE TABLE IF NOT EXISTS entries (
    game_id INTEGER NOT NULL REFERENCES games(id),
    n INTEGER NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ('action', 'undo')),
    at TEXT NOT NULL,
    source TEXT NOT NULL,
    action TEXT,
    ref TEXT,
    PRIMARY KEY (game_id, n)
);
CREATE TABLE IF NOT EXISTS clocks (
    game_id INTEGER PRIMARY KEY REFERENCES games(id),
    state TEXT NOT NULL,
    saved TEXT NOT NULL
);
"""


class JournalError(Exception):
    """The journal could not write; the action was not acknowledged and nothing changed."""


class JournalOpenError(UserError):
    """The journal cannot be used at all: not a journal, too new, busy, or missing (for a reader)."""


class JournalInUse(JournalOpenError):
    """Another process holds the journal's lock (one app per journal)."""


class _Damaged(Exception):
    """SQLite's own check found damage in a journal file."""


class DamagedGame(UserError):
    """One game's rows cannot be read; the rest of the journal is fine."""


class GameSummary(Value):
    """One line of `goldtable games`.  A damaged game has `damaged` set and may lack players or times."""

    id: int
    game: str
    players: tuple[str, ...]
    created: datetime | None
    updated: datetime | None
    actions: int
    finished: bool
    damaged: str | None = None


@dataclass(frozen=True)
class CheckReport:
    """`goldtable journal check`: SQLite's own check, then every game read as the app would."""

    integrity: str
    games: int
    damaged: dict[int, str] = field(default_factory=dict)

    @property
    def clean(self) -> bool:
        return self.integrity == "ok" and not self.damaged


@dataclass(frozen=True)
class SalvageReport:
    """What `goldtable journal salvage` copied and what it could not read."""

    copied: tuple[int, ...]
    lost: dict[int, str]


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

    A journal has our application id, or (before it existed) schema version 1 or 2, or our tables.
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
        return "not-sqlite"
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


def _why_not_writable(path: Path, error: sqlite3.Error | OSError | None) -> Notice:
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


def _unique_aside(path: Path) -> Path:
    """A new file next to `path` that no one else can have been given (O_EXCL; pid and a counter)."""
    stamp = now_utc().strftime("%Y%m%dT%H%M%S")
    counter = 0
    while True:
        target = path.with_name(f"{path.stem}.damaged-{stamp}-{os.getpid()}-{counter}{path.suffix}")
        try:
            os.close(os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644))
            return target
        except FileExistsError:
            counter += 1


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
        self.notice: str | None = None
        self.read_only_reason: str | None = None
        self._notice: Notice | None = None  # `notice` with its template, for the app's language
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

    @property
    def notice_items(self) -> list[Notice]:
        """The same as `notices`, as codes, templates and words (the app says them in its language)."""
        told = [self._notice] if self._notice else []
        reason = self._reason or Notice("reason.other", "{reason}", {"reason": self.read_only_reason})
        if self._stand_in:
            told.append(Notice("journal.unavailable", N_("Games cannot be saved or resumed: {reason}."),
                               {"reason": reason}))
        elif self.read_only_reason:
            told.append(Notice("journal.read_only", N_("Games cannot be saved: {reason}. Saved games can still "
                                                       "be viewed and exported."), {"reason": reason}))
        if self.integrity != "ok":
            told.append(Notice("journal.damaged", N_("The journal {path} is damaged ({problem}); `goldtable "
                                                     "journal salvage` copies the readable games to a new "
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
            self._migrate(memory)  # an older journal is read through today's tables; the file is not touched
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
            return self._move_aside_and_start_again(str(error))
        except sqlite3.DatabaseError as error:
            code = _primary(error)
            if code in _CANNOT_WRITE:  # nothing there yet (or nothing in it): an empty read-only journal
                return self._read_only_instead(error, create=kind in ("missing", "empty", "blank"))
            if code in _CORRUPT:
                return self._move_aside_and_start_again(str(error))
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
            self._migrate(conn)
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

    @staticmethod
    def _migrate(conn: sqlite3.Connection) -> None:
        """Create or upgrade the tables in one transaction; a current journal is not written at all."""
        application_id = conn.execute("PRAGMA application_id").fetchone()[0]
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        if application_id == APPLICATION_ID and version == SCHEMA_VERSION:
            return
        conn.execute("BEGIN IMMEDIATE")
        try:
            for statement in _SCHEMA.split(";"):
                if statement.strip():
                    conn.execute(statement)
            columns = {row[1] for row in conn.execute("PRAGMA table_info(entries)")}
            if "ref" not in columns:  # a version 1 journal
                conn.execute("ALTER TABLE entries ADD COLUMN ref TEXT")
            conn.execute(f"PRAGMA application_id={APPLICATION_ID}")
            conn.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise

    def _read_only_instead(self, error: sqlite3.Error | OSError, create: bool) -> sqlite3.Connection:
        """Full or read-only storage: keep the games readable and say why nothing can be saved."""
        self._reason = _why_not_writable(self.path, error)
        self.read_only_reason = str(self._reason)
        if create:
            conn = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False)
            conn.executescript(_SCHEMA)
            return conn
        return self._retrying(self._snapshot)

    def _move_aside_and_start_again(self, problem: str) -> sqlite3.Connection:
        """A damaged Goldtable journal: keep it intact under a new name and start a new one.

        Done under the journal lock, and the damage is checked again under it, so two processes that
        found the same bad file move it once and never move each other's new journal."""
        lock = JournalLock(self.path, owner="goldtable (moving a damaged journal aside)")
        with lock.acquire(wait=self._busy_timeout):
            try:
                return self._open_file()
            except _Damaged:
                pass
            except sqlite3.DatabaseError as again:
                if _primary(again) not in _CORRUPT:
                    raise JournalOpenError(f"cannot open the journal {self.path}: {again}") from None
            try:
                target = _unique_aside(self.path)
                os.replace(self.path, target)
                for suffix in ("-wal", "-shm"):
                    part = Path(f"{self.path}{suffix}")
                    if part.exists():
                        os.replace(part, f"{target}{suffix}")
            except OSError as error:  # a read-only or full card: keep it where it is, readable as far as it goes
                return self._read_only_instead(error, create=False)
            self._notice = Notice("journal.moved_aside", N_("The game journal {path} was damaged ({problem}); it "
                                                            "was kept as {target} and a new journal was started."),
                                  {"path": str(self.path), "problem": problem, "target": str(target)})
            self.notice = str(self._notice)
            return self._retrying(self._open_file)

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
        try:
            os.close(os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644))
        except FileExistsError:
            raise UserError(f"{target}: already exists; choose a new file name") from None
        except OSError as error:
            raise UserError(f"{target}: cannot write: {error.strerror}") from None
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
            reason = _why_not_writable(self.path, error) if _primary(error) in _CANNOT_WRITE else str(error)
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

    def _read_game(self, game_id: int, game_row: tuple[str, str, str | None] | None = None,
                   ) -> tuple[Setup, datetime, list[tuple[str, RecordedAction | None]]]:
        """Setup, start time and every row of one game, each checked; DamagedGame names the first bad one."""
        try:
            setup_json, created, _finished = game_row or self._game_row(game_id)
            rows = self._conn.execute("SELECT kind, at, source, action, ref FROM entries WHERE game_id = ? "
                                      "ORDER BY n", (game_id,)).fetchall()
        except sqlite3.DatabaseError as error:
            raise self._damaged(game_id, f"unreadable: {error}") from None
        try:
            setup = Setup.model_validate_json(setup_json)
        except ValidationError:
            raise self._damaged(game_id, "its setup is unreadable") from None
        try:
            started = datetime.fromisoformat(created)
        except (TypeError, ValueError):
            raise self._damaged(game_id, f"its start time {created!r} is unreadable") from None
        history: list[tuple[str, RecordedAction | None]] = []
        for index, (kind, at, source, action, ref) in enumerate(rows):
            try:
                entry = None if kind == "undo" else RecordedAction(
                    at=datetime.fromisoformat(at), source=source, action=json.loads(action), ref=ref)
                if kind == "undo":
                    datetime.fromisoformat(at)
            except (TypeError, ValueError):  # json and pydantic errors are ValueErrors
                raise self._damaged(game_id, f"row {index} is unreadable") from None
            history.append((kind, entry))
        self.damaged.pop(game_id, None)
        return setup, started, history

    def setup(self, game_id: int) -> Setup:
        """The setup a journalled game started from; KeyError if there is no such game, DamagedGame if
        its rows cannot be read."""
        return self._read_game(game_id)[0]

    def actions(self, game_id: int) -> list[RecordedAction]:
        """The actions in force: every journalled action with the undone ones taken back."""
        kept: list[RecordedAction] = []
        for kind, entry in self._read_game(game_id)[2]:
            if kind == "undo":
                if kept:
                    kept.pop()
            elif entry is not None:
                kept.append(entry)
        return kept

    def history(self, game_id: int) -> list[tuple[str, RecordedAction | None]]:
        """Every row of a game including undos, oldest first (nothing is ever deleted)."""
        return self._read_game(game_id)[2]

    def record(self, game_id: int) -> GameRecord:
        """A game as a game record (for export and `goldtable replay`)."""
        setup, started, _ = self._read_game(game_id)
        return GameRecord.from_setup(setup, tuple(self.actions(game_id)), started=started)

    _SUMMARY = ("SELECT g.id, g.game, g.setup, g.created, g.finished, MAX(e.at), "
                "SUM(CASE e.kind WHEN 'action' THEN 1 WHEN 'undo' THEN -1 ELSE 0 END) "
                "FROM games g LEFT JOIN entries e ON e.game_id = g.id ")

    def _summary(self, row: tuple[Any, ...], damaged: str | None) -> GameSummary:
        game_id, game, setup_json, created, finished, last, count = row
        players: tuple[str, ...] = ()
        times: list[datetime | None] = []
        try:
            players = tuple(p.name for p in Setup.model_validate_json(setup_json).players)
        except ValidationError:
            damaged = damaged or "its setup is unreadable"
        for text in (created, last or created):
            try:
                times.append(datetime.fromisoformat(text))
            except (TypeError, ValueError):
                times.append(None)
                damaged = damaged or f"a time {text!r} is unreadable"
        if damaged:
            self.damaged[game_id] = damaged
        return GameSummary(id=game_id, game=game, players=players, created=times[0], updated=times[1],
                           actions=max(int(count or 0), 0), finished=finished is not None, damaged=damaged)

    def games(self) -> list[GameSummary]:
        """Every journalled game, newest first; each is read in full, so damaged ones are marked."""
        try:
            rows = self._conn.execute(self._SUMMARY + "GROUP BY g.id ORDER BY g.id DESC").fetchall()
        except sqlite3.DatabaseError as error:
            raise JournalOpenError(f"the journal {self.path} is damaged ({error}); `goldtable journal salvage` "
                                   f"copies the readable games to a new journal") from None
        summaries = []
        for row in rows:
            try:
                self._read_game(row[0])
                problem = None
            except DamagedGame:
                problem = self.damaged[row[0]]
            summaries.append(self._summary(row, problem))
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
                self._read_game(row[0], (row[2], row[3], row[4]))
            except DamagedGame:
                continue
            summary = self._summary(row, None)
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
            raise JournalOpenError(f"the journal {self.path} is too damaged to list its games ({error})") from None

    def salvage(self, target: str | Path) -> SalvageReport:
        """Copy every game that reads in full into a new journal `target` (same ids); never overwrites."""
        target = Path(target)
        if identify(target) != "missing":
            raise UserError(f"{target}: already exists; choose a new file name")
        copy = Journal(target)
        copied: list[int] = []
        lost: dict[int, str] = {}
        try:
            for game_id in self._game_ids():
                try:
                    setup, started, _history = self._read_game(game_id)
                    finished = self._game_row(game_id)[2]
                except DamagedGame:
                    lost[game_id] = self.damaged[game_id]
                    continue
                statements: list[tuple[str, tuple[object, ...]]] = [(
                    "INSERT INTO games (id, game, setup, created, finished) VALUES (?, ?, ?, ?, ?)",
                    (game_id, setup.game, setup.model_dump_json(), started.isoformat(), finished))]
                raw = self._conn.execute("SELECT n, kind, at, source, action, ref FROM entries WHERE game_id = ? "
                                         "ORDER BY n", (game_id,)).fetchall()
                statements += [("INSERT INTO entries (game_id, n, kind, at, source, action, ref) "
                                "VALUES (?, ?, ?, ?, ?, ?, ?)", (game_id, *entry)) for entry in raw]
                with contextlib.suppress(sqlite3.DatabaseError):  # an unreadable clock is left behind
                    statements += [("INSERT INTO clocks (game_id, state, saved) VALUES (?, ?, ?)", (game_id, *clock))
                                   for clock in self._conn.execute("SELECT state, saved FROM clocks WHERE game_id = ?",
                                                                   (game_id,))]
                copy._transaction(statements)
                copied.append(game_id)
        finally:
            copy.close()
        return SalvageReport(copied=tuple(copied), lost=lost)


__all__ = ["APPLICATION_ID", "CheckReport", "DamagedGame", "GameSummary", "Journal", "JournalError",
           "JournalInUse", "JournalLock", "JournalOpenError", "SalvageReport", "Source", "default_path", "identify",
           "refuse_if_not_a_journal"]
