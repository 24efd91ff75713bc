"""Run by test_hardware_link: the app starts with a sensor whose start() raises, shows the problem on
the Hardware screen and plays a roll by touch; prints one JSON line with what it saw, then exits."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any

from companion.app.launch import pump, start_headless
from firmware_bridge.events import BridgeEvent
from firmware_bridge.hub import Emit, Source
from tests.app.test_play_touch import set_up_four_players
from tests.app.ui import label_texts, tap


class UnpluggedSensor(Source):
    """A sensor whose port is gone: start() raises, as a SerialSource-like source could."""

    name = "sensor"
    has_outputs = True

    @property
    def connected(self) -> bool:
        return False

    def describe(self) -> dict[str, Any]:
        return {"kind": "serial", "name": self.name}

    def start(self, emit: Emit) -> None:
        raise OSError("could not open port /dev/ttyACM0")

    def stop(self) -> None:
        """Nothing was started."""

    def settle(self, event: BridgeEvent, recorded: bool, reason: str | None = None) -> None:
        raise AssertionError("a source that never started got an answer")


def main(data: Path) -> None:
    app = start_headless((800, 480), journal_path=data / "journal.sqlite3", settings_file=data / "settings.json",
                         use_system_hardware=False, sources=[UnpluggedSensor()])
    deadline = time.monotonic() + 10
    while not app.hardware.problems and time.monotonic() < deadline:
        pump(1)
        time.sleep(0.01)
    app.go("hardware")
    pump(3)
    hardware_screen = label_texts(app)
    app.go("home")
    pump(2)
    set_up_four_players(app)
    for face in "YRBKG":
        tap(app, face)
    print(json.dumps({"problems": list(app.hardware.problems), "hardware_screen": hardware_screen,
                      "sources": list(app.hardware.sources), "actions": len(app.table.session.actions),
                      "roll": list(app.table.session.state.roll)}), flush=True)
    app.stop()


if __name__ == "__main__":
    main(Path(sys.argv[1]))
