"""The app's side of the journal: the one journal in use, its writer thread, what Home says about it
(Resume, notices, Salvage) and the turn every input waits for.

Kv binds to it as `app.journal_desk` (`app.journal_desk.resume_text`, `app.journal_desk.salvage()`).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from kivy.clock import Clock
from kivy.event import EventDispatcher
from kivy.properties import BooleanProperty, StringProperty

from companion.app.i18n import _, n_, tr

if TYPE_CHECKING:
    from pathlib import Path

    from companion.engine.journal import Journal, Notice
    from companion.engine.salvage import InPlace
    from companion.engine.writer import JournalWriter

log = logging.getLogger(__name__)


def notice_text(notice: Notice, language: str | None = None) -> str:
    """A journal notice (`Journal.notice_items`) in `language` (the app's current one if None), its reason
    too."""
    from companion.engine.journal import Notice

    words = {key: notice_text(value, language) if isinstance(value, Notice) else value
             for key, value in notice.params.items()}
    try:
        return tr(notice.message, language).format(**words)
    except (KeyError, IndexError, ValueError):
        return str(notice)


def write_problem(path: Path, error: OSError) -> str:
    """Why `path` could not be written, in the app's language: the system's own words are English."""
    from companion.engine.journal_triage import why_not_writable

    return notice_text(why_not_writable(path, error))


def journal_notices(journal: Journal) -> str:
    """Everything the journal has to say, one line each, in the app's language (Home shows it)."""
    return "\n".join(notice_text(notice) for notice in journal.notice_items)


class JournalDesk(EventDispatcher):
    """The journal in use (`journal`, None until start-up opens it) and its writer thread (`writer`)."""

    resume_text = StringProperty("")
    journal_notice = StringProperty("")
    #: The journal file is damaged: Home offers to salvage it (`salvage`).
    salvage_offered = BooleanProperty(False)

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.journal: Journal | None = None
        self.writer: JournalWriter | None = None

    def open(self, journal: Journal) -> None:
        """Use this journal (start-up; tests point the app at another one), written by a writer thread of
        its own.  What it has to say (moved aside, read-only and why, damaged games) is shown on Home
        (Journal.notices)."""
        from companion.app.controllers.base import kivy_call_soon
        from companion.engine.writer import JournalWriter

        if journal is self.journal:
            return
        if self.journal is not None:
            self.close()
        self.journal = journal
        self.writer = JournalWriter(kivy_call_soon)
        self.journal_notice = journal_notices(journal)
        self.salvage_offered = journal.needs_salvage is not None

    def in_use(self) -> Journal:
        """The journal in use; only asked for once start-up has opened one."""
        assert self.journal is not None, "the journal is opened at start-up"
        return self.journal

    def in_turn(self, callback: Callable[[], None]) -> None:
        """Run `callback` now, or once the journal write in flight has been answered, behind the input that
        came before it.  Input from outside the table's panel (hardware, keys) comes through here and
        names the controller only when it runs: input after Start goes to the new table."""
        assert self.writer is not None
        self.writer.in_turn(callback)

    def is_recorded(self, ref: str) -> bool:
        """Whether a hardware frame is in the journal in use now (tests and start-up may swap journals)."""
        return bool(self.in_use().is_recorded(ref))

    def refresh_resume(self) -> None:
        """Home's Resume button and notices, from the journal as it is now."""
        from companion.engine.registry import all_games, get_game

        journal = self.in_use()
        summary = journal.latest_unfinished_summary()
        self.journal_notice = journal_notices(journal)
        if summary is None:
            self.resume_text = ""
            return
        title = get_game(summary.game).title if summary.game in all_games() else summary.game
        self.resume_text = n_("Resume {game}: {players} ({moves} move)", "Resume {game}: {players} ({moves} moves)",
                              summary.actions).format(
            game=title, players=", ".join(summary.players), moves=summary.actions)

    def salvage(self) -> None:
        """Home's Salvage button: the damaged journal's readable moves go into a new journal that takes its
        name (the damaged file is kept beside it), read and written on a thread of its own; the new journal
        is opened on the UI thread when that is done."""
        from companion.engine.errors import UserError
        from companion.engine.salvage import salvage_in_place

        if not self.salvage_offered:
            return
        self.salvage_offered = False
        self.journal_notice = _("Salvaging the journal: every page is read…")
        path = self.in_use().path

        def work() -> None:
            try:
                done = salvage_in_place(path)
            except UserError as error:
                problem = str(error)
                Clock.schedule_once(lambda _dt: self._salvage_failed(problem), 0)
                return
            Clock.schedule_once(lambda _dt: self._salvaged(done), 0)

        threading.Thread(target=work, name="goldtable-salvage").start()  # not a daemon: a quit waits for it

    def _salvaged(self, done: InPlace) -> None:
        from companion.engine.errors import UserError
        from companion.engine.journal import Journal

        path = self.in_use().path
        try:
            journal = Journal(path, exclusive=True)
        except UserError as error:
            journal = Journal.unavailable(path, str(error))
        for notice in done.notices():
            journal.tell(notice)
        self.open(journal)
        self.refresh_resume()

    def _salvage_failed(self, problem: str) -> None:
        self.salvage_offered = True
        self.journal_notice = journal_notices(self.in_use()) + "\n" + _("Salvage failed: {problem}").format(
            problem=problem)

    def close(self) -> None:
        """Finish the writes asked for and hand their answers over (the last ACKs), then close.  A card
        that has not finished in time keeps the journal open under its writer: closing it then could
        lose the write; the process ending lets the lock go."""
        assert self.writer is not None
        journal = self.in_use()
        if self.writer.close():
            journal.close()
        else:
            log.error("the journal %s did not finish writing in time; left open", journal.path)
