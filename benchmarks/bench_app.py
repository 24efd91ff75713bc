"""App benchmarks as ratios to bare Kivy apps measured in the same run (run:
.venv/bin/python benchmarks/bench_app.py [--runs N]).  Needs only the README's test install.

Every figure is compared with a baseline on the same machine, driver and Python, measured in this run,
because absolute times on a software renderer mean little (the goals are from issue 11):

1. start: start of the process to the app's first frame; to the first touch answered (a finger put on
   Home's "New game" as soon as the first frame is drawn, until the pressed button is drawn); to that
   tap's result (released at once, until the Players screen is drawn), vs a bare hello-world's first
   frame                                                                                 goal <= 1.25x
2. taps: touch to drawn frame over a whole four-player Digger game played by touch, p50 and p99, vs a
   bare Kivy app whose tap changes as many labels as the app's median tap              goal p99 <= 2x
3. boards: Chinagold on the table vs Digger (one frame drawn each): a frame with nothing changed, the
   table refreshed with nothing changed, the board's pieces rebuilt                      goal <= 2x
4. Home visited with a 1,000-game journal vs an empty journal                           goal <= 2x
5. resident memory after the full Digger game vs the hello-world's at its first frame   goal <= 1.25x
   (for scale, no goal: a bare Kivy app holding as many widgets as the app, each drawn; pydantic alone)
6. the longest frame (input to drawn frame, and every frame while the Chinagold Pi thinks) in a full
   game of each game                                                                     goal <= 100 ms
"""

from __future__ import annotations

import argparse
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
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
#: The app's frame interval (Kivy's default of at most 60 frames a second).
FRAME_SECONDS = 1 / 60

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

#: A bare Kivy app: a button whose tap changes LABELS labels; tap to drawn frame, like the app's taps.
BARE_TAPS = PRELUDE + """
import json
from kivy.base import EventLoop
from kivy.core.window import Window
from kivy.graphics.opengl import glFinish
from finger import Finger
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.button import Button
from kivy.uix.label import Label
count, taps = int(sys.argv[2]), int(sys.argv[3])
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
times = []
for _ in range(taps):
    x, y = button.to_window(*button.center)
    start = time.perf_counter()
    Finger(x, y).tap()
    EventLoop.idle()
    glFinish()
    times.append(time.perf_counter() - start)
print(json.dumps(times))
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


def child(script: str, *args: str) -> str:
    """Run a script as a fresh process (Kivy's App wants a real source file); its last output line."""
    folder = Path(tempfile.mkdtemp(prefix="goldtable-bench-"))
    try:
        path = folder / "child.py"
        path.write_text(script, encoding="utf-8")
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
    os.environ.setdefault("KIVY_HOME", str(data / "kivy"))
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
                   if isinstance(item, Widget) and type(item) not in (WeakProxy, weakref.ProxyType))
    finally:
        freeze_heap()


def label_texts(root: Any) -> dict[int, str]:
    from kivy.uix.label import Label

    return {id(w): w.text for w in root.walk() if isinstance(w, Label)}


def digger_taps(app: Any) -> tuple[list[float], list[int], int]:
    """A four-player Digger game played by touch: tap-to-frame times, labels changed per tap, RSS after.
    (Set up through the app's own steps; nothing here imports pytest, whose 13 MB would count as the
    app's.)"""
    from random import Random

    from finger import Finger
    from kivy.graphics.opengl import glFinish

    from companion.app.demo import next_move
    from companion.app.launch import pump
    from companion.app.tables.digger import action_label
    from tests.app.ui import find_button

    open_game(app, "digger", ["Anna", "Ben", "Chloé", "David"])
    glFinish()  # as in the bare app: each tap, the first too, starts with the frames before it drawn
    session = app.table.session
    dice = Random(4)
    times: list[float] = []
    changed: list[int] = []

    def tap(text: str) -> None:
        button = find_button(app, text)
        finger = Finger(*button.to_window(*button.center))
        before = label_texts(app.root)
        times.append(frame_time(finger.tap))
        after = label_texts(app.root)
        changed.append(sum(1 for key, text in after.items() if before.get(key) != text))

    while not session.is_over():
        move = next_move(session)
        assert move is not None
        if move["type"] == "roll":
            for face in (dice.choice("BYRGWK") for _ in range(5)):
                tap(face)
        elif move["type"] == "stop":
            tap("Stop!")
        else:
            tap(action_label(app.table, session.game.parse_action(move)))
    pump(3)
    rss = next(int(line.split()[1]) for line in Path("/proc/self/status").read_text().splitlines()
               if line.startswith("VmRSS:"))
    return times, changed, rss


