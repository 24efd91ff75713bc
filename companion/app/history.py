"""History and statistics: every journalled game, per-player numbers across games, export to a USB stick.

View-models in the Electrum style (Kivy properties built from the journal) plus the two thin screen
classes.  Games are read through the Journal's public API only (each_game(), record()); scores come
from replaying a game's record with its rules, so they are exactly what the End screen showed.  The
reading and replaying run on a worker thread: a journal of a thousand games took seconds, and on the
UI thread every one of them was a frozen screen.  Each batch of games reaches the UI thread through
Kivy's Clock; the list shows what has been read and fills in (a RecycleView: only the rows in sight are
widgets).
A game left unfinished can be abandoned: it is marked finished in the journal (no longer offered for
resuming) while its rules say it is not over, which is how it is told apart from a played-out game.
"""

from __future__ import annotations

import csv
import io
import sqlite3
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache, partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kivy.app import App
from kivy.event import EventDispatcher
from kivy.properties import BooleanProperty, ListProperty, NumericProperty, ObjectProperty, StringProperty
from kivy.uix.label import Label
from kivy.uix.recycleview import RecycleView
from kivy.uix.recycleview.views import RecycleDataViewBehavior
from kivy.uix.screenmanager import Screen
from kivy.utils import colormap, get_hex_from_color

from companion.app.clocks import kept_totals
from companion.app.i18n import _, current_language, decimal_text, n_
from companion.app.journal_desk import notice_text, write_problem
from companion.app.saving import JobThread
from companion.app.settings import SEAT_COLOURS
from companion.app.widgets import GToggle, Scroll, png_of
from companion.engine.errors import holds
from companion.engine.paths import export_folder, local_exports, sync_to_disk, usb_folders, write_durably
from companion.engine.writer import InlineWriter, Writer

if TYPE_CHECKING:  # the engine is imported on first use, so Home's first frame does not wait for it
    from concurrent.futures import Future

    from companion.engine.core import Setup
    from companion.engine.journal import GameSummary, Journal

#: The reader hands what it has read to the UI thread at most this often (and once at the end).
BATCH_SECONDS = 0.1
#: Up to this many changed rows (a tap changes two) go to History's list one by one, more as one slice.
FEW_ROWS = 8


def on_ui_thread(callback: Callable[[], None]) -> None:
    """History's worker hands its batches over here (the controllers' Clock, imported on first use)."""
    from companion.app.controllers.base import kivy_call_soon

    kivy_call_soon(callback)


def seat_colour(setup: Setup, seat: int) -> str:
    """A seat's colour as #rrggbb; colour names such as "red" (as records may carry) are looked up."""
    colour = setup.players[seat].colour or SEAT_COLOURS[seat % len(SEAT_COLOURS)]
    if not colour.startswith("#"):
        named = colormap.get(colour.lower())
        colour = get_hex_from_color(named)[:7] if named else SEAT_COLOURS[seat % len(SEAT_COLOURS)]
    return colour


@dataclass(frozen=True)
class GameResult:
    """One journalled game as History shows it."""

    summary: GameSummary
    title: str
    status: str  # "open", "finished", "abandoned" or "unreadable"
    names: tuple[str, ...]
    scores: tuple[int, ...]
    winners: tuple[int, ...]
    colours: tuple[str, ...]
    chart: tuple[tuple[int, ...], ...]


def read_game(journal: Journal, summary: GameSummary) -> GameResult:
    """Replay one game from the journal (a game the rules can no longer replay is 'unreadable')."""
    from companion.app.chart import session_turn_scores
    from companion.engine.errors import UserError
    from companion.engine.registry import all_games, get_game
    from companion.engine.session import Session

    title = get_game(summary.game).title if summary.game in all_games() else summary.game
    try:
        session = Session.from_record(journal.record(summary.id))
    except (KeyError, ValueError, UserError):  # unknown game, or setup or actions today's rules refuse
        return GameResult(summary=summary, title=title, status="unreadable", names=summary.players, scores=(),
                          winners=(), colours=(), chart=())
    over = session.is_over()
    status = "finished" if over else "abandoned" if summary.finished else "open"
    setup = session.setup
    return GameResult(
        summary=summary, title=title, status=status, names=tuple(p.name for p in setup.players),
        scores=tuple(session.scores()), winners=tuple(session.game.winners(session.state)) if over else (),
        colours=tuple(seat_colour(setup, seat) for seat in range(len(setup.players))),
        chart=tuple(tuple(row) for row in session_turn_scores(session.game, session.states)))


