"""App benchmarks (run: .venv/bin/python benchmarks/bench_app.py).

1. Start to first interactive frame of `goldtable app` vs a bare Kivy hello-world, measured in the
   same run as fresh processes (offscreen SDL on this machine): goal <= 1.25x.
2. Input event to screen updated, p99: a keypad tap (touch down/up) until the frame that shows its
   effect has been drawn, over a whole game.
3. Resident memory (VmRSS) after a full four-player Digger game played through the UI: goal <= 150 MB.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RUNS = 7

RSS = """
def rss_kb():
    for line in open("/proc/self/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
"""

HELLO = RSS + """
import time, sys
t0 = float(sys.argv[1])
from companion.headless import prepare_kivy
prepare_kivy((800, 480), offscreen=True)
from kivy.app import App
from kivy.uix.button import Button
from kivy.clock import Clock
class Hello(App):
    def build(self):
        return Button(text="Hello")
    def on_start(self):
        Clock.schedule_once(lambda dt: (print(time.time() - t0, rss_kb()), self.stop()), 0)
Hello().run()
"""

GOLDTABLE = RSS + """
import time, sys, tempfile, os
t0 = float(sys.argv[1])
os.environ["GOLDTABLE_DATA"] = tempfile.mkdtemp()
from companion.headless import prepare_kivy
prepare_kivy((800, 480), offscreen=True)
from kivy.clock import Clock
from companion.app.main import GoldtableApp
class Timed(GoldtableApp):
    def on_start(self):
        super().on_start()
        self.first = None
        Clock.schedule_once(self.first_frame, 0)
    def first_frame(self, dt):
        self.first = (time.time() - t0, rss_kb())
        Clock.schedule_interval(self.until_ready, 0)
    def until_ready(self, dt):
        if self.ready:
            print(self.first[0], self.first[1], time.time() - t0)
            self.stop()
            return False
Timed(use_system_hardware=False).run()
"""


def first_frame(script: str) -> tuple[float, int, float]:
    path = Path(tempfile.mkdtemp()) / "first_frame.py"  # Kivy's App wants a real source file
    path.write_text(script, encoding="utf-8")
    start = time.time()
    out = subprocess.run([sys.executable, str(path), str(start)], cwd=ROOT, capture_output=True, text=True,
                         check=True, env={**__import__("os").environ, "PYTHONPATH": str(ROOT)})
    fields = out.stdout.strip().splitlines()[-1].split()
    ready = float(fields[2]) if len(fields) > 2 else float(fields[0])
    return float(fields[0]), int(fields[1]), ready


def game_latency_and_memory() -> tuple[float, float, int]:
    sys.path.insert(0, str(ROOT))
    from random import Random

    from kivy.tests.common import UnitTestTouch

    from companion.app.demo import next_move
    from companion.app.launch import pump, start_headless
    from companion.app.tables.digger import action_label
    from tests.app.test_play_touch import set_up_four_players
    from tests.app.ui import find_button

    data = Path(tempfile.mkdtemp())
    app = start_headless((800, 480), journal_path=data / "j.sqlite3", settings_file=data / "s.json",
                         use_system_hardware=False)
    set_up_four_players(app)
    session = app.table.session
    dice = Random(4)
    latencies: list[float] = []
    labelled: list[tuple[float, str]] = []

    def timed_tap(text: str) -> None:
        button = find_button(app, text)
        x, y = button.to_window(*button.center)
        touch = UnitTestTouch(x, y)
        start = time.perf_counter()
        touch.touch_down()
        touch.touch_up()
        pump(1)  # one frame: clock callbacks, layout, texture updates, drawing
        latencies.append(time.perf_counter() - start)
        labelled.append((latencies[-1], text))

    while not session.is_over():
        move = next_move(session)
        assert move is not None
        if move["type"] == "roll":
            for face in (dice.choice("BYRGWK") for _ in range(5)):
                timed_tap(face)
        elif move["type"] == "stop":
            timed_tap("Stop!")
        else:
            timed_tap(action_label(app.table, session.game.parse_action(move)))
    pump(2)
    rss_kb = next(int(line.split()[1]) for line in Path("/proc/self/status").read_text().splitlines()
                  if line.startswith("VmRSS:"))
    print("slowest taps:", ", ".join(f"{label} {seconds * 1000:.0f} ms" for seconds, label in sorted(labelled)[-5:]))
    latencies.sort()
    p50 = statistics.median(latencies)
    p99 = latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))]
    return p50, p99, rss_kb


def main() -> None:
    hello: list[tuple[float, int, float]] = []
    app: list[tuple[float, int, float]] = []
    for _ in range(RUNS):  # interleaved, so load from other processes hits both alike
        hello.append(first_frame(HELLO))
        app.append(first_frame(GOLDTABLE))
    for label, pick in (("median", statistics.median), ("best", min)):
        h, a = pick(t for t, _, _ in hello), pick(t for t, _, _ in app)
        print(f"first frame ({label} of {RUNS}): hello-world {h * 1000:.0f} ms, goldtable {a * 1000:.0f} ms, "
              f"ratio {a / h:.2f}x")
    print(f"goldtable fully started (engine, journal, hardware, game list, Resume line): median "
          f"{statistics.median(ready for _, _, ready in app) * 1000:.0f} ms")
    print(f"resident memory at first frame: hello-world {statistics.median(r for _, r, _ in hello) / 1024:.0f} MB, "
          f"goldtable {statistics.median(r for _, r, _ in app) / 1024:.0f} MB")
    p50, p99, rss = game_latency_and_memory()
    print(f"tap to frame drawn: p50 {p50 * 1000:.1f} ms, p99 {p99 * 1000:.1f} ms")
    print(f"resident memory after a full game: {rss / 1024:.0f} MB")


if __name__ == "__main__":
    main()