def open_game(app: Any, game: str, players: list[str]) -> Any:
    """A new game on the Table screen through the app's own steps; its panel."""
    from companion.app.launch import pump

    app.choose_game(game)
    app.new_game()
    model = app.players_model
    while len(model.seats) > len(players):
        model.remove(len(model.seats) - 1)
    while len(model.seats) < len(players):
        model.add()
    model.seats = [{**seat, "name": name} for seat, name in zip(model.seats, players)]
    app.players_done()
    app.options_done()
    app.start_game(seed=5)
    pump(3)
    return app.root.get_screen("table").ids.panel.children[0]


def redraws(app: Any, repeats: int) -> dict[str, float]:
    """Median times, each until a whole frame is drawn, with Chinagold and then Digger on the table: a
    frame with nothing changed (what the board costs every frame), the table refreshed with nothing
    changed; and for Chinagold its pieces and marks rebuilt (what any state change costs the board)
    and the whole board rebuilt (what a size change costs)."""
    from kivy.core.window import Window

    def redrawn(action: Callable[[], Any]) -> Callable[[], None]:
        def run() -> None:
            action()
            Window.canvas.ask_update()  # a frame is drawn even when nothing visible changed
        return run

    def median(action: Callable[[], Any]) -> float:
        return statistics.median(frame_time(redrawn(action)) for _ in range(repeats))

    times = {}
    board = open_game(app, "chinagold", ["Anna", "Ben"]).board
    times["chinagold frame"] = median(lambda: None)
    times["chinagold refresh"] = median(app.table.refresh)
    times["chinagold pieces"] = median(board.draw_pieces)
    times["chinagold whole"] = median(board.redraw)
    open_game(app, "digger", ["Anna", "Ben", "Chloé", "David"])
    times["digger frame"] = median(lambda: None)
    times["digger refresh"] = median(app.table.refresh)
    return times


def options_taps(app: Any, repeats: int) -> dict[str, float]:
    """Median times, each until the frame is drawn, on Digger's Options screen (four players): Players ->
    Options (the rows filled in) after Back, and one tap on an option (the sand timer's "+" or "-") with the
    black side's cards chosen per seat, a panel that the tap does not change."""
    from finger import Finger

    from companion.app.launch import pump
    from tests.app.ui import find_button

    app.choose_game("digger")
    app.new_game()
    model = app.players_model
    while len(model.seats) > 4:
        model.remove(len(model.seats) - 1)
    while len(model.seats) < 4:
        model.add()
    model.seats = [{**seat, "name": name} for seat, name in zip(model.seats, ["Anna", "Ben", "Chloé", "David"])]
    pump(2)
    visits, taps = [], []
    for index in range(repeats):
        visits.append(frame_time(app.players_done))
        app.options_model.set("side", "black")  # the scoring-card panel at its largest: a card row per seat
        app.options_model.set("black_cards", ["1", "2", "3", "4"])
        pump(2)
        button = find_button(app, "+" if index % 2 else "−")
        taps.append(frame_time(Finger(*button.to_window(*button.center)).tap))
        app.back()
        pump(2)
    return {"visit": statistics.median(visits), "tap": statistics.median(taps)}


def fill_journal(path: Path, games: int) -> None:
    """`games` short Digger games in a journal (ten demo moves each), as a long-used Goldtable has."""
    from companion.app.demo import demo_setup, play_move
    from companion.engine.journal import Journal
    from companion.engine.session import Session

    journal = Journal(path)
    try:
        for seed in range(games):
            session = Session.new(demo_setup("digger", seed=seed), journal)
            for _ in range(10):
                play_move(session)
    finally:
        journal.close()


