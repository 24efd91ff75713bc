"""Opening a journal file tells its faults apart (docs/architecture.md, "Durability contract").

Only a Goldtable journal that SQLite reports as corrupt is offered for salvage, and left exactly as it is
until the user asks; a busy file is waited for; a full or read-only disk gives a read-only journal that
says why; anything that is not a journal is refused untouched.  `Opener` does the opening, `identify` the
telling apart, `Notice` the saying why.
"""

from __future__ import annotations

import errno
import os
import shutil
import sqlite3
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from companion.engine.core import N_
from companion.engine.errors import UserError
from companion.engine.journal_format import APPLICATION_ID, SCHEMA, SCHEMA_VERSION, migrate

BUSY_TIMEOUT = 5.0
_SQLITE_MAGIC = b"SQLite format 3\x00"


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
        tables = {"(unreadable)"} if primary(error) in CORRUPT else None
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
        raise not_a_journal(path, kind)
    return kind


def not_a_journal(path: Path, kind: FileKind) -> JournalOpenError:
    what = {"not-sqlite": "not an SQLite file", "foreign": "an SQLite file of another program",
            "empty": "an empty file", "blank": "an SQLite file without games"}.get(kind, kind)
    return JournalOpenError(f"{path} is not a Goldtable journal ({what}); it was left untouched")


def primary(error: sqlite3.Error) -> int:
    return int(getattr(error, "sqlite_errorcode", 0) or 0) & 0xFF


BUSY = {5, 6}  # SQLITE_BUSY, SQLITE_LOCKED
CORRUPT = {11, 26}  # SQLITE_CORRUPT, SQLITE_NOTADB
CANNOT_WRITE = {3, 8, 10, 13, 14}  # PERM, READONLY, IOERR, FULL, CANTOPEN


def sqlite_check(conn: sqlite3.Connection, check: Literal["quick_check", "integrity_check"]) -> str:
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


#: A card or stick that fails or was taken out: the kernel's block layer answers EIO, a device gone ENODEV or
#: ENXIO, and a stick mounted through FUSE (NTFS by ntfs-3g, exFAT by exfat-fuse) ENOTCONN or ECONNABORTED.
MEDIUM_GONE = frozenset({errno.EIO, errno.ENODEV, errno.ENXIO, errno.ENOTCONN, errno.ECONNABORTED})


def why_not_writable(path: Path, error: sqlite3.Error | OSError | None) -> Notice:
    """Why a file (the journal, an export, the settings) cannot be written, from the file system rather
    than guesses, in words the catalogs translate: the system's own (`strerror`) are English."""
    try:
        folder = path.parent if path.parent.exists() else Path(path.anchor or "/")
    except OSError:  # the medium itself no longer answers (a stick taken out): its folder is still the one
        folder = path.parent
    full = Notice("reason.disk_full", N_("the disk holding {folder} is full"), {"folder": str(folder)})
    read_only = Notice("reason.read_only", N_("the card or folder {folder} is read-only"), {"folder": str(folder)})
    try:
        stats = os.statvfs(folder)
        if stats.f_flag & os.ST_RDONLY:
            return read_only
        if stats.f_bavail * stats.f_frsize < 64 * 1024:
            return full
    except OSError:
        pass
    code = primary(error) if isinstance(error, sqlite3.Error) else None
    number = error.errno if isinstance(error, OSError) else None
    if code == 13 or number in (errno.ENOSPC, errno.EDQUOT):
        return full
    if number == errno.EROFS:
        return read_only
    if code == 10 or number in MEDIUM_GONE:
        return Notice("reason.io_error", N_("the card or stick holding {folder} could not be written (taken out, "
                                            "or failing)"), {"folder": str(folder)})
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


def empty_journal() -> sqlite3.Connection:
    """An empty journal in memory: the stand-in when the file cannot be used (or is not there yet)."""
    conn = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False)
    conn.executescript(SCHEMA)
    return conn


@dataclass(frozen=True)
class Opened:
    """What opening a journal file gave: the connection to use, and what the user must hear about it."""

    conn: sqlite3.Connection
    #: SQLite's verdict on the file ("ok" or the first problem).
    integrity: str = "ok"
    #: Why nothing can be saved; None when the journal can be written.
    reason: Notice | None = None
    #: Why the file is damaged past reading with SQLite (`conn` is then an empty stand-in).
    needs_salvage: str | None = None


