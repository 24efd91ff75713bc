"""Run by test_resume: the app plays a few moves by taps, says READY, then waits to be killed."""

from __future__ import annotations

import sys
import time
from pathlib import Path

from companion.app.launch import start_headless
from tests.app.test_play_touch import set_up_four_players
from tests.app.ui import tap


def main(data: Path) -> None:
    app = start_headless((800, 480), journal_path=data / "journal.sqlite3", settings_file=data / "settings.json",
                         use_system_hardware=False)
    set_up_four_players(app)
    for face in "YRBKG":
        tap(app, face)
    tap(app, "Take yellow")
    print("READY", len(app.table.session.actions), flush=True)
    time.sleep(600)


if __name__ == "__main__":
    main(Path(sys.argv[1]))
