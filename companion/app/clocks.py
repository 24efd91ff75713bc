"""The chess clock at the table (games without a sand timer): the engine's TimeBank on Kivy's clock.

`ClockModel` follows the Table view-model: when the engine names a new player, that player's clock
runs.  The hourglass tilt switch pauses (laid flat) and resumes (stood up); the next button resumes
after a break.  Alerts beep through the caller's `on_alert` and, when switched on, are spoken.
Its settings live in their own small file beside the journal (`clocks.json`, saved by `saving.saver`), off
by default.

Each game's clock is kept beside the journal's games (`Journal.clocks`) at every turn change and pause and
every `SAVE_SECONDS` while it runs, so Resume after a crash or a power cut goes on with the banks as they were
and a finished game keeps its time per player for History.  The save is committed on the journal's
writer thread (the session's), and no input waits for it.  The time the app was not running (at most
`SAVE_SECONDS` before it stopped, and the whole break after) is charged to no one: a table would not
bill a player for the referee's crash.  A journal that cannot be written just keeps no clock.
"""

from __future__ import annotations

import json
import logging
import time
from concurrent.futures import Future
from dataclasses import asdict, dataclass
from functools import partial
from pathlib import Path
from typing import Any

from kivy.app import App
from kivy.clock import Clock
from kivy.event import EventDispatcher
from kivy.lang import Builder
from kivy.properties import BooleanProperty, ListProperty, NumericProperty, ObjectProperty, StringProperty
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.screenmanager import Screen
from kivy.utils import escape_markup

from companion.app.i18n import _, tr
from companion.app.saving import saver
from companion.app.speech import Speaker
from companion.engine.paths import data_dir
from companion.engine.registry import plugin_for
from companion.engine.timebank import Alert, BankState, TimeBank, clock_text
from companion.engine.timebank import Clock as MonotonicClock
from companion.engine.writer import InlineWriter, Writer

log = logging.getLogger(__name__)

TICK_SECONDS = 0.2
#: While a clock runs it is saved this often (besides every turn change and pause).
SAVE_SECONDS = 5.0
BANK_STEPS: tuple[int, ...] = (0, 5, 10, 15, 20, 30, 45, 60, 90, 120)  # minutes per player, 0 = none
TURN_STEPS: tuple[int, ...] = (0, 15, 30, 45, 60, 90, 120, 180, 300)  # seconds per turn, 0 = no limit


@dataclass(frozen=True)
class ClockSettings:
    """Chess clock and voice, as chosen on the Timer screen.  0 minutes/seconds means "none"."""

    clock: bool = False
    bank_minutes: int = 0
    turn_seconds: int = 0
    speech: bool = False

    @classmethod
    def load(cls, path: Path | None = None) -> ClockSettings:
        """The saved choices; defaults for a missing file or a wrong value (never stops the app)."""
        try:
            raw = json.loads(saver.read(path or clocks_path()))
        except (OSError, ValueError):
            return cls()
        if not isinstance(raw, dict):
            return cls()
        default = cls()
        values: dict[str, Any] = {}
        for name in ("clock", "speech"):
            values[name] = raw[name] if isinstance(raw.get(name), bool) else getattr(default, name)
        for name, top in (("bank_minutes", 180), ("turn_seconds", 600)):
            value = raw.get(name)
            ok = isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= top
            values[name] = value if ok else getattr(default, name)
        return cls(**values)

    def save(self, path: Path | None = None) -> None:
        """On the card soon, by the app's saver thread (`load` sees it at once)."""
        saver.save(path or clocks_path(), json.dumps(asdict(self), indent=2))


def clocks_path() -> Path:
    return data_dir() / "clocks.json"