class Opener:
    """Opens one journal file as a writer (`writer`) or as a consistent in-memory snapshot (`reader`),
    telling the faults apart as the module says; never renames, replaces or creates what is not ours."""

    def __init__(self, path: Path, busy_timeout: float = BUSY_TIMEOUT) -> None:
        self.path = path
        self.busy_timeout = busy_timeout
        self._integrity = "ok"

    def connect(self, target: str, uri: bool = False) -> sqlite3.Connection:
        return sqlite3.connect(target, uri=uri, isolation_level=None, check_same_thread=False,
                               timeout=self.busy_timeout)

    def _busy(self) -> JournalOpenError:
        return JournalOpenError(f"the journal {self.path} is busy: another program kept it locked for more than "
                                f"{self.busy_timeout:g}\u00a0s; try again when it is done")

    def _retrying(self, attempt: Callable[[], sqlite3.Connection]) -> sqlite3.Connection:
        """`attempt()` again while SQLite says busy (its own busy handler waits inside each try)."""
        deadline = time.monotonic() + self.busy_timeout
        while True:
            try:
                return attempt()
            except sqlite3.OperationalError as error:
                if primary(error) not in BUSY:
                    raise
                if time.monotonic() >= deadline:
                    raise self._busy() from None
                time.sleep(0.05)

    def reader(self) -> Opened:
        """The journal as a snapshot in memory; the file is neither written nor created."""
        kind = identify(self.path)
        if kind == "missing":
            raise JournalOpenError(f"no journal at {self.path}")
        if kind != "journal":
            raise not_a_journal(self.path, kind)
        return Opened(self._retrying(self._snapshot), self._integrity)


    def _snapshot(self) -> sqlite3.Connection:
        """The journal copied into memory (backup API): one consistent state, and the file is let go at once."""
        memory = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False)
        uri = self.path.resolve().as_uri()
        # Without -wal and -shm the journal was closed cleanly and no one has it open: every row is in the
        # main file, which only a checkpoint changes, so it is read as it is and no side file is created.
        closed = not any(Path(f"{self.path}{suffix}").exists() for suffix in ("-wal", "-shm"))
        try:
            source = self.connect(f"{uri}?mode=ro" + ("&immutable=1" if closed else ""), uri=True)
            try:
                # Take the read lock under the busy timeout first: backup() itself would retry for ever.
                source.execute("BEGIN")
                source.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()
                source.backup(memory)
            finally:
                source.close()
        except sqlite3.Error as error:
            if primary(error) in BUSY:
                memory.close()
                raise
            if primary(error) not in CANNOT_WRITE:
                memory.close()
                if primary(error) in CORRUPT:
                    raise JournalDamaged(self.path, error) from None
                raise JournalOpenError(f"cannot read the journal {self.path}: {error}") from None
            # No -shm can be made (full disk, read-only folder): read the files without SQLite's side files.
            try:
                self._snapshot_without_side_files(memory)
            except (sqlite3.Error, OSError) as again:
                memory.close()
                raise JournalOpenError(f"cannot read the journal {self.path}: {again}") from None
        self._check_schema(memory)
        self._integrity = sqlite_check(memory, "quick_check")
        if self._integrity == "ok":
            migrate(memory)  # an older journal is read through today's tables; the file is not touched
        return memory

    def _snapshot_without_side_files(self, memory: sqlite3.Connection) -> None:
        wal = Path(f"{self.path}-wal")
        if not wal.exists() or wal.stat().st_size == 0:
            source = self.connect(f"{self.path.resolve().as_uri()}?mode=ro&immutable=1", uri=True)
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
            source = self.connect(str(copy))
            try:
                source.backup(memory)
            finally:
                source.close()

    def _check_schema(self, conn: sqlite3.Connection) -> None:
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        if version > SCHEMA_VERSION:
            raise JournalOpenError(f"{self.path} was written by a newer Goldtable (journal schema {version}, this "
                                   f"one knows {SCHEMA_VERSION}); it was left untouched")


    def writer(self) -> Opened:
        """The file opened for writing (WAL, synchronous=FULL, migrated), created if missing; a read-only
        snapshot with its reason on full or read-only storage; an empty stand-in for a damaged journal."""
        kind = refuse_if_not_a_journal(self.path)
        if kind == "missing":
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
            except OSError as error:
                return self._read_only_instead(error, create=True)
        side_files = self._side_files()
        try:
            return Opened(self._retrying(self._open_file))
        except JournalOpenError:
            raise
        except _Damaged as error:
            return self._offer_salvage(str(error), side_files)
        except sqlite3.DatabaseError as error:
            code = primary(error)
            if code in CANNOT_WRITE:  # nothing there yet (or nothing in it): an empty read-only journal
                return self._read_only_instead(error, create=kind in ("missing", "empty", "blank"))
            if code in CORRUPT:
                return self._offer_salvage(str(error), side_files)
            raise JournalOpenError(f"cannot open the journal {self.path}: {error}") from None

    def _side_files(self) -> list[Path]:
        """SQLite's `-wal` and `-shm` beside the journal that are not there yet (opening a WAL journal makes
        them, and its last connection to close removes them, unless another one was closing just then)."""
        return [side for side in (Path(f"{self.path}-wal"), Path(f"{self.path}-shm")) if not side.exists()]

    def _open_file(self) -> sqlite3.Connection:
        conn = self.connect(str(self.path))
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

    def second_reader(self) -> sqlite3.Connection:
        """The second connection of a writable journal: reads only (`query_only`), never behind a commit."""
        conn = self.connect(str(self.path))
        conn.execute("PRAGMA query_only=1")
        return conn

    def _read_only_instead(self, error: sqlite3.Error | OSError, create: bool) -> Opened:
        """Full or read-only storage: keep the games readable and say why nothing can be saved."""
        reason = why_not_writable(self.path, error)
        if create:
            return Opened(empty_journal(), reason=reason)
        return Opened(self._retrying(self._snapshot), self._integrity, reason)

    def _offer_salvage(self, problem: str, side_files: list[Path]) -> Opened:
        """A damaged Goldtable journal: the file is left exactly as it is (nothing renamed, nothing
        written) and the journal opens as an empty read-only stand-in whose `needs_salvage` says why;
        `companion.engine.salvage.salvage_in_place` copies what can be read when the user asks.  The side
        files the look at it made are removed while the log in them is empty (two programs that looked at
        once could each leave them to the other), so the folder is as it was."""
        wal = Path(f"{self.path}-wal")
        if wal in side_files and (not wal.exists() or wal.stat().st_size == 0):
            for side in side_files:
                side.unlink(missing_ok=True)
        problem = " ".join(problem.replace("*** in database main ***", "").split())[:120]
        return Opened(empty_journal(), integrity=problem, needs_salvage=problem, reason=Notice(
            "reason.needs_salvage", N_("the journal is damaged and has not been salvaged yet")))
