"""App benchmarks as ratios to bare Kivy apps measured in the same run (run:
.venv/bin/python benchmarks/bench_app.py [--runs N]).  Needs only the README's test install.

Every figure is compared with a baseline on the same machine, driver and Python, measured in this run,
because absolute times on a software renderer mean little (goals from issues 11 and 27).  Every row is
measured for each of the four games:

1. start, with the game chosen on Home: start of the process to the app's first frame; to the first
   touch answered (a finger put on Home's "New game" as soon as the first frame is drawn, until the
   pressed button is drawn); to that tap's result (released at once, until the Players screen is
   drawn), vs a bare hello-world's first frame                                            goal <= 1.25x
2. taps: touch to drawn frame over a whole game played by touch in a fresh app (every move by the
   button that carries it or on the board, through the loupe where a touch opens it), p50 and p99, vs
   a bare Kivy app whose tap changes as many labels as the game's median tap            goal p99 <= 2x
   (and the process's CPU time per touch, the renderer's threads too, against the bare app's: on a
   shared machine the wall clock counts the waits for a core, CPU time far less).  Measured twice: the
   frame's work alone (the touch handled at once, frames unpaced), and as a person sees it (issue
   27's measure): both apps on Kivy's clock at 60 frames a second, as the table runs, the finger landing
   at a random moment of a 60th while the app is at rest, seen when the clock wakes for the next frame
3. boards: each board game on the table vs Digger (one frame drawn each): a frame with nothing
   changed, the table refreshed with nothing changed, every layer of pieces repainted   goal <= 2x
4. Home visited with a 1,000-game journal (all four games) vs an empty journal          goal <= 2x
5. resident memory after the full game vs the hello-world's at its first frame          goal <= 1.25x
   (for scale, no goal: a bare Kivy app holding as many widgets as the app, each drawn; pydantic alone);
   each board game against Digger's                                                     goal <= 1.10x
6. the longest frame of each game by touch (input to drawn frame: rolls, moves, the loupe opening,
   the End screen); entered through the table, and every frame while the Chinagold Pi thinks
                                                                                         goal <= 100 ms
7. an evening: ten games in a row (all four kinds) by touch in one app process, resident memory after
   each; after the tenth vs after the first                                              goal <= 1.05x

`--play GAME` and `--evening` are the child processes of rows 2, 5, 6 and 7 (one JSON line each).
"""

from __future__ import annotations

import argparse
import atexit
import json
import math
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import partial
from pathlib import Path
from random import Random
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
#: The app's frame interval (Kivy's default of at most 60 frames a second).
FRAME_SECONDS = 1 / 60


def installed_games() -> tuple[str, ...]:
    """Every game the registry finds installed, Digger (the baseline of rows 3 and 5) first."""
    from companion.engine.registry import declared

    games = declared()
    return (BASELINE, *(game for game in games if game != BASELINE))


#: The game the others are measured against (rows 3 and 5).
BASELINE = "digger"
GAMES = installed_games()
#: The players of each game's benchmark game (Chinagold between two people: the Pi's game is row 6's).
GAME_PLAYERS = {"digger": ["Anna", "Ben", "Chloé", "David"], "gold_connection": ["Anna", "Ben", "Chloé"],
                "goldgraeber": ["Anna", "Ben", "Chloé", "David"], "chinagold": ["Anna", "Ben"]}
ROLL_BUTTONS = {"gold_connection": "Roll for me", "goldgraeber": "Roll for me", "chinagold": "Throw for me"}

#: The resident size of the child process, for the scripts below.
RSS_KB = """
def rss_kb():
    for line in open("/proc/self/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
"""

PRELUDE = RSS_KB + """
import os, sys, time
t0 = float(sys.argv[1])
from companion.headless import prepare_kivy
prepare_kivy((800, 480), offscreen=True)
"""

HELLO = PRELUDE + """
from kivy.app import App
from kivy.uix.button import Button
from kivy.core.window import Window
from kivy.graphics.opengl import glFinish
class Hello(App):
    def build(self):
        return Button(text="Hello")
    def on_start(self):
        Window.bind(on_flip=self.drawn)
    def drawn(self, *_):
        Window.unbind(on_flip=self.drawn)
        glFinish()  # the frame is drawn when the renderer has finished it, not when it was queued
        print(time.time() - t0, rss_kb())
        self.stop()
Hello().run()
"""

