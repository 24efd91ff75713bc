"""Run by test_offscreen_flush: a headless app redraws its window FRAMES times and prints how much its
native heap grew (a process of its own, so no earlier test's screens or a loaded machine's other tests
make its frames heavier than the app's own)."""

from __future__ import annotations

import sys
from pathlib import Path

from kivy.base import EventLoop

from companion.app.launch import pump, start_headless
from tests.app.test_offscreen_flush import FRAMES, native_heap_in_use


def main(data: Path) -> None:
    app = start_headless((800, 480), journal_path=data / "journal.sqlite3", settings_file=data / "settings.json",
                         use_system_hardware=False)
    window = EventLoop.window
    pump(3)
    before = native_heap_in_use()
    for _ in range(FRAMES):
        window.canvas.ask_update()
        pump(1)
    print("GROWN", native_heap_in_use() - before, flush=True)
    app.stop()


if __name__ == "__main__":
    main(Path(sys.argv[1]))
