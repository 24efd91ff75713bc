"""Start-up stays tappable: the first frame does not wait for the games' imports, frames keep coming
while they load, and a tap that comes first is handled (it waits only for the game chosen on Home)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

SCRIPT = """
import sys, threading, time
from pathlib import Path
data = Path(sys.argv[1])
from companion.app.launch import _configure, pump
from companion.headless import prepare_kivy
prepare_kivy((800, 480), offscreen=True)
_configure(False, max_fps=0)
import companion.app.main as main

real_preload = main.preload
others_started = []
def slow_preload(*args):
    time.sleep(1.5)  # stands for a slow card on a Pi: the imports take long
    import companion.engine.registry as registry
    real_all_games = registry.all_games
    def slow_all_games():
        if threading.current_thread().name == "goldtable-preload":
            others_started.append(app.root.current)  # the screen shown when the other games begin
            time.sleep(3)  # the three other games take long too
        return real_all_games()
    registry.all_games = slow_all_games
    real_preload(*args)
main.preload = slow_preload

app = main.GoldtableApp(journal_path=data / "journal.sqlite3", settings_file=data / "settings.json",
                        use_system_hardware=False)
started = time.perf_counter()
app._run_prepare()
pump(1)
first_frame = time.perf_counter() - started
games_loaded = "companion.games.digger.rules" in sys.modules or "pydantic" in sys.modules
frames = 0
until = time.perf_counter() + 0.4
while time.perf_counter() < until:
    pump(1)
    frames += 1
waiting = not app.ready
from tests.app.ui import tap
tapped = time.perf_counter()
tap(app, "New game")
tap_seconds = time.perf_counter() - tapped
others_loaded = "companion.games.chinagold.rules" in sys.modules
screen = app.root.current
until = time.perf_counter() + 30
while not app.ready and time.perf_counter() < until:  # the rest of start-up follows frame by frame
    pump(1)
others_waited = others_started == ["players"]  # until the tap's screen was drawn
print("RESULT", round(first_frame, 3), games_loaded, frames, waiting, screen, round(tap_seconds, 3), others_loaded,
      app.ready, others_waited)
app.stop()
"""


def test_first_frame_and_an_early_tap_do_not_wait_for_the_games(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "GOLDTABLE_DATA": str(tmp_path), "KIVY_NO_ARGS": "1"}
    result = subprocess.run([sys.executable, "-c", SCRIPT, str(tmp_path)], cwd=ROOT, env=env, capture_output=True,
                            text=True, timeout=120)
    line = next((line for line in result.stdout.splitlines() if line.startswith("RESULT")), "")
    assert line, result.stderr[-2000:]
    _, first_frame, games_loaded, frames, waiting, screen, tap_seconds, others_loaded, ready, others_waited = (
        line.split())
    # drawn before the (slow) imports are done, without pydantic (about 100 ms of its own)
    assert games_loaded == "False" and float(first_frame) < 1.5
    assert int(frames) >= 5 and waiting == "True"  # frames kept coming while the games were still loading
    assert screen == "players"  # the early tap was handled ...
    assert others_loaded == "False" and float(tap_seconds) < 2.5  # ... with the chosen game, not all four
    assert others_waited == "True"  # which had the interpreter to itself: the other games came after
    assert ready == "True"  # and the rest of start-up followed