#: The app, touched on "New game" as soon as its first frame is drawn: until the pressed button is drawn
#: (the app answers the touch), then released at once, until the tap's Players screen is drawn.
FIRST_TAP = PRELUDE + """
from kivy.clock import Clock
from kivy.core.window import Window
from kivy.graphics.opengl import glFinish
from finger import Finger
from companion.app.main import GoldtableApp
class Timed(GoldtableApp):
    def on_start(self):
        super().on_start()
        Window.bind(on_flip=self.first_frame)
    def first_frame(self, *_):
        Window.unbind(on_flip=self.first_frame)
        glFinish()
        self.first_frame_at = time.time() - t0
        Clock.schedule_once(self.press, 0)  # the first touch, as soon as there is something to touch
    def press(self, dt):
        home = self.root.get_screen("home")
        self.button = next(w for w in home.walk() if getattr(w, "text", "") == "New game")
        self.finger = Finger(*self.button.to_window(*self.button.center))
        self.finger.down()
        Window.bind(on_flip=self.pressed)
    def pressed(self, *_):
        Window.unbind(on_flip=self.pressed)
        glFinish()
        assert self.button.state == "down"
        self.pressed_at = time.time() - t0
        Clock.schedule_once(self.release, 0)
    def release(self, dt):
        self.finger.up()
        Clock.schedule_once(self.handled, 0)
    def handled(self, dt):
        if self.root.current != "players":
            Clock.schedule_once(self.handled, 0)
            return
        Window.bind(on_flip=self.drawn)
    def drawn(self, *_):
        Window.unbind(on_flip=self.drawn)
        glFinish()
        print(self.first_frame_at, self.pressed_at, time.time() - t0)
        self.stop()
Timed(use_system_hardware=False).run()
"""

#: A bare Kivy app: a button whose tap changes LABELS labels; tap to drawn frame, like the app's taps.  Its
#: frames are not paced (no limit of 60 a second), as the headless app's are not: paced, each tap also
#: waited out the rest of a 60th of a second (the baseline's 12.3 ms median until the ninth session).
BARE_TAPS = PRELUDE + """
import json, random
from kivy.config import Config
Config.set("graphics", "maxfps", "0")
from kivy.base import EventLoop
from kivy.clock import Clock
from kivy.core.window import Window
from kivy.graphics.opengl import glFinish
from finger import Finger, land_paced
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.button import Button
from kivy.uix.label import Label
count, taps, paced = int(sys.argv[2]), int(sys.argv[3]), sys.argv[4] == "paced"
root = BoxLayout(orientation="vertical")
labels = [Label(text=str(i), font_size="18sp") for i in range(count)]
button = Button(text="tap", size_hint_y=None, height=80)
state = {"n": 0}
def change(_b):
    state["n"] += 1
    for i, label in enumerate(labels):
        label.text = f"label {i}: {state['n']}"
button.bind(on_release=change)
for label in labels:
    root.add_widget(label)
root.add_widget(button)
Window.add_widget(root)
EventLoop.ensure_window()
for _ in range(5):
    EventLoop.idle()
glFinish()  # each tap, the first too, starts with the frames before it drawn
times, cpu = [], []
arrivals = random.Random(3)
if paced:
    Clock._max_fps = 60.0
for _ in range(taps):
    finger = Finger(*button.to_window(*button.center))
    start_cpu = time.process_time()
    if paced:
        start = land_paced(finger.tap, arrivals.uniform(0, 1 / 60))
    else:
        start = time.perf_counter()
        finger.tap()
        EventLoop.idle()
        glFinish()
    times.append(time.perf_counter() - start)
    cpu.append(time.process_time() - start_cpu)
print(json.dumps({"times": times, "cpu": cpu}))
"""


#: A bare Kivy app holding COUNT widgets on six screens (rows of four Labels and Buttons in BoxLayouts,
#: as the app's screens are built), each screen drawn once: what any Kivy app of that size pays.
BARE_WIDGETS = PRELUDE + """
from kivy.base import EventLoop
from kivy.core.window import Window
from kivy.graphics.opengl import glFinish
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.button import Button
from kivy.uix.label import Label
from kivy.uix.screenmanager import NoTransition, Screen, ScreenManager
count, screens = int(sys.argv[2]), 6
manager = ScreenManager(transition=NoTransition())
built = 1
for number in range(screens):
    screen, column = Screen(name=str(number)), BoxLayout(orientation="vertical")
    screen.add_widget(column)
    manager.add_widget(screen)
    built += 2
    row = None
    while built < count * (number + 1) // screens:
        if row is None or len(row.children) == 4:
            row = BoxLayout()
            column.add_widget(row)
            built += 1
        row.add_widget(Label(text=f"label {built}") if built % 2 else Button(text=f"button {built}"))
        built += 1
Window.add_widget(manager)
EventLoop.ensure_window()
for number in range(screens):
    manager.current = str(number)
    for _ in range(3):
        EventLoop.idle()
    glFinish()
print(built, rss_kb())
"""

