"""Starting the app for real (`goldtable app`) or headless (screenshots, tests, benchmarks).

`prepare_kivy` must run before Kivy is imported, so everything Kivy is imported inside functions.
"""

from __future__ import annotations

import os
import signal
import tempfile
from pathlib import Path
from typing import Any

from companion.engine.errors import UserError
from companion.headless import (
    NO_DISPLAY_HELP,
    export_png,
    find_display,
    flush_offscreen_frames,
    kivy_home,
    prepare_kivy,
)

SCREENSHOT_SCREENS: tuple[str, ...] = ("home", "players", "options", "setup", "table", "timer", "end",
                                       "hardware", "settings", "rules", "refusal", "notice", "history", "stats",
                                       "clocks", "undo", "loupe")
#: Screens of a game's board, for a game whose declaration names one: `line` is the board after one tap
#: on the middle of the cells a first tap may choose (the start of a line, where a game draws lines).
BOARD_SCREENS: tuple[str, ...] = ("line",)


def _configure(fullscreen: bool, max_fps: int = 60) -> None:
    from kivy.config import Config

    Config.set("graphics", "maxfps", str(max_fps))
    Config.set("kivy", "exit_on_escape", "0")
    Config.set("input", "mouse", "mouse,multitouch_on_demand")
    Config.set("graphics", "fullscreen", "auto" if fullscreen else "0")
    Config.set("graphics", "show_cursor", "1")


def run_app(size: tuple[int, int] | None, fullscreen: bool, serial_url: str | None, gpio: bool,
            journal: Path | None, offscreen: bool = False, verbose: bool = False) -> None:
    """The interactive app: a window (or the whole screen on a Pi), hardware from the settings.

    Without a display it ends with a UserError before any window opens (`find_display`), instead of
    SDL quietly drawing offscreen; `offscreen=True` is that on purpose (tests, a screen-less check)."""
    drivers = "offscreen" if offscreen else find_display()
    frames = _frame_log(os.environ.get("GOLDTABLE_FRAME_LOG", ""))
    os.environ["SDL_VIDEODRIVER"] = drivers  # never SDL's silent fallback to offscreen
    os.environ.setdefault("KIVY_WINDOW", "sdl2")  # Kivy's x11 fallback exits the process without a word
    prepare_kivy(size or (800, 480), offscreen=offscreen, verbose=verbose)  # before anything imports Kivy
    from companion.app.hardware import on_raspberry_pi
    from companion.app.settings import load_settings

    on_pi = on_raspberry_pi()

    settings = load_settings()
    fullscreen = fullscreen or on_pi or settings.fullscreen
    _configure(fullscreen)
    from kivy.core.window import Window

    if Window is None:  # the display answered the check but SDL could not open a window on it
        raise UserError(f"no display: SDL could not open a window (SDL_VIDEODRIVER={drivers}; details in "
                        f"{kivy_home() / 'kivy.log'}); {NO_DISPLAY_HELP}")
    if offscreen:
        flush_offscreen_frames()
    from kivy.clock import Clock

    from companion.app.main import GoldtableApp

    app = GoldtableApp(journal_path=journal, serial_url=serial_url, gpio=gpio)
    app.preferences.fullscreen = fullscreen  # Settings shows the window as it is, also when the kiosk's flag made it so
    # systemd stops the kiosk with SIGTERM: close the app as Quit does, so exit handlers still run
    signal.signal(signal.SIGTERM, lambda *_: Clock.schedule_once(lambda _dt: app.stop()))
    if frames is not None:
        Clock.schedule_interval(frames.tick, 0)
    try:
        app.run()
    finally:
        if frames is not None:
            frames.close()
        # The window goes when the app does: a write to a USB stick that stopped answering can keep the
        # process in the kernel after Python has finished, and with it a frozen window on the screen.
        Window.close()


def _frame_log(path: str) -> Any:
    """The frame log GOLDTABLE_FRAME_LOG asks for (companion/app/frames.py), or None; a file that cannot be
    written is one line, before the window opens."""
    if not path:
        return None
    from companion.app.frames import FrameLog

    try:
        return FrameLog(Path(path))
    except OSError as error:
        raise UserError(f"GOLDTABLE_FRAME_LOG: cannot write {path}: {error.strerror or error}") from None


