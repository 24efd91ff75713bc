"""The Goldtable Kivy app: screens, navigation, and the wiring of session, hardware, timer and language.

The App object only wires parts together: the journal and its writer thread, the settings, the hardware
link, the view-models and the game's table controller (companion/app/controllers/), which receives every
input whatever screen is showing.  Hardware events arrive through `HardwareLink.on_event`, already on the
UI thread; they, keys and a table opening wait their turn behind the journal write in flight
(`in_turn`), so an input after "Start" goes to the new table.
"""

from __future__ import annotations

import gc
import logging
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kivy.app import App
from kivy.clock import Clock, ClockEvent
from kivy.core.window import Window
from kivy.properties import BooleanProperty, ObjectProperty, StringProperty
from kivy.uix.screenmanager import NoTransition, ScreenManager

from companion.app import i18n
from companion.app.i18n import _, n_
from companion.app.keyboard import onscreen_keyboard_wanted, use_onscreen_keyboard
from companion.app.settings import AppSettings, load_settings, save_settings, settings_path

if TYPE_CHECKING:
    from concurrent.futures import Future

    from companion.app.controllers import TableController
    from companion.app.table import TableModel
    from companion.engine.core import Setup
    from companion.engine.record import ActionSource
    from companion.engine.session import Session
    from companion.engine.writer import JournalWriter

log = logging.getLogger(__name__)

APP_DIR = Path(__file__).resolve().parent
ESCAPE = 27
#: How long the rest of start-up waits at most for an early tap to be served (see `preload`).
TAP_HOLD_SECONDS = 1.0
#: Screens that show every game or the hardware, so they wait for the whole start-up; the others need
#: only the journal, view-models and the chosen game, which an early tap on New game loads first.
NEEDS_WHOLE_START = frozenset({"home", "history", "stats", "hardware", "settings"})


def preload(first_game: str, first_ready: threading.Event, tap_served: threading.Event) -> None:
    """Import the engine, the games, their pydantic models and the app's view-model modules: run on a
    background thread at start, so the first frame is drawn and a tap handled without waiting for them.
    What a tap on Home needs (the engine, the game chosen there, journal and view-models) comes first
    and is announced by `first_ready`; the other games, the Pi's bot and the hardware follow, once a
    tap that came early has been served (`tap_served`, at most `TAP_HOLD_SECONDS`): the interpreter runs
    one thread at a time, and the tap's screen would otherwise share it with these imports.  Only
    module imports happen here (no widget, no window, no GL): those stay on the UI thread."""
    from companion.engine.registry import all_games, get_game

    try:
        try:
            get_game(first_game)
        except KeyError:  # a game of an older version named in the settings: Home falls back to Digger
            get_game("digger")
        import companion.app.controllers
        import companion.app.table
        import companion.app.timer
        import companion.app.viewmodels
        import companion.engine.journal
        import companion.engine.session
    finally:
        first_ready.set()
    tap_served.wait(TAP_HOLD_SECONDS)
    all_games()
    import companion.app.hardware
    import companion.games.chinagold.bot  # noqa: F401


def freeze_heap() -> None:
    """Collect once, then move every object still alive into the permanent generation (`gc.freeze`).

    The screens, the game's states and widgets live on; without this a full collection walks them all,
    a pause of ~100 ms that lands inside whichever tap triggers it.  Run where a pause does no harm: after
    start-up and when a table opens; what an earlier freeze kept is collected again first.
    """
    gc.unfreeze()
    gc.collect()
    gc.freeze()


def release_free_heap() -> None:
    """Collect the game's garbage, then hand the C heap's free pages back to the system (glibc only;
    elsewhere only the collection happens).

    The screens, widgets and label textures built and dropped during a game are freed, but glibc keeps
    the freed pages mapped; after a game that is about 20 MB of resident memory nobody uses.  The boards
    repaint so little now that a game's taps seldom set off a full collection, so the cycles its dropped
    loupe copies and instructions left (12 MB after a Chinagold game) wait for this one, made where no
    tap pays for it.
    """
    import ctypes
    import ctypes.util

    gc.collect()

    name = ctypes.util.find_library("c")
    try:
        libc = ctypes.CDLL(name)
        libc.malloc_trim(0)
    except (OSError, AttributeError, TypeError):  # no C library by that name, or not glibc
        return