#: pydantic, which the engine's values are built on, in a bare interpreter: imported and one model built.
PYDANTIC = RSS_KB + """
before = rss_kb()
from pydantic import BaseModel
class Move(BaseModel):
    dice: tuple[int, ...]
print(rss_kb() - before)
"""


def child(script: str, *args: str, game: str | None = None) -> str:
    """Run a script as a fresh process (Kivy's App wants a real source file); its last output line.
    `game`: the game chosen on Home (the app's settings say it was the last one played)."""
    folder = Path(tempfile.mkdtemp(prefix="goldtable-bench-"))
    try:
        path = folder / "child.py"
        path.write_text(script, encoding="utf-8")
        if game is not None:
            (folder / "data").mkdir()
            (folder / "data" / "app-settings.json").write_text(json.dumps({"last_game": game}), encoding="utf-8")
        paths = os.pathsep.join((str(ROOT), str(ROOT / "benchmarks")))  # the app, and finger.py
        env = {**os.environ, "PYTHONPATH": paths, "GOLDTABLE_DATA": str(folder / "data"),
               "KIVY_HOME": str(folder / "kivy")}
        out = subprocess.run([sys.executable, str(path), str(time.time()), *args], cwd=ROOT, capture_output=True,
                             text=True, check=True, env=env)
        return out.stdout.strip().splitlines()[-1]
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * fraction))]


def ratio_line(what: str, value: float, base: float, goal: float, unit: str = "ms") -> str:
    scale = 1000 if unit == "ms" else 1 / 1024
    shown = f"{value * scale:.1f} {unit} vs {base * scale:.1f} {unit}"
    met = "met" if value / base <= goal else "NOT met"
    return f"{what}: {shown} = {value / base:.2f}x (goal <= {goal}x: {met})"


# -- in-process measurements (one headless app) ------------------------------------------------------
@contextmanager
def headless_app(data: Path) -> Iterator[Any]:
    sys.path.insert(0, str(ROOT))
    os.environ["GOLDTABLE_DATA"] = str(data)
    if "KIVY_HOME" not in os.environ:  # Kivy writes there until the process exits: removed after it has
        kivy_home = tempfile.mkdtemp(prefix="goldtable-bench-kivy-")
        os.environ["KIVY_HOME"] = kivy_home
        atexit.register(shutil.rmtree, kivy_home, ignore_errors=True)  # before Kivy's own: runs after them
    from companion.app.launch import start_headless

    app = start_headless((800, 480), journal_path=data / "journal.sqlite3", settings_file=data / "s.json",
                         use_system_hardware=False)
    try:
        yield app
    finally:
        app.stop()


def frame_time(action: Callable[[], Any]) -> float:
    """Seconds from `action` (an input) to the end of the next drawn frame: until the renderer has
    finished it (`glFinish`), as a real window's buffer swap waits for; the offscreen window would
    otherwise leave the drawing queued and charge it to a later frame."""
    from kivy.graphics.opengl import glFinish

    from companion.app.launch import pump

    start = time.perf_counter()
    action()
    pump(1)
    glFinish()
    return time.perf_counter() - start


def paced_touch(action: Callable[[], Any], arrival: Random) -> tuple[float, float]:
    """Seconds from a finger landing to the end of the frame that shows it, on the app's own clock (Kivy's
    at most 60 frames a second, as the table runs): the finger lands at a random moment of a 60th of a
    second while the app is at rest and is seen when the clock wakes for the next frame, as SDL's events
    are.  Two times: to the touch's own frame, and to the frame that shows its result (a move is shown
    once its journal write has landed, a frame later or more; the same for a touch that writes nothing)."""
    from finger import land_paced
    from kivy.graphics.opengl import glFinish

    from companion.app.launch import pump

    start = land_paced(action, arrival.uniform(0, FRAME_SECONDS))
    own = time.perf_counter() - start
    pump(0)  # frames on the same clock until the writes the touch asked for have landed and are shown
    glFinish()
    return own, time.perf_counter() - start


def widgets_alive() -> int:
    """Kivy widgets alive in this process, the frozen ones too (the size a bare app is given to compare)."""
    import gc
    import weakref

    from kivy.uix.widget import Widget
    from kivy.weakproxy import WeakProxy

    from companion.app.main import freeze_heap

    gc.unfreeze()  # frozen objects are not listed; freeze_heap puts them back
    try:
        return sum(1 for item in gc.get_objects()
                   if type(item) not in (WeakProxy, weakref.ProxyType) and isinstance(item, Widget))
    finally:
        freeze_heap()