def start_headless(size: tuple[int, int], **app_kwargs: Any) -> Any:
    """Build the app in an offscreen window without entering its main loop (tests drive it by frames)."""
    prepare_kivy(size, offscreen=True)
    _configure(False, max_fps=0)  # offscreen frames need not wait for a display refresh
    from kivy.core.window import Window

    from companion.app.main import GoldtableApp

    flush_offscreen_frames()
    Window.size = size
    app = GoldtableApp(**app_kwargs)
    app._run_prepare()  # Kivy's own set-up step of App.run(): build(), window, on_start
    pump()
    while not app.ready:  # the engine, journal and hardware start right after the first frame
        pump(1)
    return app


def pump(frames: int = 3, writes_land: bool = True) -> None:
    """Let Kivy run `frames` frames (layout, clock callbacks, drawing).

    A headless driver steps the app like a finger that waits for the table: before each frame the
    journal writes in flight are finished, so that frame hands their answers over, and frames go on
    until no input waits for a write any more (an input that waited may have asked for the next one).
    `writes_land=False` runs the frames as the app's own loop does, with the writes still on their way."""
    from kivy.app import App
    from kivy.base import EventLoop

    writer = getattr(App.get_running_app(), "writer", None) if writes_land else None
    done = 0
    while done < frames or (writer is not None and writer.busy):
        if writer is not None:
            writer.flush()
        EventLoop.idle()
        done += 1


def stop_headless(app: Any) -> None:
    """Close the app started by `start_headless` (hardware stopped, journal closed)."""
    app.stop()


def demo_app(size: tuple[int, int], language: str, game: str, data_dir: Path) -> Any:
    """An app whose data directory `data_dir` holds one finished and one interrupted demo game."""
    os.environ["GOLDTABLE_DATA"] = str(data_dir)
    from companion.app.demo import demo_session
    from companion.app.settings import AppSettings, RememberedPlayer, save_settings

    journal = data_dir / "journal.sqlite3"
    demo_session(journal, moves=None, game=game).journal.close()  # type: ignore[union-attr]
    demo_session(journal, moves=9, game=game).journal.close()  # type: ignore[union-attr]
    players = tuple(RememberedPlayer(name=name, colour=colour) for name, colour in
               (("Anna", "#d64541"), ("Ben", "#3a7bd5"), ("Chloé", "#2e9e5b"), ("David", "#e3b505"),
                ("Émile", "#8e44ad")))
    save_settings(AppSettings(language=language, players=players, last_game=game),
                  data_dir / "app-settings.json")
    return start_headless(size, journal_path=journal, settings_file=data_dir / "app-settings.json",
                          use_system_hardware=False)


