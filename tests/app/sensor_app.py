"""Run by test_app_sensor_kills: the real app (offscreen) with a serial sensor, playing Digger until killed.

    python -m tests.app.sensor_app DATA_DIR URL

It resumes the interrupted game (or starts one), prints READY and runs Kivy's loop.  Every roll the
sensor sends goes the app's one way: hardware link -> UI thread -> table controller -> Session (journal)
-> answer to the device.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from companion.app.launch import pump, start_headless
from companion.engine.core import Player, Setup
from companion.engine.session import Session
from firmware_bridge.serial_source import SerialSource

SOURCE = "tray"
SETUP = Setup(game="digger", players=(Player(name="Anna"), Player(name="Ben")), seed=3)


def main(data: Path, url: str) -> None:
    sensor = SerialSource(url, name=SOURCE, backoff=(0.005, 0.02), read_timeout=0.02)
    app = start_headless((800, 480), journal_path=data / "journal.sqlite3", settings_file=data / "settings.json",
                         use_system_hardware=False, sources=[sensor])
    if app.journal.latest_unfinished() is None:
        app.flow.open_table(Session.new(SETUP, app.journal))
    else:
        app.flow.resume()
    pump(2)
    print("READY", flush=True)
    while True:  # the app's own loop: frames go on while the journal writes on its thread
        pump(1, writes_land=False)
        time.sleep(0.002)


if __name__ == "__main__":
    main(Path(sys.argv[1]), sys.argv[2])