def label_texts(root: Any) -> dict[int, str]:
    from kivy.uix.label import Label

    return {id(w): w.text for w in root.walk() if isinstance(w, Label)}


def open_game(app: Any, game: str, players: list[str], seed: int = 5) -> Any:
    """A new game on the Table screen through the app's own steps; its panel."""
    from companion.app.launch import pump

    app.flow.choose_game(game)
    app.flow.new_game()
    model = app.players_model
    while len(model.seats) > len(players):
        model.remove(len(model.seats) - 1)
    while len(model.seats) < len(players):
        model.add()
    model.seats = [{**seat, "name": name} for seat, name in zip(model.seats, players)]
    app.flow.players_done()
    app.flow.options_done()
    app.flow.start_game(seed=seed)
    pump(3)
    return app.root.get_screen("table").ids.panel.children[0]


def redraws(app: Any, repeats: int) -> dict[str, float]:
    """Median times, each until a whole frame is drawn, with each game on the table: a frame with nothing
    changed (what the board costs every frame), the table refreshed with nothing changed; and for the
    board games every layer of pieces repainted (the most a state change can cost the board) and the
    whole board rebuilt (what a size change costs)."""
    from kivy.core.window import Window

    def redrawn(action: Callable[[], Any]) -> Callable[[], None]:
        def run() -> None:
            action()
            Window.canvas.ask_update()  # a frame is drawn even when nothing visible changed
        return run

    def median(action: Callable[[], Any]) -> float:
        return statistics.median(frame_time(redrawn(action)) for _ in range(repeats))

    def repainted(board: Any) -> Callable[[], None]:
        def run() -> None:
            board._pieces.forget()
            board.draw_pieces()
        return run

    times = {}
    for game in GAMES:
        board = getattr(open_game(app, game, GAME_PLAYERS[game]), "board", None)
        times[f"{game} frame"] = median(lambda: None)
        times[f"{game} refresh"] = median(app.table.refresh)
        if board is not None:
            times[f"{game} pieces"] = median(repainted(board))
            times[f"{game} whole"] = median(board.redraw)
    return times


def options_taps(app: Any, repeats: int) -> dict[str, float]:
    """Median times, each until the frame is drawn, on Digger's Options screen (four players): Players ->
    Options (the rows filled in) after Back, and one tap on an option (the sand timer's "+" or "-") with the
    black side's cards chosen per seat, a panel that the tap does not change."""
    from finger import Finger

    from companion.app.launch import pump
    from tests.app.ui import find_button

    app.flow.choose_game("digger")
    app.flow.new_game()
    model = app.players_model
    while len(model.seats) > 4:
        model.remove(len(model.seats) - 1)
    while len(model.seats) < 4:
        model.add()
    model.seats = [{**seat, "name": name} for seat, name in zip(model.seats, ["Anna", "Ben", "Chloé", "David"])]
    pump(2)
    visits, taps = [], []
    for index in range(repeats):
        visits.append(frame_time(app.flow.players_done))
        app.options_model.set("side", "black")  # the scoring-card panel at its largest: a card row per seat
        app.options_model.set("black_cards", ["1", "2", "3", "4"])
        pump(2)
        button = find_button(app, "+" if index % 2 else "−")
        taps.append(frame_time(Finger(*button.to_window(*button.center)).tap))
        app.back()
        pump(2)
    return {"visit": statistics.median(visits), "tap": statistics.median(taps)}


def fill_journal(path: Path, games: int) -> None:
    """`games` short games in a journal, the four kinds in turn (ten demo moves each), as a long-used
    Goldtable has."""
    from companion.app.demo import demo_setup, play_move
    from companion.engine.journal import Journal
    from companion.engine.session import Session

    journal = Journal(path)
    try:
        for seed in range(games):
            session = Session.new(demo_setup(GAMES[seed % len(GAMES)], seed=seed), journal)
            for _ in range(10):
                play_move(session)
    finally:
        journal.close()


def home_visits(app: Any, journal_path: Path, repeats: int) -> float:
    """Median time of Rules -> Home (the Home screen's journal summary included) with this journal."""
    from companion.app.launch import pump
    from companion.engine.journal import Journal

    app.journal_desk.open(Journal(journal_path))
    app.go("rules")
    pump(2)
    times = []
    for _ in range(repeats):
        times.append(frame_time(lambda: app.go("home")))
        app.go("rules")
        pump(2)
    return statistics.median(times)