def show_screen(app: Any, screen: str, moves: int = 0) -> None:
    """Bring the demo app to `screen` with fitting state (the interrupted game resumed for table screens,
    played on by `moves` demo moves)."""
    if screen in ("home", "settings", "hardware", "history", "stats", "clocks"):
        app.go(screen)
    elif screen in ("players", "options", "setup"):
        app.flow.new_game()
        if screen in ("options", "setup"):
            app.flow.players_done()
        if screen == "setup":
            app.flow.options_done()
    elif screen in ("table", "timer", "refusal", "notice", "rules", "undo", "loupe", "line"):
        app.flow.resume()
        if moves:
            _play_on(app, moves)
        for _step in range(6 if screen == "undo" else 0):  # back to a move that moved something
            undone: list[bool] = []
            app.flow.controller.undo(then=undone.append)
            pump(1)
            if not undone[0] or "•" in app.table.notice_text:
                break
        if screen == "timer":
            app.timer.start(30)
            app.go("timer")
        elif screen == "refusal":
            app.flow.controller.submit(_refused_move(app.table.session))
        elif screen == "notice":  # the sensors unsure of one die of a roll, in the game's own dice
            _play_until_dice_are_due(app)
            dice = app.table.dice
            values = [faces[(2 * index + 1) % len(faces)] for index, faces in enumerate(dice)]
            app.flow.controller.hardware_roll(values, [len(values) // 2], "serial")
        elif screen == "rules":
            app.go("rules")
        elif screen == "loupe":  # the board's loupe (the games with a board)
            from companion.app.boards.loupe import show_loupe

            pump(2)
            show_loupe(app.root.current_screen)
        elif screen == "line":  # the board after a first tap (Chinagold: every line of the thrown length shown)
            from companion.app.boards.loupe import looked_after_board

            pump(2)
            board = looked_after_board(app.root.current_screen)
            cells = sorted(board.loupe.choosable()) if board is not None else []
            if cells:
                board.loupe.choose(cells[len(cells) // 2])
    elif screen == "end":
        journal = app.journal
        finished = next((g.id for g in journal.games() if g.finished), journal.games()[-1].id)
        from companion.engine.session import Session

        app.flow.open_table(Session.resume(journal, finished))  # a finished game: the End screen follows
    pump(4)
    while screen in ("history", "stats") and app.root.get_screen(screen).model.loading:  # read on a worker thread
        pump(1)


def _play_on(app: Any, moves: int) -> None:
    """The resumed demo game played on by up to `moves` demo moves (fewer when it ends)."""
    from companion.app.demo import play_move

    session = app.table.session
    for _move in range(moves):
        if not play_move(session):
            break
    app.flow.controller.open(session)


def _refused_move(session: Any) -> dict[str, Any]:
    """A move the rules refuse, for the refusal screen: Digger robs out of turn; another game plays now
    what its autoplay would play a few moves later, of a kind the table waits for (so the screen shows a
    rule of the game rather than "not now") where one of the seeds tried finds such a move."""
    from random import Random

    from companion.engine.registry import autoplay_for

    game, state = session.game, session.state
    choose = autoplay_for(session.setup.game)
    robbed_out_of_turn = {"type": "rob", "colour": "W", "victim": 1}
    if session.setup.game == "digger" or choose is None:
        return robbed_out_of_turn
    expected = game.prompt(state).expects
    refused: list[dict[str, Any]] = []
    for seed in range(10):
        later = state
        for _ahead in range(4):
            later = game.apply(later, choose(game, later, Random(seed)))[0]
            if game.is_over(later):
                break
            move = choose(game, later, Random(seed))
            if game.validate(state, move) is not None:
                if move.type in expected:
                    return dict(move.model_dump(mode="json"))
                refused.append(dict(move.model_dump(mode="json")))
    return refused[0] if refused else robbed_out_of_turn


def _play_until_dice_are_due(app: Any) -> None:
    """Play the resumed demo game on until the table waits for a roll: a move that makes one due when
    there is such a move, else the demo's own move."""
    from companion.app.demo import MAX_GENERIC_MOVES, play_move

    session = app.table.session
    game = session.game

    def dice_due(state: Any) -> bool:
        prompt = game.prompt(state)
        return bool(prompt.dice) and prompt.roll_action in prompt.expects

    for _move in range(MAX_GENERIC_MOVES):
        if dice_due(session.state):
            break
        towards = next((action for action in game.legal_actions(session.state) or []
                        if dice_due(game.apply(session.state, action)[0])), None)
        if towards is not None:
            session.submit(towards, "touch")
        elif not play_move(session):
            break
    app.flow.controller.open(session)


def run_screenshot(screen: str, output: Path, size: tuple[int, int], language: str, game: str,
                   verbose: bool = False, moves: int = 0) -> None:
    """`goldtable screenshot`: the demo app at `size` in `language`, showing `screen`, saved as PNG.

    The demo games live in a temporary folder removed afterwards; Kivy's home (config, log) stays the
    user's, so it is set before the demo folder becomes the data folder."""
    prepare_kivy(size, offscreen=True, verbose=verbose)
    from companion.app.widgets import BACKGROUND_RGBA

    with tempfile.TemporaryDirectory(prefix="goldtable-demo-", ignore_cleanup_errors=True) as folder:
        app = demo_app(size, language, game, Path(folder))
        simulator = None
        try:
            simulator = _demo_hardware(app) if screen == "hardware" else None
            show_screen(app, screen, moves)
            export_png(app.root, output, background=BACKGROUND_RGBA)
        finally:
            stop_headless(app)
            if simulator is not None:
                simulator.stop()


def _demo_hardware(app: Any) -> Any:
    """For the Hardware screenshot: mock GPIO pins and a simulated sensor on socket://, a few events."""
    import time

    from gpiozero.pins.mock import MockFactory

    from firmware_bridge.config import load_pin_map
    from firmware_bridge.gpio import GpioSource
    from firmware_bridge.serial_source import SerialSource
    from firmware_bridge.simulator import Simulator

    simulator = Simulator(dice=5, faces="BYRGWK").start()
    app.hardware.add_source(GpioSource(load_pin_map(), pin_factory=MockFactory()))
    app.hardware.add_source(SerialSource(simulator.url))  # named as the app names the sensor board
    deadline = time.monotonic() + 5
    while not all(s.get("connected") for s in app.hardware.sources) and time.monotonic() < deadline:
        pump(1)
    simulator.roll("Y", "R", "B", "K", "G")
    simulator.timer("flip")
    simulator.press("stop")
    end = time.monotonic() + 1.0
    while time.monotonic() < end:
        pump(1)
    app.hardware.refresh_status()
    return simulator
