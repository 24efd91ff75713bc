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