def longest_frames(app: Any) -> dict[str, tuple[float, str]]:
    """Per game, the longest input-to-frame time over a full demo game, every move entered through the
    table (rolls by the seeded roller); for Chinagold against the Pi, every frame while it thinks too."""
    from companion.app.demo import MAX_GENERIC_MOVES, next_move
    from companion.app.launch import pump

    worst: dict[str, tuple[float, str]] = {}
    for game in GAMES:
        open_game(app, game, ["Anna", "Pi"] if game == "chinagold" else GAME_PLAYERS[game])
        table, controller = app.table, app.flow.controller
        longest, what = 0.0, ""

        def note(seconds: float, label: str) -> None:
            nonlocal longest, what
            if seconds > longest:
                longest, what = seconds, label

        for _ in range(MAX_GENERIC_MOVES):
            if table.session.is_over():
                break
            if game == "chinagold" and controller.pi_to_move:
                deadline = time.monotonic() + 10
                while controller.suggestion is None and time.monotonic() < deadline:  # the Pi thinks
                    note(frame_time(lambda: None), "a frame while the Pi thinks (or shows its move)")
                    time.sleep(FRAME_SECONDS)  # as the app's clock does: a spinning loop would starve the search
                note(frame_time(controller.confirm_pi_move), "the Pi's move confirmed")
                continue
            move = next_move(table.session)
            if move is None:
                break
            enter = (partial(controller.virtual_roll, "virtual") if move == {"type": "roll"}
                     else partial(controller.submit, move))
            note(frame_time(enter), str(move.get("type")) + (" (the game ends)" if table.session.is_over() else ""))
        pump(2)
        worst[game] = (longest, what)
    return worst


# -- a full game of each kind, played by touch ------------------------------------------------------
def cell_point(board: Any, cell: Any) -> tuple[float, float]:
    """Where a finger touches a cell: its centre, or the point nearest it that is the cell's own and
    nothing else's (a Gold Connection safe's bars are their own targets)."""
    x, y = board.centre_of(cell)
    reach = board.cell_spacing / 2
    points = sorted(((x + dx * reach / 4, y + dy * reach / 4) for dx in range(-3, 4) for dy in range(-3, 4)),
                    key=lambda point: math.dist(point, (x, y)))
    return next(point for point in points if board.cell_at(*point) == cell and board.own_event(*point) is None)


def bench_move(session: Any, rng: Random) -> dict[str, Any] | None:
    """The next move of a benchmark game, as people who play sensibly would choose it (so the game
    runs its whole course to its end): Digger by the demo policy, the others by their own autoplay
    (Chinagold's greedy baseline), from the benchmark's `rng`; a roll or throw when dice are due.  None
    when the game is over."""
    from companion.app.demo import next_move

    state, game = session.state, session.game
    if session.is_over():
        return None
    if session.setup.game == "digger":
        return next_move(session)
    prompt = session.prompt()
    if prompt.dice and prompt.roll_action in prompt.expects:
        return {"type": "roll"}
    from companion.engine.registry import autoplay_for

    choose = autoplay_for(session.setup.game)
    if choose is None:
        raise SystemExit(f"{session.setup.game} declares no autoplay to play its benchmark game by")
    action = choose(game, state, rng)
    return dict(action.model_dump(mode="json"))


