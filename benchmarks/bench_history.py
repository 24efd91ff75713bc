"""History with a long journal, as ratios to a one-game journal measured in the same run (run:
.venv/bin/python benchmarks/bench_history.py [--games N]).  Needs only the README's test install.

History reads and replays the journal on a worker thread and fills its list in (companion/app/history.py).
For a journal of N games (bench_app's: the four kinds in turn, ten demo moves each) and for one game:

1. opening: Home -> History until the frame that shows the newest game and its detail      goal <= 2x
2. filling: until every game is read and shown (no goal: the worker's time, not the screen's)
3. the longest frame while it fills (each frame: its input to the end of drawing)          goal <= 100 ms

The journals live in a temporary folder (in /dev/shm where there is one: the card's fsyncs are
bench_journal's business), removed afterwards; Kivy's home likewise; never the real home.
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

from bench_app import FRAME_SECONDS, fill_journal, frame_time, headless_app, ratio_line


def open_history(app: Any, journal_path: Path) -> tuple[float, float, float]:
    """Seconds to the newest game shown, to every game shown, and the longest frame meanwhile."""
    from companion.app.history import shared_model
    from companion.app.launch import pump
    from companion.engine.journal import Journal

    app.journal_desk.open(Journal(journal_path))
    app.go("rules")
    pump(2)
    model = shared_model()
    model.select(-1)
    start = time.perf_counter()
    longest = frame_time(lambda: app.go("history"))
    while model.selected == -1:
        time.sleep(FRAME_SECONDS)  # the app's clock waits out each 60th of a second; frames back to back
        longest = max(longest, frame_time(lambda: None))  # would hold the interpreter against the reader
    first = time.perf_counter() - start
    while model.loading:
        time.sleep(FRAME_SECONDS)
        longest = max(longest, frame_time(lambda: None))
    return first, time.perf_counter() - start, longest


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1000, help="games in the long journal")
    args = parser.parse_args()
    os.environ["KIVY_NO_ARGS"] = "1"
    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
          f"Python {platform.python_version()}, load average {os.getloadavg()[0]:.1f}")
    shm = Path("/dev/shm")
    data = Path(tempfile.mkdtemp(prefix="goldtable-bench-history-", dir=shm if shm.is_dir() else None))
    try:
        one, many = data / "one.sqlite3", data / "many.sqlite3"
        fill_journal(one, 1)
        fill_journal(many, args.games)
        with headless_app(data / "app") as app:
            base = open_history(app, one)
            long = open_history(app, many)
            again = open_history(app, many)  # every game replayed before: read, not replayed
            print(ratio_line(f"1. History opened, {args.games} games vs one: newest game shown", long[0], base[0], 2))
            print(f"2. every game shown: {args.games} games {long[1]:.2f} s (one game {base[1]:.3f} s); "
                  f"opened again (replays cached) {again[1]:.2f} s")
            worst = max(long[2], again[2])
            print(f"3. longest frame while it fills: {worst * 1000:.0f} ms (one game {base[2] * 1000:.0f} ms; "
                  f"goal <= 100 ms: {'met' if worst <= 0.1 else 'NOT met'})")
        print(f"load average after: {os.getloadavg()[0]:.1f}")
    finally:
        shutil.rmtree(data, ignore_errors=True)


if __name__ == "__main__":
    main()
