"""One writing app per journal: an OS lock on `<journal>.lock` beside the journal file."""

from __future__ import annotations

import errno
import fcntl
import os
import time
from pathlib import Path

from companion.engine.journal_format import default_path
from companion.engine.journal_triage import JournalInUse, JournalOpenError

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