class TouchGame:
    """A full game of one kind played by touch through the window, as a person plays it: every move of
    the demo policy entered by the button that carries it or on the board (through the loupe where a
    touch opens it), each touch timed to its drawn frame.  `times` and `what` per touch, `changed` the
    labels each touch changed; `direct` counts moves no touch could enter (submitted, not timed)."""

    def __init__(self, app: Any, game: str, seed: int = 5, profile: Any = None, paced: bool = False) -> None:
        self.app, self.game, self.profile, self.paced = app, game, profile, paced
        self.arrivals = Random(3)  # where in a 60th of a second each paced finger lands
        self.times: list[float] = []
        self.results: list[float] = []  # paced: to the frame that shows the touch's result
        self.cpu: list[float] = []  # the process's CPU time per touch, the renderer's threads too
        self.what: list[str] = []
        self.changed: list[int] = []
        self.direct = 0
        self.panel = open_game(app, game, GAME_PLAYERS[game], seed)
        self.dice = Random(4)  # Digger's dice faces
        self.rng = Random(seed)  # the bots' choices

    def touch(self, point: tuple[float, float], what: str) -> None:
        from finger import Finger
        from kivy.graphics.opengl import glFinish

        glFinish()  # as in the bare app: each touch starts with the frames before it drawn
        before = label_texts(self.app.root)
        if self.profile is not None:
            self.profile.enable()
        start_cpu = time.process_time()
        finger = Finger(*point)
        if self.paced:
            own, result = paced_touch(finger.tap, self.arrivals)
            self.times.append(own)
            self.results.append(result)
        else:
            self.times.append(frame_time(finger.tap))
        self.cpu.append(time.process_time() - start_cpu)
        if self.profile is not None:
            self.profile.disable()
        self.what.append(what)
        after = label_texts(self.app.root)
        self.changed.append(sum(1 for key, text in after.items() if before.get(key) != text))

    def button(self, text: str | None = None, action: Any = None, kind: str | None = None) -> bool:
        """Touch the button with this text, or the one that plays `action`, or the first that plays an
        action of this kind; False if none is shown."""
        from kivy.uix.behaviors import ButtonBehavior

        from tests.app.ui import on_screen, visible_widgets

        def wanted(widget: Any) -> bool:
            played = getattr(widget, "action", None)
            if text is not None:
                return bool(widget.text == text)
            return played == action if kind is None else getattr(played, "type", None) == kind

        for widget in visible_widgets(self.app.root.current_screen):
            if isinstance(widget, ButtonBehavior) and not widget.disabled and on_screen(widget) and wanted(widget):
                self.touch(widget.to_window(*widget.center), f"button {widget.text!r}")
                return True
        return False

    def cell(self, cell: Any) -> None:
        """A finger on a board cell; when that opens the loupe, on the cell in the loupe."""
        board = self.panel.board
        loupe = board.loupe
        if loupe.magnified is not None and not loupe.magnified.shows(cell):
            close = loupe.magnified.close_button
            self.touch(close.to_window(*close.center), "the loupe closed")
        if loupe.magnified is None:
            self.touch(board.to_window(*cell_point(board, cell)), f"{self.game} board cell")
            if loupe.magnified is not None:
                self.what[-1] = f"{self.game} board, the loupe opened"
        if loupe.magnified is not None:
            magnified = loupe.magnified.board
            self.touch(magnified.to_window(*cell_point(magnified, cell)), f"{self.game} cell in the loupe")

    def play(self) -> None:
        from companion.app.launch import pump

        session = self.app.table.session
        while True:
            move = bench_move(session, self.rng)
            if move is None:
                break
            played = len(session.actions)
            self.enter(move)
            if len(session.actions) == played and not session.is_over():  # no touch could enter it
                if move == {"type": "roll"}:
                    self.app.flow.controller.virtual_roll("virtual")
                else:
                    self.app.flow.controller.submit(move)
                pump(1)  # its write lands and its answer reaches the table before the next move is chosen
                if len(session.actions) == played and not session.is_over():
                    raise RuntimeError(f"{self.game}: the table refused the benchmark's move {move}")
                self.direct += 1
        pump(3)

    def enter(self, move: dict[str, Any]) -> None:
        kind, game = move["type"], self.game
        action = self.app.table.session.game.parse_action(move) if kind != "roll" else None
        if game == "digger":
            from companion.games.digger.app.table import action_label

            if kind == "roll":
                for face in (self.dice.choice("BYRGWK") for _ in range(5)):
                    self.button(face)
            else:
                assert action is not None
                self.button("Stop!" if kind == "stop" else action_label(self.app.table, action))
        elif kind == "roll":
            self.button(ROLL_BUTTONS[game])
        elif kind in ("move", "raft") and game == "goldgraeber":
            self.cell(move["to"])
        elif kind == "turn":
            self.cell(move["start"])
            self.cell(move["end"])
        elif kind == "bury":
            self.button("Bury")
            self.cell(move["site"])
        elif kind in ("choose_start", "place_arrow"):
            self.cell(move.get("safe") or move.get("heading"))
        elif kind == "move":
            self.cell(move["path"][-1])
            if self.app.flow.controller.pending_move is not None:  # an unnumbered safe: where the arrow points
                self.button(action=action) or self.button(kind="move")
        elif kind == "loot" and game == "gold_connection":
            self.loot(move["bars"])
        else:
            self.button(action=action)

    def loot(self, bars: list[str]) -> None:
        """Bars touched in the safe under the arrow, then Loot (a first loot before moving is one touch)."""
        board, state = self.panel.board, self.app.table.session.state
        arrow = state.robbers[state.current].arrow
        for bar in bars if state.moved else bars[:1]:
            box = next(box for box in board._bar_boxes if box[0] == arrow and box[1] == bar)
            self.touch(board.to_window(box[2] + box[4] / 2, box[3] + box[4] / 2), "a bar on the board")
        if state.moved:
            from companion.games.gold_connection.rules import bar_sort_key

            self.button("Loot " + " ".join(sorted(bars, key=bar_sort_key)))  # plays the bars picked