class ClockModel(EventDispatcher):
    """What the table's clock bar shows.  `active` is False for games with their own timer or when the
    chess clock is off; then nothing runs."""

    active = BooleanProperty(False)
    paused = BooleanProperty(False)
    overtime = BooleanProperty(False)
    seat = NumericProperty(-1)
    bank_text = StringProperty("")
    turn_text = StringProperty("")
    totals = ListProperty([])  # [{"name", "used"}] for the End screen

    __events__ = ("on_alert",)

    def __init__(self, speaker: Speaker | None = None, clock: MonotonicClock = time.monotonic,
                 **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.speaker = speaker or Speaker()
        self._clock = clock
        self._bank: TimeBank | None = None
        self.names: tuple[str, ...] = ()  # of the game being timed
        self._tick: Any = None
        self._journal: Any = None  # where the running game's clock is kept, its id there, and who writes it
        self._game: int | None = None
        self._writer: Writer = InlineWriter()
        self._saved_at = 0.0

    # -- a game starts or ends -----------------------------------------------------------------------
    def start(self, game_id: str, names: tuple[str, ...], settings: ClockSettings, journal: Any = None,
              journal_game: int | None = None, writer: Writer | None = None) -> None:
        """A new or resumed game: the clock the journal kept for it (with the limits it was started
        with), else a fresh one, when this game uses the chess clock."""
        self.stop()
        self.speaker.enabled = settings.speech
        self.names = names
        self.seat = -1
        self.totals = []
        self._journal, self._game, self._writer = journal, journal_game, writer or InlineWriter()
        if not settings.clock or plugin_for(game_id).sand_timer:  # a sand timer of its own (Digger's) stays
            self.active = False
            return
        kept = kept_state(journal, journal_game, len(names))
        if kept is not None:
            self._bank = TimeBank.restored(kept, clock=self._clock)
            self.seat = -1 if kept.seat is None else kept.seat
        else:
            self._bank = TimeBank(len(names), bank_seconds=settings.bank_minutes * 60 or None,
                                  turn_seconds=settings.turn_seconds or None, clock=self._clock)
        self._saved_at = self._clock()
        self.active = True
        self._tick = Clock.schedule_interval(lambda _dt: self.update(), TICK_SECONDS)

    def stop(self) -> None:
        """The game is over or left: keep it in the journal and the totals for the End screen, stop ticking."""
        if self._tick is not None:
            self._tick.cancel()
            self._tick = None
        if self._bank is not None:
            self.save()
            self.totals = totals_list(self.names, self._bank.totals())
            self._bank.pause()
        self._bank = None
        self.active = False

    def save(self, wait_for_disk: bool = True) -> None:
        """Keep the running game's clock in the journal, as it reads now; a journal that cannot be written
        keeps none (it says why on Home already) and the game goes on."""
        self._saved_at = self._clock()
        journal = self._journal
        if self._bank is None or journal is None or self._game is None or journal.read_only:
            return
        self._writer.write(partial(journal.clocks.save, self._game, self._bank.snapshot().to_json(),
                                   wait_for_disk=wait_for_disk), _unsaved, holds_input=False)

    def follow(self, table: Any, sand_timer: Any = None) -> ClockModel:
        """Keep in step with the Table view-model: a new session starts the clock, the player the engine
        names gets the running clock, the end of the game stops it and announces the winner.  The sand
        timer's warnings (Digger) are announced too."""
        table.bind(session=self._on_session, player=lambda _t, seat: self.player(seat), over=self._on_over)
        app = App.get_running_app()
        if app is not None:
            app.bind(on_stop=lambda *_args: self.save())  # before the App closes the journal
        if sand_timer is not None:
            sand_timer.bind(on_warning=lambda _timer, mark: self._sand_warning(table, mark))
        return self

    def _sand_warning(self, table: Any, mark: float) -> None:
        name = table.player_name(table.player)
        if name:
            if mark > 0:
                self.speaker.time_low(name)
            else:
                self.speaker.time_over(name)

    def _on_session(self, table: Any, session: Any) -> None:
        if session is None:
            self.stop()
            return
        self.start(session.setup.game, tuple(p.name for p in session.setup.players), ClockSettings.load(),
                   session.journal, session.game_id, session.writer)
        seat = session.prompt().player  # the table's own `player` may still be the last game's
        self.player(-1 if seat is None else seat)

    def _on_over(self, table: Any, over: bool) -> None:
        if not over or table.session is None:
            return
        self.stop()
        session = table.session
        self.speaker.winners([session.setup.players[seat].name for seat in session.game.winners(session.state)])

    # -- what happens at the table -------------------------------------------------------------------
    def player(self, seat: int) -> None:
        """The engine names whose input is due (call after every accepted action and undo)."""
        if seat < 0 or seat == self.seat:
            return
        self.seat = seat
        if self._bank is not None:
            self._bank.start_turn(seat)
            self.save()
        if seat < len(self.names):
            self.speaker.turn(self.names[seat])
        self.update()

    def hourglass(self, flat: bool) -> None:
        """The tilt switch: laid flat pauses the running clock, stood up resumes it."""
        if self._bank is None:
            return
        if flat != self._bank.paused:
            if flat:
                self._bank.pause()
            else:
                self._bank.resume()
            self.save()
        self.update()

    def next_pressed(self) -> None:
        """The next button after a break: the clock runs again."""
        self.hourglass(flat=False)

    def toggle_pause(self) -> None:
        """The on-screen pause button."""
        self.hourglass(flat=not self.paused)

    def update(self) -> None:
        """Refresh the shown texts and raise the alerts that fell due."""
        if self._bank is None:
            return
        reading = self._bank.reading()
        self.paused = reading.paused
        self.overtime = reading.overtime
        self.bank_text = "" if reading.bank_left is None else clock_text(reading.bank_left)
        self.turn_text = clock_text(reading.turn_left) if reading.turn_left is not None \
            else clock_text(reading.turn_used, left=False)
        for alert in self._bank.poll():
            self.dispatch("on_alert", alert)
        if not reading.paused and self._clock() - self._saved_at >= SAVE_SECONDS:
            self.save(wait_for_disk=False)

    def on_alert(self, alert: Alert) -> None:
        """Beep as the sand timer does (speaker when sound is on, the bridge's buzzer) and speak the alert
        (when speech is on)."""
        low = alert.kind.endswith("_low")
        app = App.get_running_app()
        preferences = getattr(app, "preferences", None)
        if preferences is not None:
            preferences.play_sound("warning" if low else "expired")
        if getattr(app, "hardware", None) is not None:
            app.hardware.beep(150 if low else 800)
        name = self.names[alert.seat]
        if low:
            self.speaker.time_low(name)
        else:
            self.speaker.time_over(name)

    def summary(self) -> str:
        """Time per player, one line, for the End screen ("" when no clock ran)."""
        return "  ".join(_("{name}: {time}").format(name=entry["name"], time=entry["used"]) for entry in self.totals)


def _unsaved(result: Future[None]) -> None:
    """A clock save that failed is only logged: the game plays on without its clock kept."""
    from companion.engine.journal import JournalError

    try:
        result.result()
    except JournalError as error:
        log.warning("chess clock not saved: %s", error)


def kept_state(journal: Any, game: int | None, players: int) -> BankState | None:
    """The clock the journal kept for a game, None without one (or with one that does not fit it)."""
    if journal is None or game is None:
        return None
    text = journal.clocks.load(game)
    try:
        state = BankState.from_json(text) if text is not None else None
    except ValueError:
        log.warning("the chess clock kept for game %s is unreadable; it starts afresh", game)
        return None
    return state if state is not None and len(state.used) == players else None


def totals_list(names: tuple[str, ...] | list[str], seconds: list[float]) -> list[dict[str, str]]:
    """Time per player as the End screen and History show it: [{"name", "used"}]."""
    return [{"name": name, "used": clock_text(used, left=False)} for name, used in zip(names, seconds)]


def kept_totals(journal: Any, game: int, names: tuple[str, ...] | list[str]) -> list[dict[str, str]]:
    """Time per player of a journalled game ([] when no clock ran), for History."""
    state = kept_state(journal, game, len(names))
    return [] if state is None else totals_list(names, state.totals())


def times_markup(totals: list[dict[str, str]], names: list[str], colours: list[str], language: str) -> str:
    """The chess clock's time per player, names in their colours ("" when the game had no clock)."""
    if not totals:
        return ""
    by_name = dict(zip(names, colours))
    title = tr("Time used", language)
    lines = [f"[b]{title}[/b]"]
    lines += [f"[color={by_name.get(entry['name'], '#cfd8d3')}]{escape_markup(entry['name'])}[/color]  "
              f"{entry['used']}" for entry in totals]
    return "\n".join(lines)


def step(steps: tuple[int, ...], value: int, delta: int) -> int:
    """The next value up or down a ladder of choices (a value off the ladder snaps to the nearest)."""
    index = min(range(len(steps)), key=lambda i: abs(steps[i] - value))
    return steps[max(0, min(len(steps) - 1, index + delta))]


class ClockBar(BoxLayout):
    """One line for the table screen: the running player's bank and turn time, red in overtime, and a
    pause button.  The table layout places it among its counters (`ClockBar: model: app.clocks`)."""

    model = ObjectProperty(None, allownone=True)
    shown = BooleanProperty(False)
    line_text = StringProperty("")

    def on_model(self, *_args: Any) -> None:
        """Follow the model in Python: a kv chain through `root.model` did not always rebind when the
        bar was built before the model's first game (the bar stayed hidden)."""
        model = self.model
        if model is None:
            self.shown, self.line_text = False, ""
            return
        model.bind(active=self._update, seat=self._update, bank_text=self._update, turn_text=self._update)
        self._update()

    def _update(self, *_args: Any) -> None:
        """The line is rendered only while the clock runs: a hidden label whose text changes at every
        turn still renders a texture, which waits for the renderer to finish the frame before, and a
        hidden label's last text is still drawn in every frame."""
        model = self.model
        self.shown = bool(model.active)
        self.line_text = self.line(model.seat, model.bank_text, model.turn_text) if self.shown else ""

    def line(self, seat: int, bank: str, turn: str) -> str:
        """`Anna   24:10   0:45`: whose clock runs, the bank left (if any), the turn's time."""
        if self.model is None or not 0 <= seat < len(self.model.names):
            return ""
        return "   ".join(part for part in (self.model.names[seat], bank, turn) if part)


class ClocksScreen(Screen):
    """Timer & voice: the chess clock's bank and turn limit, and spoken announcements."""

    clock_on = BooleanProperty(False)
    bank_minutes = NumericProperty(0)
    turn_seconds = NumericProperty(0)
    speech_on = BooleanProperty(False)
    speech_available = BooleanProperty(False)

    def on_pre_enter(self, *_args: Any) -> None:
        settings = ClockSettings.load()
        self.clock_on, self.speech_on = settings.clock, settings.speech
        self.bank_minutes, self.turn_seconds = settings.bank_minutes, settings.turn_seconds
        self.speech_available = Speaker().available()

    def change(self, **values: Any) -> None:
        """Apply and save at once (a game started later uses the new values)."""
        for name, value in values.items():
            setattr(self, name, value)
        settings = ClockSettings(clock=self.clock_on, bank_minutes=int(self.bank_minutes),
                                 turn_seconds=int(self.turn_seconds), speech=self.speech_on)
        settings.save()
        clocks = getattr(App.get_running_app(), "clocks", None)
        if clocks is not None:
            clocks.speaker.enabled = settings.speech

    def bank_text(self, minutes: int, _language: str) -> str:
        return _("none") if not minutes else _("{minutes} min").format(minutes=minutes)

    def turn_limit_text(self, seconds: int, _language: str) -> str:
        return _("none") if not seconds else _("{seconds} s").format(seconds=seconds)


Builder.load_string("""
<ClockBar>:
    size_hint_y: None
    height: 48 if root.shown else 0
    opacity: 1 if root.shown else 0
    spacing: 6
    Label:
        font_size: "22sp"
        bold: True
        markup: True
        color: (1, 0.45, 0.4, 1) if root.model and root.model.overtime else (1, 1, 1, 1)
        text: root.line_text
        text_size: self.size
        halign: "left"
        valign: "middle"
    GButton:
        size_hint_x: None
        width: 150
        text: (tr("Go on", app.lang) if root.model and root.model.paused else tr("Pause", app.lang))
        on_release: root.model.toggle_pause() if root.model else None
""")
