"""A game's table module is the one its declaration names: opening one game's Options or table imports that
game's panel only (importing all four to find one pulled in every board and the Pi's worker)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

SCRIPT = """
import sys
from companion.headless import prepare_kivy
prepare_kivy((800, 480), offscreen=True)
from companion.app.tables import table_for
found = table_for("digger").__name__, table_for("no such game").__name__, table_for("common").__name__
others = sorted(name for name in sys.modules if name.startswith(("companion.app.tables.", "companion.app.boards.",
                                                                 "companion.games."))
                and not name.startswith("companion.games.digger") and not name.endswith((".common", ".generic")))
print("RESULT", *found, others)
"""


def test_only_the_chosen_games_table_is_imported(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "KIVY_HOME": str(tmp_path), "KIVY_NO_ARGS": "1"}
    result = subprocess.run([sys.executable, "-c", SCRIPT], cwd=ROOT, env=env, capture_output=True, text=True,
                            timeout=120)
    line = next((line for line in result.stdout.splitlines() if line.startswith("RESULT")), "")
    assert line, result.stderr[-2000:]
    assert line == ("RESULT companion.games.digger.app.table companion.app.tables.generic "
                    "companion.app.tables.generic []")



ALONE = """
from companion.headless import prepare_kivy
prepare_kivy((800, 480), offscreen=True)
from kivy.lang import Builder
from companion.app.launch import pump
from companion.app.tables import table_for
from companion.app.demo import demo_session
from companion.engine import all_games
from tests.table_helpers import make_controller
modules = [table_for(game) for game in sorted(all_games())]
print("FILES", *(file.split("/companion/", 1)[1] for file in Builder.files if "/companion/" in file))
table_for("gold_connection").build_panel(make_controller(demo_session(None, 0, "gold_connection")))
pump(2)
print("BUILT")
"""


def test_a_games_table_loaded_first_brings_the_shared_widget_rules(tmp_path: Path) -> None:
    """A panel's kv file uses the rules and kv imports of widgets.kv (GButton, `tr`, `get_color_from_hex`):
    a game's table loaded in a process that loaded nothing else (a test file run alone) must bring them
    first, or building its panel fails on a name kv does not know."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "KIVY_HOME": str(tmp_path), "KIVY_NO_ARGS": "1"}
    result = subprocess.run([sys.executable, "-c", ALONE], cwd=ROOT, env=env, capture_output=True, text=True,
                            timeout=180)
    assert "BUILT" in result.stdout.splitlines(), result.stderr[-2000:]
    files = next(line.split()[1:] for line in result.stdout.splitlines() if line.startswith("FILES"))
    assert files[0] == "app/widgets.kv"
    assert "games/gold_connection/app/table.kv" in files
    assert len(files) == len(set(files))