def rss_kb() -> int:
    return next(int(line.split()[1]) for line in Path("/proc/self/status").read_text().splitlines()
                if line.startswith("VmRSS:"))


def play(game: str, paced: bool = False) -> None:
    """Child process of rows 2, 5 and 6: one game by touch in a fresh app (`paced`: on the app's clock at
    60 frames a second, see `paced_touch`); one JSON line."""
    data = Path(tempfile.mkdtemp(prefix="goldtable-bench-"))
    try:
        with headless_app(data) as app:
            if paced:
                from kivy.clock import Clock

                Clock._max_fps = 1 / FRAME_SECONDS  # what the table runs at (the headless app is unpaced)
            played = TouchGame(app, game, paced=paced)
            played.play()
            print(json.dumps({"times": played.times, "results": played.results, "cpu": played.cpu, "what": played.what,
                              "changed": played.changed,
                              "direct": played.direct, "over": app.table.session.is_over(), "rss_kb": rss_kb(),
                              "widgets": widgets_alive()}))
    finally:
        shutil.rmtree(data, ignore_errors=True)


#: Row 7's evening: the four kinds in turn, ten games.
EVENING = tuple(GAMES[index % len(GAMES)] for index in range(10))


def evening() -> None:
    """Child process of row 7: ten games by touch in one app; resident memory after each, one JSON line."""
    data = Path(tempfile.mkdtemp(prefix="goldtable-bench-"))
    try:
        with headless_app(data) as app:
            after = []
            for number, game in enumerate(EVENING):
                TouchGame(app, game, seed=5 + number).play()
                after.append(rss_kb())
            print(json.dumps(after))
    finally:
        shutil.rmtree(data, ignore_errors=True)