@dataclass(frozen=True)
class PlayerStats:
    """One player's results in one game over every finished game."""

    name: str
    game: str
    plays: int
    wins: int
    total: int

    @property
    def average(self) -> float:
        return self.total / self.plays if self.plays else 0.0


def player_stats(results: list[GameResult]) -> list[PlayerStats]:
    """Plays, wins and average score per player and game, counting played-out games only."""
    table: dict[tuple[str, str], list[int]] = {}
    for result in results:
        if result.status != "finished":
            continue
        for seat, name in enumerate(result.names):
            entry = table.setdefault((name, result.title), [0, 0, 0])
            entry[0] += 1
            entry[1] += seat in result.winners
            entry[2] += result.scores[seat]
    return [PlayerStats(name=name, game=game, plays=plays, wins=wins, total=total)
            for (name, game), (plays, wins, total) in sorted(table.items(), key=lambda item: (item[0][0].lower(),
                                                                                             item[0][1]))]


def games_csv(results: list[GameResult]) -> str:
    """All games, one row per seat: the CSV a spreadsheet opens."""
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(["game_id", "game", "started", "status", "seat", "player", "score", "winner"])
    for result in sorted(results, key=lambda r: r.summary.id):
        for seat, name in enumerate(result.names):
            score = result.scores[seat] if seat < len(result.scores) else ""
            started = result.summary.created.isoformat() if result.summary.created else ""
            writer.writerow([result.summary.id, result.summary.game, started, result.status, seat, name, score,
                             "yes" if seat in result.winners else ""])
    return out.getvalue()


def save_new_file(folder: Callable[[], Path], name: str, content: bytes, say: Callable[[str], None]) -> None:
    """Write `content` as `name` in `folder()` under a name that replaces nothing (`unused_path`); `say`
    "Saving" now, and "Saved as" once the file and its folder are on the medium (else "Could not save"), on
    the UI thread.  A family takes the USB stick out as soon as the screen says saved, and a stick (exFAT,
    or FAT mounted without `flush`) may keep a file in memory for half a minute.  Finding the stick,
    comparing with a file already there, writing and flushing each take up to a second on a slow stick, so
    all of it runs on the export thread."""
    say(_("Saving {path}…").format(path=name))

    def write() -> None:
        path = Path(name)
        try:
            where = folder()
            path = where / name
            path = unused_path(path, content)
            if path.exists():  # it holds these very bytes already
                sync_to_disk(path)
            else:
                write_durably(path, content, replace=False)
        except OSError as error:
            said = _("Could not save: {problem}").format(problem=write_problem(path, error))
        else:
            said = _("Saved as {path}").format(path=str(path))
        on_ui_thread(lambda: say(said))

    exports.submit(write)


#: Every export's one thread: a quit waits for it, but not for ever (`JobThread.flush`).
exports = JobThread("goldtable-export")


def unused_path(path: Path, content: bytes) -> Path:
    """Where `content` may be written as `path` without replacing anything: `path` itself when it is free
    or already holds these bytes, else the first free `name-2.ext`, `name-3.ext`, ... (a file left on a USB
    stick may be someone's edited copy, or another table's)."""
    candidate, number = path, 1
    while candidate.exists() or candidate.is_symlink():
        try:
            if holds(candidate, content):
                return candidate
        except OSError:
            pass  # unreadable: not ours to replace either
        number += 1
        candidate = path.with_name(f"{path.stem}-{number}{path.suffix}")
    return candidate


