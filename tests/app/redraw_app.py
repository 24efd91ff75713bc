"""Run by test_offscreen_flush: a headless app draws its first few frames, then redraws its window FRAMES
times as fast as it can, waits a second for the renderer to finish, and prints how much its native heap
grew over those frames (a process of its own, so no earlier test's screens make its frames heavier than
the app's own).

Without the flush the renderer queues frames until some 40-60 MB are waiting, hands them over and queues
again, so the heap never comes back near where it was (21 MB above after these frames); with a flush but
no wait, the frames the renderer's threads had not drawn yet each kept a scene of their own."""

from __future__ import annotations

import sys
import time
from pathlib import Path

from kivy.base import EventLoop

from companion.app.launch import pump, start_headless
from tests.app.test_offscreen_flush import FRAMES, native_heap_in_use

FIRST_FRAMES = 10


def main(data: Path) -> None:
    app = start_headless((800, 480), journal_path=data / "journal.sqlite3", settings_file=data / "settings.json",
                         use_system_hardware=False)
    window = EventLoop.window
    for _ in range(FIRST_FRAMES):  # what any app does once: glyphs, textures, work its screens put off a frame
        window.canvas.ask_update()
        pump(1)
    before = native_heap_in_use()
    for _ in range(FRAMES):  # as fast as it goes: a loop with no pause outruns a loaded renderer's threads
        window.canvas.ask_update()
        pump(1)
    time.sleep(1)  # the renderer's threads finish the frames they were handed
    print("GROWN", native_heap_in_use() - before, flush=True)
    app.stop()


if __name__ == "__main__":
    main(Path(sys.argv[1]))
