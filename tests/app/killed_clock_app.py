"""Run by test_clock_resume: the app runs a Goldgräber game on the chess clock (Anna's turn takes 30 s,
Ben's 12 s so far), says READY with what the journal kept, then waits to be killed.  Its clock moves only
when told: the frame that shows Anna's move would otherwise charge its drawing time to the turns."""

from __future__ import annotations

import sys
import time
from pathlib import Path

from companion.app.clocks import ClockSettings
from companion.app.launch import pump, start_headless
from companion.engine.core import Player, Setup
from companion.engine.session import Session
from tests.app.test_clock_resume import FakeClock


def main(data: Path) -> None:
    ClockSettings(clock=True, bank_minutes=10).save(data / "clocks.json")
    clock = FakeClock(1000.0)
    app = start_headless((800, 480), journal_path=data / "journal.sqlite3", settings_file=data / "settings.json",
                         use_system_hardware=False, clock=clock)
    setup = Setup(game="goldgraeber", players=tuple(Player(name=name) for name in ("Anna", "Ben", "Cleo")))
    session = Session.new(setup, app.journal)
    app.flow.resume(session.game_id)
    pump(2)
    clock.now += 30
    app.flow.controller.submit({"type": "roll", "values": ["L"]})  # Anna is charged, Ben's clock runs (saved now)
    pump(1)
    clock.now += 12
    app.clocks.update()  # the tick after 5 s and more: the periodic save
    pump(1)  # on the writer thread: done before this frame
    print("READY", session.game_id, app.journal.clocks.load(session.game_id), flush=True)
    time.sleep(600)


if __name__ == "__main__":
    main(Path(sys.argv[1]))
