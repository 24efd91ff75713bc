"""The Goldtable Kivy app: screens, navigation, and the wiring of session, hardware, timer and language.

The App object is the controller: it owns the journal, the settings, the hardware link and the
view-models; screens (.kv files in `screens/`) bind to them.  Hardware events arrive through
`HardwareLink.on_event`, already on the UI thread.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kivy.app import App
from kivy.clock import Clock
from kivy.core.window import Window
from kivy.lang import Builder
from kivy.properties import BooleanProperty, ObjectProperty, StringProperty
from kivy.uix.screenmanager import NoTransition, ScreenManager

from companion.app import i18n
from companion.app.i18n import _
from companion.app.settings import AppSettings, load_settings, save_settings, settings_path

if TYPE_CHECKING:
    from companion.app.table import TableModel
    from companion.engine.core import Setup
    from companion.engine.session import Session

log = logging.getLogger(__name__)

APP_DIR = Path(__file__).resolve().parent
#: Keyboard stand-ins for the hardware on a PC (also listed on the Hardware screen).
KEY_BUTTONS: dict[str, str] = {"s": "stop", "h": "hourglass", "c": "confirm", "u": "undo", "n": "next"}
KEY_FACES = "byrgwk123456"


def release_free_heap() -> None:
    """Hand the C heap's free pages back to the system (glibc only; elsewhere nothing happens).

    The screens, widgets and label textures built and dropped during a game are freed, but glibc keeps
    the freed pages mapped; after a game that is about 20 MB of resident memory nobody uses.
    """
    import ctypes
    import ctypes.util

    name = ctypes.util.find_library("c")
    try:
        libc = ctypes.CDLL(name)
        libc.malloc_trim(0)
    except (OSError, AttributeError, TypeError):  # no C library by that name, or not glibc
        return


class GoldtableApp(App):
    """The touchscreen app.  `journal_path`/`sources`/`settings_file` are injectable for tests."""

    title = "Goldtable"
    lang = StringProperty("en")
    game_id = StringProperty("digger")
    resume_text = StringProperty("")
    journal_notice = StringProperty("")
    simulated = BooleanProperty(True)
    table: TableModel = ObjectProperty(None)  # type: ignore[assignment]

    def __init__(self, journal_path: Path | None = None, sources: list[Any] | None = None,
                 settings_file: Path | None = None, use_system_hardware: bool = True,
                 serial_url: str | None = None, gpio: bool = True,
                 clock: Callable[[], float] = time.monotonic, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._clock = clock
        self.settings_file = settings_file or settings_path()
        self.settings: AppSettings = load_settings(self.settings_file)
        if serial_url is not None:
            self.settings = self.settings.model_copy(update={"serial_url": serial_url})
        self.lang = i18n.set_language(self.settings.language)
        self._journal_path = journal_path
        self._hardware_request = (list(sources or []), use_system_hardware, gpio)
        self.hardware: Any = None  # started after the first frame (see _after_first_frame)
        self.journal: Any = None
        self.game_id = self.settings.last_game
        self._history: list[str] = []
        self._options: dict[str, Any] = {}

    # -- building ------------------------------------------------------------------------------------
    def build(self) -> ScreenManager:
        """Only Home is built before the first frame; the engine, the journal, the view-models and the
        other screens come right after it (screens on their first visit), so the table sees the app at once."""
        Builder.load_file(str(APP_DIR / "widgets.kv"))
        manager = ScreenManager(transition=NoTransition())
        self._add_screen(manager, "home")
        Window.bind(on_key_down=self._on_key_down)
        return manager

    def _load_models(self) -> None:
        from companion.app.table import TableModel
        from companion.app.timer import Sounds, TimerModel
        from companion.app.viewmodels import EndModel, OptionsModel, PlayersModel, RulesModel
        from companion.engine.journal import Journal

        self.open_journal(Journal(self._journal_path))
        self.table = TableModel()
        self.timer = TimerModel(clock=self._clock)
        self.sounds = Sounds()
        self.players_model = PlayersModel()
        self.options_model = OptionsModel()
        self.end_model = EndModel()
        self.rules_model = RulesModel()
        from companion.app.clocks import ClockModel

        self.clocks = ClockModel(clock=self._clock).follow(self.table, self.timer)  # chess clock and voice
        self.table.bind(on_game_over=lambda *_: self.show_end(), revision=self._update_leds)
        self.timer.bind(on_warning=self._timer_warning)

    def on_start(self) -> None:
        Window.bind(on_flip=self._after_first_frame)

    def _after_first_frame(self, *_args: Any) -> None:
        """Work that need not delay the first frame: engine and journal, hardware, the game list, Resume.
        Also run at once if a tap comes before that frame (see `go`)."""
        from companion.engine.registry import all_games

        Window.unbind(on_flip=self._after_first_frame)
        if self.ready:
            return
        if self.journal is None:
            self._load_models()
        if self.hardware is None:
            self._start_hardware()
        if self.game_id not in all_games():
            self.game_id = "digger"
        self.refresh_resume()
        self.root.get_screen("home").build_games()

    def _start_hardware(self) -> None:
        from companion.app.hardware import HardwareLink, default_sources

        sources, use_system_hardware, gpio = self._hardware_request
        problems: list[str] = []
        if use_system_hardware:
            found, problems = default_sources(gpio and self.settings.gpio, self.settings.serial_url)
            sources = [*sources, *found]
        self.hardware = HardwareLink(sources, problems)
        self.simulated = self.hardware.simulated
        self.hardware.bind(on_event=lambda _link, event: self.on_bridge_event(event),
                           simulated=self.setter("simulated"))
        self.hardware.start()

    @staticmethod
    def _add_screen(manager: ScreenManager, name: str) -> None:
        import companion.app.screens as screens

        Builder.load_file(str(APP_DIR / "screens" / f"{name}.kv"))
        manager.add_widget(getattr(screens, f"{name.capitalize()}Screen")(name=name))

    def screen(self, name: str) -> Any:
        """A screen, built now if this is its first use."""
        if not self.root.has_screen(name):
            self._add_screen(self.root, name)
        return self.root.get_screen(name)

    def open_journal(self, journal: Any) -> None:
        """Use this journal (start-up; tests point the app at another one).  A journal that had to be
        moved aside because it was unreadable says so on Home (Journal.notice)."""
        if self.journal is not None and self.journal is not journal:
            self.journal.close()
        self.journal = journal
        self.journal_notice = journal.notice or ""

    @property
    def ready(self) -> bool:
        """True once everything started after the first frame is there (tests and benchmarks wait for it)."""
        return self.hardware is not None

    def on_stop(self) -> None:
        if self.journal is None:
            return
        self.timer.reset()
        if self.hardware is not None:
            self.hardware.stop()
        self.journal.close()

    # -- navigation ----------------------------------------------------------------------------------
    def go(self, name: str, remember: bool = True) -> None:
        if not self.ready:
            self._after_first_frame()
        manager = self.root
        if manager.current == name:
            return
        if remember:
            self._history.append(manager.current)
        if name == "home":
            self._history.clear()
            self.refresh_resume()
            self.root.get_screen("home").build_games()
        self.screen(name)
        if name == "rules":
            self.rules_model.game_id = self.game_id
            self.rules_model.search()
        manager.current = name

    def back(self) -> None:
        self.go(self._history.pop() if self._history else "home", remember=False)

    # -- language and settings -----------------------------------------------------------------------
    def set_language(self, language: str) -> None:
        """Switch every screen's text at once (kv rules rebind on `lang`; view-models recompute)."""
        self.settings = self.settings.model_copy(update={"language": language})
        self.save_settings()
        self.lang = i18n.set_language(language)
        if self.table is not None:
            self.table.relabel()
        self.refresh_resume()

    def save_settings(self) -> None:
        try:
            save_settings(self.settings, self.settings_file)
        except OSError as error:
            log.warning("settings not saved: %s", error)

    def update_settings(self, **changes: Any) -> None:
        self.settings = self.settings.model_copy(update=changes)
        self.save_settings()
        if "fullscreen" in changes:
            Window.fullscreen = "auto" if changes["fullscreen"] else False

    def apply_serial(self, url: str) -> str:
        """Settings: attach a serial sensor now; returns a message for the screen."""
        url = url.strip()
        self.update_settings(serial_url=url)
        if not url:
            return _("No serial sensor configured.")
        if self.hardware is None:
            return _("The hardware is still starting; try again in a moment.")
        from firmware_bridge.serial_source import SerialSource

        try:
            self.hardware.add_source(SerialSource(url))
        except ValueError as error:
            return str(error)
        return _("Serial sensor {url} added.").format(url=url)

    # -- starting and resuming -----------------------------------------------------------------------
    def choose_game(self, game_id: str) -> None:
        self.game_id = game_id
        self.update_settings(last_game=game_id)

    def new_game(self) -> None:
        """Home -> Players for the chosen game."""
        if not self.ready:
            self._after_first_frame()
        from companion.engine.registry import get_game

        self.players_model.load(get_game(self.game_id), self.settings)
        self.go("players")

    def players_done(self) -> None:
        from companion.engine.registry import get_game

        if self.players_model.find_problem():
            return
        self.settings = self.players_model.remember(self.settings)
        self.save_settings()
        self.options_model.load(get_game(self.game_id), self._options if self._options_game == self.game_id
                                else None)
        self.go("options")

    _options_game = ""

    def options_done(self) -> None:
        options = self.options_model.validated()
        if options is None:
            return
        self._options, self._options_game = options, self.game_id
        self.go("setup")

    def setup_for_guide(self) -> Setup:
        from companion.engine.core import Setup

        return Setup(game=self.game_id, players=self.players_model.players(), options=self._options,
                     first_player=self.players_model.first_player)

    def start_game(self, seed: int | None = None) -> None:
        """Setup guide -> Table: a new journalled session."""
        import secrets

        from companion.engine.errors import UserError
        from companion.engine.journal import JournalError
        from companion.engine.session import Session

        setup = self.setup_for_guide().model_copy(update={"seed": secrets.randbelow(2**31) if seed is None
                                                           else seed})
        try:
            session = Session.new(setup, self.journal)
        except (JournalError, UserError, ValueError) as error:
            self.screen("setup").problem = str(error)
            return
        self._open_table(session)

    def refresh_resume(self) -> None:
        from companion.engine.registry import all_games, get_game

        game_id = self.journal.latest_unfinished()
        if game_id is None:
            self.resume_text = ""
            return
        summary = next((g for g in self.journal.games() if g.id == game_id), None)
        if summary is None:
            self.resume_text = ""
            return
        title = get_game(summary.game).title if summary.game in all_games() else summary.game
        self.resume_text = _("Resume {game}: {players} ({moves} moves)").format(
            game=title, players=", ".join(summary.players), moves=summary.actions)

    def resume(self, game_id: int | None = None) -> None:
        """Home (or History) -> Table with the latest (or the given) unfinished game, exactly as journalled."""
        from companion.engine.session import Session

        game_id = game_id if game_id is not None else self.journal.latest_unfinished()
        if game_id is None:
            return
        try:
            session = Session.resume(self.journal, game_id)
        except Exception as error:  # noqa: BLE001 — a record the rules now refuse must not crash Home
            self.journal_notice = _("That game cannot be resumed: {problem}").format(problem=str(error))
            return
        self.game_id = session.setup.game
        self._open_table(session)

    def _open_table(self, session: Session) -> None:
        from companion.app.tables import table_for

        for old_panel in self.screen("table").ids.panel.children:  # another game's panel must not see this one
            getattr(old_panel, "detach", lambda: None)()
        self.table.attach(session)
        self.timer.reset()
        self.screen("table").show_panel(table_for(session.setup.game))
        self._history.clear()
        self.go("table", remember=False)
        if session.is_over():
            self.show_end()

    def show_end(self) -> None:
        session = self.table.session
        if session is None:
            return
        self.timer.reset()
        colours = [self.table.player_colour(seat) for seat in range(len(session.setup.players))]
        self.end_model.load(session, colours)
        self.go("end")
        Clock.schedule_once(lambda _dt: release_free_heap(), 0)  # after the End screen is drawn

    def play_again(self) -> None:
        """End -> Players with the same table."""
        self.new_game()

    def export_record(self) -> None:
        try:
            self.end_model.export(self.journal.path.parent / "records")
        except OSError as error:
            self.end_model.export_text = _("Could not save: {problem}").format(problem=str(error))

    # -- hardware and keyboard -----------------------------------------------------------------------
    def on_bridge_event(self, event: Any) -> None:
        """A bridge event, on the UI thread: dice, buttons, the hourglass, a source coming or going."""
        from companion.app.hardware import record_source

        kind = event.event
        if kind == "roll":
            if self.root.current in ("table", "timer") and self.table is not None:
                uncertain = [index for index, value in enumerate(event.values) if value == "?"]
                if event.uncertain and not uncertain:
                    uncertain = list(range(len(event.values)))
                self.table.hardware_roll(list(event.values), uncertain, record_source(event.source))
        elif kind == "button" and event.action == "down":
            self.press_button(event.name, record_source(event.source))
        elif kind == "timer" and event.state == "flip":
            self.press_button("hourglass", record_source(event.source))
        elif kind == "timer" and event.state == "flat":
            self.clocks.hourglass(flat=True)
        elif kind == "status" and event.state in ("disconnected", "link_lost"):
            if self.table.session is not None and not self.table.over:
                self.table.show_notice(_("The sensor {source} is not answering ({state}). Carry on with touch "
                                         "input; nothing was lost.").format(source=event.source, state=event.state))

    def press_button(self, name: str, source: str = "keyboard") -> None:
        """A hardware (or keyboard) button: the game's table module first, then the table-wide meaning."""
        from companion.app.tables import table_for

        if self.root.current not in ("table", "timer") or self.table.session is None:
            return
        module = table_for(self.table.session.setup.game)
        handler = getattr(module, "on_button", None)
        if handler is not None and handler(self.table, name, source):
            return
        if name in ("hourglass", "next") and self.clocks.active:  # the chess clock runs (again)
            self.clocks.hourglass(flat=False)
        elif name == "undo":
            self.table.undo()
        elif name == "confirm" and self.table.notice_choices:
            self.table.answer_notice(self.table.notice_choices[0])
        else:
            self.table.show_notice(_("The {button} button has no use right now; nothing changed.").format(
                button=name))

    def _on_key_down(self, _window: Any, key: int, _scancode: int, codepoint: str | None,
                     modifiers: list[str]) -> bool:
        """PC stand-ins: Space rolls for you, letters enter dice faces or press buttons, Esc goes back."""
        if key == 27:  # Escape: back, never quit the kiosk
            if self.root.current not in ("home", "table"):
                self.back()
            return True
        focused = any(getattr(widget, "focus", False) for widget in self.root.walk(restrict=True))
        if focused or self.root.current not in ("table", "timer") or self.table is None:
            return False
        char = (codepoint or "").lower()
        if key == 32:
            self.table.virtual_roll("keyboard")
        elif "ctrl" in modifiers and char == "z":
            self.table.undo()
        elif char in KEY_BUTTONS:
            self.press_button(KEY_BUTTONS[char])
        elif char and char in KEY_FACES:
            face = char.upper()
            if any(face in faces for faces in self.table.dice):
                self.table.enter_die(face)
        else:
            return False
        return True

    # -- warnings --------------------------------------------------------------------------------------
    def _timer_warning(self, _timer: Any, mark: float) -> None:
        """5 s: short beep; 0: long beep (speaker and buzzer) and the digger's LED blinks."""
        if self.settings.sound:
            self.sounds.play("expired" if mark <= 0 else "warning")
        if self.hardware is None:
            return
        self.hardware.beep(800 if mark <= 0 else 150)
        if self.table.player >= 0:
            self.hardware.led(f"seat{self.table.player + 1}", "blink")

    def _update_leds(self, *_args: Any) -> None:
        """The seat LED of whoever must act is on, the others off."""
        session = self.table.session
        if session is None or self.hardware is None:
            return
        for seat in range(len(session.setup.players)):
            self.hardware.led(f"seat{seat + 1}", "on" if seat == self.table.player else "off")