class HistoryModel(EventDispatcher):
    """Every game in the journal, the one selected, and the per-player statistics.

    `load` reads the journal on a worker thread (replaying only games that changed since the last look);
    `call_soon` brings each batch to the UI thread.  Until a reading is done, the games it has not reached
    yet are shown as the last reading left them."""

    rows = ListProperty([])
    selected = NumericProperty(-1)
    loading = BooleanProperty(False)  # a reading of the journal is under way
    detail_title = StringProperty("")
    detail_lines = ListProperty([])  # [{"name", "score", "colour", "winner"}], best first
    chart = ListProperty([])  # scores after every turn (companion.app.chart)
    colours = ListProperty([])
    names = ListProperty([])  # in seat order, for the chart's legend
    times = ListProperty([])  # the chess clock's time per player, [{"name", "used"}] ([] without a clock)
    cut_text = StringProperty("")  # where a salvage found moves missing ("" for a whole game)
    can_resume = BooleanProperty(False)
    can_export = BooleanProperty(False)
    stats = ListProperty([])  # [{"name", "game", "plays", "wins", "average"}]
    message = StringProperty("")
    usb_text = StringProperty("")

    def __init__(self, call_soon: Callable[[Callable[[], None]], None] = on_ui_thread, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.journal: Journal | None = None
        self.writer: Writer = InlineWriter()
        self.results: list[GameResult] = []
        self._call_soon = call_soon
        self._cache: dict[int, tuple[tuple[int, bool], GameResult]] = {}
        self._reading = 0  # the number of the latest reading; a batch of an older one is dropped
        self._fresh: list[GameResult] = []  # what the latest reading has brought so far, newest first
        self._shown: GameResult | None = None  # the result the detail shows
        #: Each game's row as last labelled, with the result and the language it was made from: a batch
        #: labels only the games it brought, not the thousand before them.
        self._labels: dict[int, tuple[GameResult, str, dict[str, Any]]] = {}

    def load(self, journal: Journal, writer: Writer | None = None) -> None:
        """Read every game again on a worker thread; `writer` commits an abandon (the app's writer thread)."""
        self.journal = journal
        self.writer = writer or InlineWriter()
        self.message = ""
        self._reading += 1
        self._fresh = []
        self.loading = True
        self._label_usb()  # a stick put in since the last visit
        threading.Thread(target=self._read, args=(journal, dict(self._cache), self._reading),
                         name="goldtable-history", daemon=True).start()

    def _read(self, journal: Journal, cache: dict[int, tuple[tuple[int, bool], GameResult]], reading: int) -> None:
        """On the worker thread: every game, newest first; the first at once, then batches of BATCH_SECONDS."""
        from companion.engine.errors import UserError

        batch: list[tuple[tuple[int, bool], GameResult]] = []
        since: float | None = None  # the newest game goes to the screen at once, then a batch at a time
        problem = ""
        try:
            for summary in journal.each_game():
                if reading != self._reading:
                    return  # a newer reading has started
                key = (summary.actions, summary.finished)
                cached = cache.get(summary.id)
                batch.append(cached if cached is not None and cached[0] == key else (key, read_game(journal, summary)))
                if since is None or time.monotonic() - since >= BATCH_SECONDS:
                    self._call_soon(partial(self._arrive, reading, batch, done=False))
                    batch, since = [], time.monotonic()
        except (UserError, sqlite3.Error) as error:  # a journal damaged or closed under the reader
            problem = str(error)
        self._call_soon(partial(self._arrive, reading, batch, done=True, problem=problem))

    def _arrive(self, reading: int, batch: list[tuple[tuple[int, bool], GameResult]], done: bool,
                problem: str = "") -> None:
        """On the UI thread: the games read so far, then those the reading has not reached yet as before."""
        if reading != self._reading:
            return
        for key, result in batch:
            self._cache[result.summary.id] = (key, result)
        self._fresh += [result for _key, result in batch]
        last = self._fresh[-1].summary.id if self._fresh else None
        rest = [] if done else [r for r in self.results if last is None or r.summary.id < last]
        self.results = self._fresh + rest
        if done:
            self.loading = False
            self.message = self.message or problem
            if not problem:  # the whole journal was read: forget the games it no longer holds (a salvage)
                present = {result.summary.id for result in self.results}
                for held in (self._cache, self._labels):
                    for game_id in held.keys() - present:
                        del held[game_id]
        self.relabel()
        ids = [result.summary.id for result in self.results]
        wanted = self.selected if self.selected in ids else (ids[0] if ids else -1)
        if done or wanted != self.selected or self.result(wanted) is not self._shown:  # done: its language too
            self._show(wanted)

    def relabel(self) -> None:
        """Texts in the current language (after a language switch too)."""
        words = {"open": _("not finished"), "finished": _("finished"), "abandoned": _("abandoned"),
                 "unreadable": _("cannot be read")}
        language = current_language()
        self.rows = [self._row(result, words, language) for result in self.results]
        self.stats = [{"name": s.name, "game": s.game, "plays": s.plays, "wins": s.wins,
                       "average": decimal_text(s.average, ".1f")} for s in player_stats(self.results)]

    def _row(self, result: GameResult, words: dict[str, str], language: str) -> dict[str, Any]:
        held = self._labels.get(result.summary.id)
        if held is not None and held[0] is result and held[1] == language:
            return held[2]
        status = words[result.status]
        created = result.summary.created
        row = {"id": result.summary.id, "status": result.status,
               "text": _("{date} {game}: {players} ({status})").format(
                   date=created.astimezone().strftime("%d.%m. %H:%M") if created else "", game=result.title,
                   players=", ".join(result.names),
                   status=status if result.summary.cut is None else _("{status}, cut").format(status=status))}
        self._labels[result.summary.id] = (result, language, row)
        return row

    def _label_usb(self) -> None:
        sticks = usb_folders()
        self.usb_text = _("USB stick: {path}").format(path=str(sticks[0])) if sticks else \
            _("No USB stick: exports go to {path}").format(path=str(local_exports()))

    def result(self, game_id: int | None = None) -> GameResult | None:
        wanted = self.selected if game_id is None else game_id
        return next((r for r in self.results if r.summary.id == wanted), None)

    def select(self, game_id: int) -> None:
        """A game tapped in the list."""
        self.message = ""
        self._show(game_id)

    def _show(self, game_id: int) -> None:
        self.selected = game_id
        result = self._shown = self.result()
        if result is None:
            self.detail_title, self.detail_lines, self.chart, self.colours, self.names = "", [], [], [], []
            self.times, self.cut_text = [], ""
            self.can_resume = self.can_export = False
            return
        self.detail_title = n_("{game}, {moves} move", "{game}, {moves} moves", result.summary.actions).format(
            game=result.title, moves=result.summary.actions)
        order = sorted(range(len(result.scores)), key=lambda seat: (-result.scores[seat], seat))
        self.detail_lines = [{"name": result.names[seat], "score": result.scores[seat],
                              "colour": result.colours[seat], "winner": seat in result.winners} for seat in order]
        self.chart = [list(row) for row in result.chart]
        self.colours = list(result.colours)
        self.names = list(result.names)
        self.times = kept_totals(self.journal, game_id, result.names) if self.journal is not None else []
        cut = result.summary.cut
        self.cut_text = "" if cut is None else n_(
            "Cut after move {moves}: {lost} move was lost to a damaged page of the journal.",
            "Cut after move {moves}: {lost} moves were lost to a damaged page of the journal.", cut.lost).format(
            moves=cut.moves, lost=cut.lost)
        self.can_resume = result.status == "open"
        self.can_export = result.status != "unreadable"

    # -- actions -------------------------------------------------------------------------------------
    def abandon(self) -> None:
        """Stop offering the selected unfinished game for resuming (it stays in the journal)."""
        result = self.result()
        if self.journal is None or result is None or result.status != "open":
            return
        self.writer.write(partial(self.journal.abandon, result.summary.id), partial(self._abandoned, self.journal))

    def _abandoned(self, journal: Journal, done: Future[None]) -> None:
        from companion.engine.journal import JournalError

        try:
            done.result()
        except JournalError as error:
            self.message = _("Could not save: {problem}").format(problem=notice_text(error.notice))
            return
        self.load(journal, self.writer)
        self.message = _("The game was abandoned; it stays in the history.")

    def export_record(self) -> None:
        """The selected game as a game record (JSON, for `goldtable replay`)."""
        result = self.result()
        if self.journal is None or result is None or not self.can_export:
            return
        text = self.journal.record(result.summary.id).to_json()
        self._write(f"{result.summary.game}-{result.summary.id}.json", text.encode("utf-8"))

    def export_csv(self) -> None:
        """Every game as CSV, one row per seat."""
        self._write("goldtable-games.csv", games_csv(self.results).encode("utf-8"))

    def export_picture(self, png: bytes) -> None:
        """The selected game's result picture (drawn by the screen), to share."""
        result = self.result()
        if result is not None:
            self._write(f"{result.summary.game}-{result.summary.id}-result.png", png)

    def _write(self, name: str, content: bytes) -> None:
        """To the USB stick (else the exports folder), under a name that replaces nothing; the message says
        "Saved" once it is on the stick."""
        save_new_file(lambda: export_folder()[0], name, content, partial(setattr, self, "message"))


class GameRow(RecycleDataViewBehavior, GToggle):
    """One game in History's list: a toggle the list fills from its data (`game_id`, `text`, `state`)."""

    game_id = NumericProperty(-1)

    def on_release(self) -> None:
        shared_model().select(int(self.game_id))


class GameList(RecycleView, Scroll):
    """History's list of games: only the rows in sight are widgets, so a thousand games cost no more
    frames than ten (and the bar keeps its colour, as every `Scroll` does)."""


class HistoryScreen(Screen):
    """Every game: a list on the left, the chosen game with its chart on the right."""

    model = ObjectProperty(None)

    def on_pre_enter(self, *_args: Any) -> None:
        app = App.get_running_app()
        self.model.load(app.journal, app.writer)

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(model=shared_model(), **kwargs)
        self.model.bind(rows=self._rebuild, selected=self._rebuild)

    def _rebuild(self, *_args: Any) -> None:
        """One toggle per game, newest first; the chosen one is down.  The list keeps its row widgets and
        refills them: every tap on a game changes the selection.  Only the rows that changed are given
        to the list (a tap: two; a batch of games read: those it brought), as the RecycleView measures
        every row again when its whole data is replaced (64 ms for a thousand games)."""
        selected = self.model.selected
        wanted = [{"game_id": row["id"], "text": row["text"], "state": "down" if row["id"] == selected else "normal"}
                  for row in self.model.rows]
        data = self.ids.games.data
        if len(wanted) < len(data):
            self.ids.games.data = wanted
            return
        changed = [index for index, row in enumerate(data) if row != wanted[index]]
        if len(changed) <= FEW_ROWS:
            for index in changed:
                data[index] = wanted[index]
        else:
            data[changed[0]:changed[-1] + 1] = wanted[changed[0]:changed[-1] + 1]
        if len(wanted) > len(data):
            data.extend(wanted[len(data):])

    def resume_selected(self) -> None:
        if self.model.can_resume:
            App.get_running_app().resume(self.model.selected)

    def save_picture(self) -> None:
        """The result panel as a PNG, to share."""
        if self.model.result() is None:
            return
        self.model.export_picture(png_of(self.ids.result))


class StatsScreen(Screen):
    """Per-player statistics over every finished game."""

    model = ObjectProperty(None)

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(model=shared_model(), **kwargs)
        self.model.bind(stats=self._rebuild)

    def on_pre_enter(self, *_args: Any) -> None:
        app = App.get_running_app()
        self.model.load(app.journal, app.writer)
        self._rebuild()

    def _rebuild(self, *_args: Any) -> None:
        """A header row, then one row per player and game."""
        grid = self.ids.table
        grid.clear_widgets()
        header = [_("Player"), _("Game"), _("Plays"), _("Wins"), _("Average")]
        rows = [[entry["name"], entry["game"], str(entry["plays"]), str(entry["wins"]), entry["average"]]
                for entry in self.model.stats]
        if not rows:
            rows = [[_("No finished games yet."), "", "", "", ""]]
        for index, cells in enumerate([header, *rows]):
            for column, text in enumerate(cells):
                grid.add_widget(Label(text=text, font_size="18sp", bold=index == 0, shorten=True,
                                      color=(0.91, 0.78, 0.35, 1) if index == 0 else (1, 1, 1, 1),
                                      size_hint_x=(0.3, 0.3, 0.13, 0.13, 0.14)[column],
                                      text_size=(None, None), halign="left"))


@lru_cache(maxsize=1)
def shared_model() -> HistoryModel:
    """One model for History and Stats, so both show the same reading of the journal."""
    return HistoryModel()