def in_child(*args: str) -> Any:
    """This script run with `args` as a fresh process; its JSON answer."""
    out = subprocess.run([sys.executable, __file__, *args], cwd=ROOT, capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7, help="fresh processes per start-up measurement")
    parser.add_argument("--play", choices=GAMES, help=argparse.SUPPRESS)
    parser.add_argument("--paced", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--evening", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    os.environ["KIVY_NO_ARGS"] = "1"  # Kivy must not read this script's options
    if args.play:
        play(args.play, args.paced)
        return
    if args.evening:
        evening()
        return
    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
          f"Python {platform.python_version()}, load average {os.getloadavg()[0]:.1f}")

    hello: list[tuple[float, int]] = []
    starts: dict[str, list[tuple[float, float, float]]] = {game: [] for game in GAMES}
    for _ in range(args.runs):  # interleaved, so load from other processes hits all alike
        hello_frame, hello_rss_kb = child(HELLO).split()
        hello.append((float(hello_frame), int(hello_rss_kb)))
        for game in GAMES:
            first_frame, pressed, players = child(FIRST_TAP, game=game).split()
            starts[game].append((float(first_frame), float(pressed), float(players)))
    hello_first = statistics.median(t for t, _ in hello)
    hello_rss = statistics.median(r for _, r in hello)
    for game in GAMES:
        for index, what in enumerate(("the app's first frame", "the first touch answered (New game drawn pressed)",
                                      "the first tap's result drawn (Players)")):
            print(ratio_line(f"1. {game} on Home: start to {what}, median of {args.runs}",
                             statistics.median(s[index] for s in starts[game]), hello_first, 1.25))

    played = {game: in_child("--play", game) for game in GAMES}
    for game in GAMES:
        times, changed, what = played[game]["times"], played[game]["changed"], played[game]["what"]
        labels = round(statistics.median(changed))
        paced = in_child("--play", game, "--paced")
        seen, results = paced["times"], paced["results"]
        bare_seen = json.loads(child(BARE_TAPS, str(labels), str(len(seen)), "paced"))["times"]
        print(f"2. {game}: touch to drawn frame as a person sees it (both apps on Kivy's clock at 60 frames a "
              f"second, the finger landing at a random moment), {len(seen)} touches:")
        print("   " + ratio_line("the touch's frame, p50", statistics.median(seen), statistics.median(bare_seen), 2.0))
        print("   " + ratio_line("the touch's frame, p99", percentile(seen, 0.99), percentile(bare_seen, 0.99), 2.0))
        print("   " + ratio_line("its result drawn (a move once journalled), p99", percentile(results, 0.99),
                                 percentile(bare_seen, 0.99), 2.0))
        bare_run = json.loads(child(BARE_TAPS, str(labels), str(len(times)), "unpaced"))
        bare, bare_cpu, cpu = bare_run["times"], bare_run["cpu"], played[game]["cpu"]
        entered = "" if not played[game]["direct"] else f", {played[game]['direct']} moves entered without a touch"
        ended = "" if played[game]["over"] else " (NOT to its end)"
        print(f"2. {game}: tap to drawn frame, the frame's work alone (unpaced), {len(times)} touches of a whole "
              f"game{ended}{entered}, {labels} labels changed per touch (median):")
        print("   " + ratio_line("p50", statistics.median(times), statistics.median(bare), 2.0))
        print("   " + ratio_line("p99", percentile(times, 0.99), percentile(bare, 0.99), 2.0))
        print("   " + ratio_line("CPU time per touch (all threads: a loaded machine's waits left out), p50",
                                 statistics.median(cpu), statistics.median(bare_cpu), 2.0))
        print("   " + ratio_line("CPU time per touch, p99", percentile(cpu, 0.99), percentile(bare_cpu, 0.99), 2.0))
        worst = sorted(zip(times, what), reverse=True)[:3]
        longest = worst[0][0]
        print(f"6. {game}: longest touch to drawn frame {longest * 1000:.0f} ms (goal <= 100 ms: "
              f"{'met' if longest <= 0.1 else 'NOT met'}); the three longest: "
              + "; ".join(f"{seconds * 1000:.0f} ms {kind}" for seconds, kind in worst))
    digger_rss = played[BASELINE]["rss_kb"]
    for game in GAMES:
        rss = played[game]["rss_kb"]
        print(ratio_line(f"5. {game}: resident memory after the full game vs hello-world", rss, hello_rss, 1.25, "MB"))
        if game != BASELINE:
            print("   " + ratio_line(f"{game} vs Digger's", rss, digger_rss, 1.10, "MB"))
    built, bare_rss = (int(value) for value in child(BARE_WIDGETS, str(played[BASELINE]["widgets"])).split())
    pydantic_kb = int(child(PYDANTIC))
    print(f"   for scale: a bare Kivy app holding as many widgets as after the Digger game ({built}, each drawn) "
          f"{bare_rss / 1024:.1f} MB = {bare_rss / hello_rss:.2f}x; pydantic and one model in a bare "
          f"interpreter +{pydantic_kb / 1024:.1f} MB = {pydantic_kb / hello_rss:.2f}x")

    data = Path(tempfile.mkdtemp(prefix="goldtable-bench-"))
    try:
        with headless_app(data) as app:
            board_times = redraws(app, 30)
            print("3. boards, one frame drawn each, vs Digger:")
            for game in GAMES[1:]:
                print("   " + ratio_line(f"{game}: a frame with nothing changed", board_times[f"{game} frame"],
                                         board_times[f"{BASELINE} frame"], 2.0))
                print("   " + ratio_line(f"{game}: table refreshed, nothing changed", board_times[f"{game} refresh"],
                                         board_times[f"{BASELINE} refresh"], 2.0))
                print("   " + ratio_line(f"{game}: every layer of pieces repainted vs Digger's table refreshed",
                                         board_times[f"{game} pieces"], board_times[f"{BASELINE} refresh"], 2.0))
                print(f"   ({game} board rebuilt whole, as after a size change: "
                      f"{board_times[f'{game} whole'] * 1000:.1f} ms)")
            empty, full = data / "empty.sqlite3", data / "full.sqlite3"
            fill_journal(full, 1000)
            visits = {path: home_visits(app, path, 15) for path in (empty, full)}
            print(ratio_line("4. Home visit, 1,000-game journal (all four games) vs empty", visits[full], visits[empty],
                             2.0))
            options = options_taps(app, 15)
            print(f"(no goal) Players -> Options, Digger with 4 players: {options['visit'] * 1000:.1f} ms; one option "
                  f"tap: {options['tap'] * 1000:.1f} ms (median of 15)")
            for game, (longest, what) in longest_frames(app).items():
                verdict = "met" if longest <= 0.1 else "NOT met"
                print(f"6. longest frame in a full {game} game entered through the table: {longest * 1000:.0f} ms, "
                      f"{what} (goal <= 100 ms: {verdict})")
    finally:
        shutil.rmtree(data, ignore_errors=True)

    after = in_child("--evening")
    print(f"7. an evening, ten games by touch in one app ({', '.join(EVENING)}): resident memory after each "
          + " ".join(f"{kb / 1024:.0f}" for kb in after) + " MB")
    print("   " + ratio_line("after the tenth vs after the first", after[-1], after[0], 1.05, "MB"))
    print("   " + ratio_line("after the eighth vs after the fourth (each kind played once before)", after[7], after[3],
                             1.05, "MB"))
    print(f"load average at the end {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