def notice_text(notice: Any) -> str:
    """A journal notice (`Journal.notice_items`) in the app's language, its reason too."""
    from companion.engine.journal import Notice

    words = {key: notice_text(value) if isinstance(value, Notice) else value for key, value in notice.params.items()}
    try:
        return _(notice.message).format(**words)
    except (KeyError, IndexError, ValueError):
        return str(notice)


def journal_notices(journal: Any) -> str:
    """Everything the journal has to say, one line each, in the app's language (Home shows it)."""
    return "\n".join(notice_text(notice) for notice in journal.notice_items)


class GoldtableApp(App):
    """The touchscreen app.  `journal_path`/`sources`/`settings_file` are injectable for tests."""

    title = "Goldtable"
    lang = StringProperty("en")
    game_id = StringProperty("digger")
    resume_text = StringProperty("")
    journal_notice = StringProperty("")
    #: The installed games that cannot be played, and why (Home shows it under the journal's notices).
    games_notice = StringProperty("")
    #: The journal file is damaged: Home offers to salvage it (`salvage_journal`).
    salvage_offered = BooleanProperty(False)
    #: A short message shown over any screen (e.g. a roll arrived while no game is being played).
    announcement = StringProperty("")
    simulated = BooleanProperty(True)
    #: The window fills the screen now (the setting, `--fullscreen` or a Raspberry Pi at start; Settings' switch).
    fullscreen = BooleanProperty(False)
    table: TableModel = ObjectProperty(None)
    #: The game's TableController: every input goes here (kv: `app.controller.undo()`).
    controller: TableController = ObjectProperty(None)
    #: The Hardware screen's camera part (companion.app.camera), made with the hardware link.
    camera_setup: Any = ObjectProperty(None)

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
        self.writer: JournalWriter | None = None  # the journal's writer thread (see `open_journal`)
        self._starting = False  # a new game is being journalled (see `start_game`)
        self.game_id = self.settings.last_game
        self._history: list[str] = []
        self._options: dict[str, Any] = {}
        self._first_ready = threading.Event()
        self._tap_served = threading.Event()  # cleared while an early tap waits (see `preload`)
        self._tap_served.set()
        self._preload = threading.Thread(target=preload, args=(self.game_id, self._first_ready, self._tap_served),
                                         name="goldtable-preload", daemon=True)
        self._announcement_event: ClockEvent | None = None

    # -- building ------------------------------------------------------------------------------------
    def build(self) -> ScreenManager:
        """Only Home is built before the first frame; the engine and the games are imported meanwhile on a
        background thread, the journal, view-models and hardware follow (see `_after_first_frame`) and the
        other screens are built on their first visit, so the table sees the app at once."""
        from companion.app.widgets import BACKGROUND_RGBA, load_kv

        load_kv(APP_DIR / "widgets.kv")
        Window.clearcolor = BACKGROUND_RGBA
        use_onscreen_keyboard(onscreen_keyboard_wanted())  # every text field, on a touch-only table
        manager = ScreenManager(transition=NoTransition())
        self._add_screen(manager, "home")
        Window.bind(on_key_down=self._on_key_down)
        return manager

    def _load_models(self) -> None:
        from companion.app.table import TableModel
        from companion.app.timer import Sounds, TimerModel
        from companion.app.viewmodels import EndModel, OptionsModel, PlayersModel, RulesModel
        from companion.engine.errors import UserError
        from companion.engine.journal import Journal

        try:  # one app per journal; a journal that cannot be used is shown read-only with the reason
            journal = Journal(self._journal_path, exclusive=True)
        except UserError as error:
            journal = Journal.unavailable(self._journal_path, str(error))
        self.open_journal(journal)
        self.table = TableModel()
        self.timer = TimerModel(clock=self._clock)
        self.sounds = Sounds()
        self.players_model = PlayersModel()
        self.options_model = OptionsModel()
        self.end_model = EndModel()
        self.rules_model = RulesModel()
        from companion.app.clocks import ClockModel

        self.clocks = ClockModel(clock=self._clock).follow(self.table, self.timer)  # chess clock and voice
        self.table.bind(on_game_over=lambda *_: self.show_end())
        self.controller = self._new_controller("")

    def on_start(self) -> None:
        from companion.app.screens import AnnouncementBanner

        Window.add_widget(AnnouncementBanner())
        Window.bind(on_flip=self._after_first_frame)

    def _after_first_frame(self, *args: Any) -> None:
        """Work that need not delay the first frame: journal, view-models, hardware, the game list, Resume.
        Called from the frame loop it waits (frame by frame) for the background imports; called by a tap
        that comes before (see `go`), it waits for them at once."""
        Window.unbind(on_flip=self._after_first_frame)
        if self.ready:
            return
        self._start_preload()
        if args and self._preload.is_alive():  # from the frame loop: keep drawing, look again soon
            Clock.schedule_once(self._after_first_frame, 0.02)
            return
        self._tap_served.set()
        self._preload.join()
        if self.journal is None:
            self._load_models()
        if self.hardware is None:
            self._start_hardware()
        self.refresh_resume()
        self.show_games()
        Clock.schedule_once(lambda _dt: freeze_heap(), 0)

    def show_games(self) -> None:
        """Home offers every installed game that can be played (the chosen one, or Digger if it is gone)
        and says which cannot be played and why."""
        from companion.engine.registry import all_games, problems

        if self.game_id not in all_games():
            self.game_id = "digger"
        self.games_notice = "\n".join(_("A game cannot be played: {problem}").format(problem=problem)
                                      for problem in problems())
        self.root.get_screen("home").build_games()

    def _start_preload(self) -> None:
        """The background imports begin once the first frame is drawn: started earlier they share the
        interpreter with building and drawing it, and the window takes half as long again to appear."""
        if self._preload.ident is None:
            self._preload.start()

    def _ready_for_first_tap(self) -> None:
        """New game tapped before start-up has finished: wait only for what it needs (the engine, the game
        chosen on Home, journal and view-models); the rest of start-up follows in the frame loop."""
        from companion.engine.registry import get_game

        self._tap_served.clear()  # the rest of start-up waits until the tap's screen is drawn
        Window.bind(on_flip=self._served)
        self._start_preload()
        self._first_ready.wait()
        try:
            get_game(self.game_id)
        except KeyError:  # not a game of this version: the whole start-up decides what Home offers
            self._after_first_frame()
            return
        if self.journal is None:
            self._load_models()

    def _served(self, *_args: Any) -> None:
        """The frame showing the early tap's screen is drawn: the rest of start-up may go on."""
        Window.unbind(on_flip=self._served)
        self._tap_served.set()

    def _start_hardware(self) -> None:
        from companion.app.hardware import HardwareLink, default_sources

        sources, use_system_hardware, gpio = self._hardware_request
        problems: list[str] = []
        if use_system_hardware:
            found, problems = default_sources(gpio and self.settings.gpio, self.settings.serial_url,
                                              self.settings.camera_url)
            sources = [*sources, *found]
        self.hardware = HardwareLink(sources, problems)
        self.simulated = self.hardware.simulated
        self.hardware.bind(on_event=lambda _link, event: self.in_turn(lambda: self.controller.on_bridge_event(event)),
                           simulated=self.setter("simulated"))
        self.controller.hardware = self.hardware
        self.hardware.start()
        from companion.app.camera import CameraSetup

        self.camera_setup = CameraSetup(self)

    @staticmethod
    def _add_screen(manager: ScreenManager, name: str) -> None:
        import companion.app.screens as screens
        from companion.app.widgets import load_kv

        load_kv(APP_DIR / "screens" / f"{name}.kv")
        manager.add_widget(getattr(screens, f"{name.capitalize()}Screen")(name=name))

    def screen(self, name: str) -> Any:
        """A screen, built now if this is its first use."""
        if not self.root.has_screen(name):
            self._add_screen(self.root, name)
        return self.root.get_screen(name)

    def open_journal(self, journal: Any) -> None:
        """Use this journal (start-up; tests point the app at another one), written by a writer thread of
        its own.  What it has to say (moved aside, read-only and why, damaged games) is shown on Home
        (Journal.notices)."""
        from companion.app.controllers.base import kivy_call_soon
        from companion.engine.writer import JournalWriter

        if journal is self.journal:
            return
        if self.journal is not None:
            self._close_journal()
        self.journal = journal
        self.writer = JournalWriter(kivy_call_soon)
        self.journal_notice = journal_notices(journal)
        self.salvage_offered = journal.needs_salvage is not None

    def salvage_journal(self) -> None:
        """Home's Salvage button: the damaged journal's readable moves go into a new journal that takes its
        name (the damaged file is kept beside it), read and written on a thread of its own; the new journal
        is opened on the UI thread when that is done."""
        from companion.engine.errors import UserError
        from companion.engine.salvage import salvage_in_place

        if not self.salvage_offered:
            return
        self.salvage_offered = False
        self.journal_notice = _("Salvaging the journal: every page is read…")
        path = self.journal.path

        def work() -> None:
            try:
                done = salvage_in_place(path)
            except UserError as error:
                problem = str(error)
                Clock.schedule_once(lambda _dt: self._salvage_failed(problem), 0)
                return
            Clock.schedule_once(lambda _dt: self._salvaged(done), 0)

        threading.Thread(target=work, name="goldtable-salvage").start()  # not a daemon: a quit waits for it

    def _salvaged(self, done: Any) -> None:
        from companion.engine.errors import UserError
        from companion.engine.journal import Journal

        try:
            journal = Journal(self.journal.path, exclusive=True)
        except UserError as error:
            journal = Journal.unavailable(self.journal.path, str(error))
        for notice in done.notices():
            journal.tell(notice)
        self.open_journal(journal)
        self.refresh_resume()

    def _salvage_failed(self, problem: str) -> None:
        self.salvage_offered = True
        self.journal_notice = journal_notices(self.journal) + "\n" + _("Salvage failed: {problem}").format(
            problem=problem)

    def _close_journal(self) -> None:
        """Finish the writes asked for and hand their answers over (the last ACKs), then close.  A card
        that has not finished in time keeps the journal open under its writer: closing it then could
        lose the write; the process ending lets the lock go."""
        assert self.writer is not None
        if self.writer.close():
            self.journal.close()
        else:
            log.error("the journal %s did not finish writing in time; left open", self.journal.path)

    def in_turn(self, callback: Callable[[], None]) -> None:
        """Run `callback` now, or once the journal write in flight has been answered, behind the input that
        came before it.  Input from outside the table's panel (hardware, keys) comes through here and
        names `self.controller` only when it runs: input after Start goes to the new table."""
        assert self.writer is not None
        self.writer.in_turn(callback)

    @property
    def ready(self) -> bool:
        """True once everything started after the first frame is there (tests and benchmarks wait for it)."""
        return self.hardware is not None

    def on_stop(self) -> None:
        from companion.app.controllers.worker import stop_workers

        stop_workers()
        if self.journal is None:
            return
        self.timer.reset()
        assert self.writer is not None
        self.writer.close()  # before the hardware stops: the answers to the last writes go out
        if self.hardware is not None:
            self.hardware.stop()
        self._close_journal()

    # -- navigation ----------------------------------------------------------------------------------
    def go(self, name: str, remember: bool = True) -> None:
        if not self.ready and (self.journal is None or name in NEEDS_WHOLE_START):
            self._after_first_frame()
        manager = self.root
        if manager.current == name:
            return
        if remember:
            self._history.append(manager.current)
        if name == "home":
            self._history.clear()
            self.in_turn(self.refresh_resume)  # with the move being saved
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

    def set_fullscreen(self, on: bool) -> None:
        """Settings' switch. Drawn, it takes the window's state, which must not save it as the setting (a
        kiosk's `--fullscreen` would otherwise become the setting of every later start)."""
        if on != self.fullscreen:
            self.update_settings(fullscreen=on)

    def update_settings(self, **changes: Any) -> None:
        self.settings = self.settings.model_copy(update=changes)
        self.save_settings()
        if "fullscreen" in changes:
            Window.fullscreen = "auto" if changes["fullscreen"] else False
            self.fullscreen = changes["fullscreen"]

    def apply_serial(self, url: str) -> str:
        """Settings: attach a serial sensor now; returns a message for the screen."""
        url = url.strip()
        if self.hardware is None:
            return _("The hardware is still starting; try again in a moment.")
        from firmware_bridge.serial_source import SerialSource

        try:
            source = SerialSource(url or None)
        except ValueError as error:
            return str(error)
        self.update_settings(serial_url=url)
        self.hardware.replace_source(source)
        if not url:
            return _("No address given: Goldtable looks for the sensor board on USB (a Raspberry Pi Pico).")
        return _("Serial sensor {url} added.").format(url=url)

    def apply_camera(self, url: str) -> str:
        """Settings: use the camera at `url` now (empty: none); returns a message for the screen."""
        url = url.strip()
        if self.hardware is None:
            return _("The hardware is still starting; try again in a moment.")
        from companion.app.hardware import camera_source
        from companion.engine.errors import UserError

        if url:
            try:
                source = camera_source(url)
            except ImportError:
                return _("The camera needs OpenCV: sudo apt install python3-opencv")
            except UserError as error:
                return str(error)
        self.update_settings(camera_url=url)
        self.hardware.remove_camera()
        if not url:
            return _("No camera: rolls are entered by touch, buttons or the sensor board.")
        self.hardware.replace_source(source)  # once attached, it reads what the table last said is due
        return _("Camera {url} added; calibrate it on the Hardware screen.").format(url=url)

    def system_action(self, action: str) -> None:
        """Settings, after its confirmation step: "quit", "restart" (the app) or "shutdown" (the Pi).
        Every move is already journalled, so stopping loses nothing."""
        from companion.system import power

        if action == "shutdown":
            problem = power.power_off()
            if problem is not None:
                self.screen("settings").message = _("The Pi could not be shut down: {problem}").format(
                    problem=problem)
                return
        self.stop()
        if action == "restart":
            power.restart()

    # -- starting and resuming -----------------------------------------------------------------------
    def choose_game(self, game_id: str) -> None:
        self.game_id = game_id
        self.update_settings(last_game=game_id)

    def new_game(self) -> None:
        """Home -> Players for the chosen game."""
        if not self.ready:
            self._ready_for_first_tap()
        from companion.app.controllers import controller_class
        from companion.engine.registry import get_game

        self.players_model.load(get_game(self.game_id), self.settings, controller_class(self.game_id).bot_name)
        self.go("players")

    def players_done(self) -> None:
        from companion.engine.registry import get_game

        if self.players_model.find_problem():
            return
        self.settings = self.players_model.remember(self.settings)
        self.save_settings()
        self.options_model.load(get_game(self.game_id), self._options if self._options_game == self.game_id
                                else None, [player.name for player in self.players_model.players()])
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
        """Setup guide -> Table: a new journalled session, its first row written on the writer thread at its
        turn (input from before the tap still goes to the old table); a second tap meanwhile starts nothing."""
        import secrets
        from functools import partial

        from companion.engine.session import Session

        if self._starting:
            return
        assert self.writer is not None
        self._starting = True
        setup = self.setup_for_guide().evolve(seed=secrets.randbelow(2**31) if seed is None else seed)
        writer = self.writer
        self.in_turn(lambda: writer.write(partial(Session.new, setup, self.journal), self._game_started))

    def _game_started(self, result: Future[Session]) -> None:
        from companion.engine.errors import UserError
        from companion.engine.journal import JournalError

        self._starting = False
        try:
            session = result.result()
        except (JournalError, UserError, ValueError) as error:
            self.screen("setup").problem = str(error)
            return
        self._open_table(session)

    def refresh_resume(self) -> None:
        from companion.engine.registry import all_games, get_game

        summary = self.journal.latest_unfinished_summary()
        self.journal_notice = journal_notices(self.journal)
        if summary is None:
            self.resume_text = ""
            return
        title = get_game(summary.game).title if summary.game in all_games() else summary.game
        self.resume_text = n_("Resume {game}: {players} ({moves} move)", "Resume {game}: {players} ({moves} moves)",
                              summary.actions).format(
            game=title, players=", ".join(summary.players), moves=summary.actions)

    def resume(self, game_id: int | None = None) -> None:
        """Home (or History) -> Table with the latest (or the given) unfinished game, exactly as journalled
        (once the write in flight, perhaps this game's last move, is on disk)."""
        self.in_turn(lambda: self._resume(game_id))

    def _resume(self, game_id: int | None) -> None:
        from companion.engine.errors import UserError
        from companion.engine.session import Session

        game_id = game_id if game_id is not None else self.journal.latest_unfinished()
        if game_id is None:
            return
        try:
            session = Session.resume(self.journal, game_id)
        except Exception as error:  # noqa: BLE001 — a record the rules now refuse must not crash Home
            problem = error.text(i18n.game_text) if isinstance(error, UserError) else str(error)
            self.journal_notice = _("That game cannot be resumed: {problem}").format(problem=problem)
            return
        cut = self.journal.cut(game_id)  # read before the table opens: its clock starts running there
        self.game_id = session.setup.game
        self._open_table(session)
        if cut is not None and cut.since == 0:  # nobody has played on since the salvage
            lost = n_("{lost} move of this game was lost to a damaged page of the journal.",
                      "{lost} moves of this game were lost to a damaged page of the journal.", cut.lost)
            goes_on = _("It goes on after move {moves}: set up the table as the board now shows.") if cut.moves \
                else _("It starts again from the beginning: set up the table for a new start.")
            self.table.show_notice(f"{lost} {goes_on}".format(lost=cut.lost, moves=cut.moves))

    def _new_controller(self, game_id: str) -> TableController:
        from companion.app.controllers import controller_class

        return controller_class(game_id)(self.table, timer=self.timer, hardware=self.hardware,
                                         announce=self.announce, show_table=lambda: self.go("table"),
                                         play_sound=self.play_sound, clocks=self.clocks,
                                         recorded=self._frame_recorded)

    def _frame_recorded(self, ref: str) -> bool:
        """Whether a hardware frame is in the journal in use now (tests and start-up may swap journals)."""
        return bool(self.journal.is_recorded(ref))

    def play_sound(self, name: str) -> None:
        """A warning through the speaker, when the sound setting is on."""
        if self.settings.sound:
            self.sounds.play(name)

    def _open_table(self, session: Session) -> None:
        from companion.app.tables import table_for

        assert self.writer is not None
        session.writer = self.writer  # the table's moves are committed on the journal's writer thread
        self.controller.close()
        self.timer.reset()
        self.controller = self._new_controller(session.setup.game)
        self.controller.open(session)
        self.screen("table").show_panel(table_for(session.setup.game), self.controller)
        self._history.clear()
        self.go("table", remember=False)
        if session.is_over():
            self.show_end()
        Clock.schedule_once(lambda _dt: self._before_first_move(), 0)

    def _before_first_move(self) -> None:
        """Work no tap should pay for, done in the frame after the table opens: the End screen built (the
        game's last move then only fills it in) and the heap frozen (see `freeze_heap`)."""
        self.screen("end")
        freeze_heap()

    def announce(self, text: str) -> None:
        """Show `text` over whatever screen is showing for a few seconds."""
        self.announcement = text
        if self._announcement_event is not None:
            self._announcement_event.cancel()
        self._announcement_event = Clock.schedule_once(lambda _dt: setattr(self, "announcement", ""), 6)

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

    # -- buttons and keyboard ------------------------------------------------------------------------
    def press_button(self, name: str, source: ActionSource = "touch") -> None:
        """An on-screen stand-in for a hardware button (the Timer screen's Stop and Turn)."""
        self.in_turn(lambda: self.controller.press(name, source))

    def _on_key_down(self, _window: Any, key: int, _scancode: int, codepoint: str | None,
                     modifiers: list[str]) -> bool:
        """Esc goes back (never quits the kiosk); other keys go to the game's controller on any screen,
        unless a text field has the focus."""
        if key == ESCAPE:
            if self.root.current not in ("home", "table"):
                self.back()
            return True
        from companion.app.controllers.base import table_key

        focused = any(getattr(widget, "focus", False) for widget in self.root.walk(restrict=True))
        if focused or self.controller is None or not table_key(key, codepoint, modifiers):
            return False
        self.in_turn(lambda: self.controller.on_key(key, codepoint, modifiers))
        return True
