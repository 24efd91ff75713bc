"""The Goldtable Kivy app: start-up and navigation; the app's other jobs are objects the .kv files bind to.

Data flows one way: input (touch, keys, GPIO, sensor, camera) -> the game's controller (`app.flow.controller`)
-> the session (validates, journals, acknowledges) -> the view-models (`app.table`, `app.timer`, ...) derived
from its state -> the panels, which only draw.  The parts, each with one job:

- `app.preferences` (companion/app/preferences.py): the settings and the Settings screen's switches;
- `app.journal_desk` (companion/app/journal_desk.py): the journal, its writer thread, Resume and Salvage,
  and the turn every input waits for (`in_turn`);
- `app.flow` (companion/app/game_flow.py): Home's choice of game, Players, Options, the setup guide, the
  table's controller and the End screen;
- `app.announcer` (companion/app/announcer.py): a short message over any screen;
- the window's keys (companion/app/keys.py); the hardware link (`app.hardware`) and its camera part
  (`app.camera_setup`).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kivy.app import App
from kivy.clock import Clock
from kivy.core.window import Window
from kivy.properties import BooleanProperty, ObjectProperty, StringProperty
from kivy.uix.screenmanager import ScreenManager

from companion.app import i18n
from companion.app.announcer import Announcer
from companion.app.game_flow import GameFlow
from companion.app.heap import freeze_heap
from companion.app.journal_desk import JournalDesk
from companion.app.keyboard import onscreen_keyboard_wanted, use_onscreen_keyboard
from companion.app.keys import TableKeys
from companion.app.preferences import Preferences
from companion.app.settings import DEFAULT_GAME, settings_path

if TYPE_CHECKING:
    from companion.app.camera import CameraSetup
    from companion.app.clocks import ClockModel
    from companion.app.hardware import HardwareLink
    from companion.app.table import TableModel
    from companion.app.timer import Sounds, TimerModel
    from companion.app.viewmodels import EndModel, OptionsModel, PlayersModel, RulesModel
    from companion.engine.journal import Journal
    from companion.engine.writer import JournalWriter
    from firmware_bridge.hub import Source

APP_DIR = Path(__file__).resolve().parent
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
        except KeyError:  # a game of an older version named in the settings: Home falls back to the default
            get_game(DEFAULT_GAME)
        import companion.app.controllers
        import companion.app.table
        import companion.app.timer
        import companion.app.viewmodels
        import companion.engine.journal
        import companion.engine.session
    finally:
        first_ready.set()
    tap_served.wait(TAP_HOLD_SECONDS)
    from companion.app.controllers import controller_class

    for game_id in all_games():  # each game's table controller, and what it brings (a bot, say)
        controller_class(game_id)
    import companion.app.hardware  # noqa: F401


class GoldtableApp(App):
    """The touchscreen app.  `journal_path`/`sources`/`settings_file` are injectable for tests."""

    title = "Goldtable"
    lang = StringProperty("en")
    simulated = BooleanProperty(True)
    table: TableModel = ObjectProperty(None)
    #: The Hardware screen's camera part (companion.app.camera), made with the hardware link.
    camera_setup: CameraSetup = ObjectProperty(None)

    def __init__(self, journal_path: Path | None = None, sources: list[Source] | None = None,
                 settings_file: Path | None = None, use_system_hardware: bool = True,
                 serial_url: str | None = None, gpio: bool = True,
                 clock: Callable[[], float] = time.monotonic, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._clock = clock
        self.preferences = Preferences(self, settings_file or settings_path(), serial_url)
        self.lang = i18n.set_language(self.preferences.settings.language)
        self.journal_desk = JournalDesk()
        self.flow = GameFlow(self, self.preferences.settings.last_game)
        self.announcer = Announcer()
        self.keys = TableKeys(self)
        self._journal_path = journal_path
        self._hardware_request = (list(sources or []), use_system_hardware, gpio)
        self.hardware: HardwareLink | None = None  # started after the first frame (see _after_first_frame)
        # The view-models the .kv files draw, made once the engine is imported (see `_load_models`).
        self.timer: TimerModel
        self.sounds: Sounds | None = None
        self.clocks: ClockModel
        self.players_model: PlayersModel
        self.options_model: OptionsModel
        self.end_model: EndModel
        self.rules_model: RulesModel
        self._history: list[str] = []
        self._stopped = False
        self._closing_by: float | None = None  # (`stop_by`)
        self._first_ready = threading.Event()
        self._tap_served = threading.Event()  # cleared while an early tap waits (see `preload`)
        self._tap_served.set()
        self._preload = threading.Thread(target=preload, args=(self.flow.game_id, self._first_ready,
                                                               self._tap_served),
                                         name="goldtable-preload", daemon=True)

    # -- what History and tests read -----------------------------------------------------------------
    @property
    def journal(self) -> Journal | None:
        """The journal in use (`journal_desk`), None until start-up has opened it."""
        return self.journal_desk.journal

    @property
    def writer(self) -> JournalWriter | None:
        """The journal's writer thread (`journal_desk`)."""
        return self.journal_desk.writer

    def resume(self, game_id: int | None = None) -> None:
        """History's Resume: the given unfinished game at the table (`GameFlow.resume`)."""
        self.flow.resume(game_id)

    # -- start-up ------------------------------------------------------------------------------------
    def build(self) -> ScreenManager:
        """Only Home is built before the first frame; the engine and the games are imported meanwhile on a
        background thread, the journal, view-models and hardware follow (see `_after_first_frame`) and the
        other screens are built on their first visit, so the table sees the app at once."""
        from companion.app.widgets import BACKGROUND_RGBA, WIDGETS_KV, Screens, load_kv

        load_kv(WIDGETS_KV)
        Window.clearcolor = BACKGROUND_RGBA
        use_onscreen_keyboard(onscreen_keyboard_wanted())  # every text field, on a touch-only table
        manager = Screens()
        self._add_screen(manager, "home")
        Window.bind(on_key_down=self.keys.on_key_down)
        return manager

    def _load_models(self) -> None:
        from companion.app.clocks import ClockModel
        from companion.app.table import TableModel
        from companion.app.timer import Sounds, TimerModel
        from companion.app.viewmodels import EndModel, OptionsModel, PlayersModel, RulesModel
        from companion.engine.errors import UserError
        from companion.engine.journal import Journal

        try:  # one app per journal; a journal that cannot be used is shown read-only with the reason
            journal = Journal(self._journal_path, exclusive=True)
        except UserError as error:
            journal = Journal.unavailable(self._journal_path, str(error))
        self.journal_desk.open(journal)
        self.table = TableModel()
        self.timer = TimerModel(clock=self._clock)
        self.sounds = Sounds()
        self.players_model = PlayersModel()
        self.options_model = OptionsModel()
        self.end_model = EndModel()
        self.rules_model = RulesModel()
        self.clocks = ClockModel(clock=self._clock).follow(self.table, self.timer)  # chess clock and voice
        self.table.bind(on_game_over=lambda *_: self.flow.show_end())
        self.flow.controller = self.flow.new_controller("")

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
        self.journal_desk.refresh_resume()
        self.flow.show_games()
        Clock.schedule_once(lambda _dt: freeze_heap(), 0)

    def _start_preload(self) -> None:
        """The background imports begin once the first frame is drawn: started earlier they share the
        interpreter with building and drawing it, and the window takes half as long again to appear."""
        if self._preload.ident is None:
            self._preload.start()

    def ready_for_first_tap(self) -> None:
        """New game tapped before start-up has finished: wait only for what it needs (the engine, the game
        chosen on Home, journal and view-models); the rest of start-up follows in the frame loop."""
        from companion.engine.registry import get_game

        self._tap_served.clear()  # the rest of start-up waits until the tap's screen is drawn
        Window.bind(on_flip=self._served)
        self._start_preload()
        self._first_ready.wait()
        try:
            get_game(self.flow.game_id)
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
        from companion.app.camera import CameraSetup
        from companion.app.hardware import HardwareLink, default_sources

        sources, use_system_hardware, gpio = self._hardware_request
        problems: list[str] = []
        if use_system_hardware:
            settings = self.preferences.settings
            found, problems = default_sources(gpio and settings.gpio, settings.serial_url, settings.camera_url)
            sources = [*sources, *found]
        hardware = HardwareLink(sources, problems)
        self.hardware = hardware
        self.simulated = hardware.simulated
        hardware.bind(on_event=lambda _link, event: self.flow.hardware_event(event),
                      simulated=self.setter("simulated"))
        self.flow.controller.hardware = hardware
        hardware.start()
        self.camera_setup = CameraSetup(hardware, self.table, self.flow)

    @property
    def ready(self) -> bool:
        """True once everything started after the first frame is there (tests and benchmarks wait for it)."""
        return self.hardware is not None

    def stop_by(self, deadline: float) -> None:
        """Stop, waiting for the exports on their way only until `deadline` (`time.monotonic`): Settings
        has waited for the USB stick on the screen already, and a second wait would only freeze it."""
        self._closing_by = deadline
        self.stop()

    def on_stop(self) -> None:
        """Close everything, once: Kivy dispatches `on_stop` when the app is stopped (Quit, SIGTERM) and
        again when its `run` returns, and a second round waited for a stuck USB stick a second time."""
        if self._stopped:
            return
        self._stopped = True
        from companion.app.controllers.worker import stop_workers
        from companion.app.history import exports
        from companion.app.saving import CLOSE_SECONDS, saver

        stop_workers()
        closing_by = self._closing_by if self._closing_by is not None else time.monotonic() + CLOSE_SECONDS
        saver.flush()  # a setting changed just before closing is on the card when the app has gone
        exports.flush(max(0.0, closing_by - time.monotonic()))  # and an export on its way is on the stick
        if self.journal is None:
            return
        self.timer.reset()
        assert self.writer is not None
        self.writer.close()  # before the hardware stops: the answers to the last writes go out
        if self.hardware is not None:
            self.hardware.stop()
        self.journal_desk.close()

    # -- navigation ----------------------------------------------------------------------------------
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
            self.journal_desk.in_turn(self.journal_desk.refresh_resume)  # with the move being saved
            self.root.get_screen("home").build_games()
        self.screen(name)
        if name == "rules":
            self.rules_model.game_id = self.flow.game_id
            self.rules_model.search()
        manager.current = name

    def back(self) -> None:
        self.go(self._history.pop() if self._history else "home", remember=False)

    def forget_history(self) -> None:
        """A table opens: Back leads nowhere behind it."""
        self._history.clear()
