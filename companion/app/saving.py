"""The small files the app rewrites whole (its settings, the chess clock's choices), saved off the UI thread;
and the exports (`JobThread`), written to a USB stick off it too.

Each is written durably (`write_durably`: on the card before it counts), so a power cut just after a
change brings back the old file or the new one, never the defaults.  On an SD card that takes 100-300 ms,
a stalled frame on the UI thread; so `save` hands the text to one saver thread and returns at once.
Changes made faster than the card takes them are merged: only the newest text of a file is written.
`read` sees a change still on its way, so a screen opened again shows what was just chosen.  A card
that refuses (full, read-only) is told to the `listen`er, so the screen can say the choice will not last.
"""

from __future__ import annotations

import logging
import threading
from collections import deque
from collections.abc import Callable
from pathlib import Path

from companion.engine.paths import write_durably

log = logging.getLogger(__name__)

#: How long closing the app waits for changes still on their way to a card that does not answer.
CLOSE_SECONDS = 10.0


class FileSaver:
    """Newest text per file, written in the background by one thread (started on the first save)."""

    def __init__(self) -> None:
        self._pending: dict[Path, str] = {}
        self._changed = threading.Condition()
        self._thread: threading.Thread | None = None
        self._listener: Callable[[Path, OSError | None], None] | None = None

    def listen(self, listener: Callable[[Path, OSError | None], None]) -> None:
        """`listener(path, error)` after each write, on the saver's thread (`error` None when it is on the
        card), in place of the one before: the app's settings, and only the newest app's."""
        self._listener = listener

    def save(self, path: Path, text: str) -> None:
        """Write `text` as `path` soon; returns at once.  A failure is logged (the app goes on as chosen)."""
        with self._changed:
            self._pending[path] = text
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="goldtable-saver", daemon=True)
                self._thread.start()
            self._changed.notify_all()

    def read(self, path: Path) -> str:
        """The file's text, or the text on its way there (OSError when there is neither)."""
        with self._changed:
            text = self._pending.get(path)
        return text if text is not None else path.read_text(encoding="utf-8")

    def flush(self, timeout: float = CLOSE_SECONDS) -> bool:
        """Wait until every change asked for is written (or failed); False when `timeout` ran out first."""
        with self._changed:
            return self._changed.wait_for(lambda: not self._pending, timeout)

    def _run(self) -> None:
        while True:
            with self._changed:
                while not self._pending:
                    self._changed.wait()
                path, text = next(iter(self._pending.items()))
            failure: OSError | None = None
            try:
                write_durably(path, text)
            except OSError as error:
                log.warning("%s not saved: %s", path.name, error)
                failure = error
            if self._listener is not None:
                try:
                    self._listener(path, failure)
                except Exception:  # the saver must go on saving whatever a listener does
                    log.exception("the saver's listener failed")
            with self._changed:
                if self._pending.get(path) is text:
                    del self._pending[path]
                else:  # a newer text came meanwhile: written after the other files waiting, not before them
                    self._pending[path] = self._pending.pop(path)
                self._changed.notify_all()


class JobThread:
    """Jobs run one after another on one daemon thread (one export at a time, so two in a row never pick
    the same free name).  Closing the app waits for them (`flush`), but only so long: a USB stick that
    stopped answering must not keep a closed app's process, and its lock, alive (a Restart would find
    Goldtable still running)."""

    def __init__(self, name: str) -> None:
        self._name = name
        self._jobs: deque[Callable[[], None]] = deque()
        self._running = False
        self._changed = threading.Condition()
        self._thread: threading.Thread | None = None

    def submit(self, job: Callable[[], None]) -> None:
        """Run `job()` after the jobs before it; returns at once.  A job that raises is logged."""
        with self._changed:
            self._jobs.append(job)
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name=self._name, daemon=True)
                self._thread.start()
            self._changed.notify_all()

    @property
    def idle(self) -> bool:
        """No job waits or runs."""
        with self._changed:
            return self._idle()

    def _idle(self) -> bool:  # (with `_changed` held)
        return not self._jobs and not self._running

    def flush(self, timeout: float = CLOSE_SECONDS) -> bool:
        """Wait until every job submitted has ended; False when `timeout` ran out first (it is logged: what
        that job was writing may be left unfinished)."""
        with self._changed:
            if self._changed.wait_for(self._idle, timeout):
                return True
            log.warning("%s: closing without waiting longer for %d job(s)", self._name,
                        len(self._jobs) + self._running)
            return False

    def _run(self) -> None:
        while True:
            with self._changed:
                while not self._jobs:
                    self._changed.wait()
                job = self._jobs.popleft()
                self._running = True
            try:
                job()
            except Exception:  # the next export must still run
                log.exception("%s: a job failed", self._name)
            with self._changed:
                self._running = False
                self._changed.notify_all()


#: The app's one saver: every small file goes through it, so each is read back as last chosen.
saver = FileSaver()