def home_visits(app: Any, journal_path: Path, repeats: int) -> float:
    """Median time of Rules -> Home (the Home screen's journal summary included) with this journal."""
    from companion.app.launch import pump
    from companion.engine.journal import Journal

    app.open_journal(Journal(journal_path))
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
    for game, players in (("digger", ["Anna", "Ben", "Chloé", "David"]), ("gold_connection", ["Anna", "Ben", "Chloé"]),
                          ("goldgraeber", ["Anna", "Ben", "Chloé", "David"]), ("chinagold", ["Anna", "Pi"])):
        open_game(app, game, players)
        table, controller = app.table, app.controller
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7, help="fresh processes per start-up measurement")
    args = parser.parse_args()
    os.environ["KIVY_NO_ARGS"] = "1"  # Kivy must not read this script's options
    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
          f"Python {platform.python_version()}, load average {os.getloadavg()[0]:.1f}")

    hello: list[tuple[float, int]] = []
    starts: list[tuple[float, float, float]] = []
    for _ in range(args.runs):  # interleaved, so load from other processes hits both alike
        hello_frame, hello_rss_kb = child(HELLO).split()
        hello.append((float(hello_frame), int(hello_rss_kb)))
        first_frame, pressed, players = child(FIRST_TAP).split()
        starts.append((float(first_frame), float(pressed), float(players)))
    hello_first = statistics.median(t for t, _ in hello)
    hello_rss = statistics.median(r for _, r in hello)
    for index, what in enumerate(("the app's first frame", "the first touch answered (New game drawn pressed)",
                                  "the first tap's result drawn (Players)")):
        print(ratio_line(f"1. start to {what}, median of {args.runs}", statistics.median(s[index] for s in starts),
                         hello_first, 1.25))

    data = Path(tempfile.mkdtemp(prefix="goldtable-bench-"))
    try:
        with headless_app(data) as app:
            times, changed, rss = digger_taps(app)
            labels = round(statistics.median(changed))
            bare = [float(t) for t in child(BARE_TAPS, str(labels), str(len(times))).strip("[]").split(",")]
            print(f"2. tap to drawn frame, {len(times)} taps of a Digger game, {labels} labels changed per tap "
                  f"(median):")
            print("   " + ratio_line("p50", statistics.median(times), statistics.median(bare), 2.0))
            print("   " + ratio_line("p99", percentile(times, 0.99), percentile(bare, 0.99), 2.0))
            print(ratio_line("5. resident memory after the full game vs hello-world", rss, hello_rss, 1.25, "MB"))
            built, bare_rss = (int(value) for value in child(BARE_WIDGETS, str(widgets_alive())).split())
            pydantic_kb = int(child(PYDANTIC))
            print(f"   for scale: a bare Kivy app holding as many widgets ({built}, each drawn) "
                  f"{bare_rss / 1024:.1f} MB = {bare_rss / hello_rss:.2f}x; pydantic and one model in a bare "
                  f"interpreter +{pydantic_kb / 1024:.1f} MB = {pydantic_kb / hello_rss:.2f}x")

            board_times = redraws(app, 30)
            print("3. boards, one frame drawn each:")
            print("   " + ratio_line("a frame with nothing changed, Chinagold vs Digger",
                                     board_times["chinagold frame"], board_times["digger frame"], 2.0))
            print("   " + ratio_line("table refreshed, nothing changed, Chinagold vs Digger",
                                     board_times["chinagold refresh"], board_times["digger refresh"], 2.0))
            print("   " + ratio_line("Chinagold pieces and marks rebuilt vs Digger table refreshed",
                                     board_times["chinagold pieces"], board_times["digger refresh"], 2.0))
            whole = board_times["chinagold whole"] * 1000
            print(f"   (Chinagold board rebuilt whole, as after a size change: {whole:.1f} ms)")
            empty, full = data / "empty.sqlite3", data / "full.sqlite3"
            fill_journal(full, 1000)
            visits = {path: home_visits(app, path, 15) for path in (empty, full)}
            print(ratio_line("4. Home visit, 1,000-game journal vs empty", visits[full], visits[empty], 2.0))
            options = options_taps(app, 15)
            print(f"(no goal) Players -> Options, Digger with 4 players: {options['visit'] * 1000:.1f} ms; one option "
                  f"tap: {options['tap'] * 1000:.1f} ms (median of 15)")

            for game, (longest, what) in longest_frames(app).items():
                verdict = "met" if longest <= 0.1 else "NOT met"
                print(f"6. longest frame in a full {game} game: {longest * 1000:.0f} ms, {what} "
                      f"(goal <= 100 ms: {verdict})")
    finally:
        shutil.rmtree(data, ignore_errors=True)


if __name__ == "__main__":
    main()
