"""Frame gaps on a slow SD card (run: .venv/bin/python benchmarks/bench_slow_card.py [--fsync-ms 200]).

A four-player Digger game is played by taps in the headless app (offscreen SDL) while its frame loop runs
as the real one does (a frame every 1/60 s, each drawn to the end with `glFinish`); a finger taps every
80 ms and waits for each move to be shown before it makes the next.  Three child processes, in the same run:

- the disk as it is, the journal's commits on the writer thread (the baseline);
- every fsync and fdatasync slowed by `--fsync-ms` (an LD_PRELOAD shim, tests/slow_fsync.c; an SD card's
  flush takes 100-300 ms), commits on the writer thread (the app as shipped);
- the same slow card with each commit on the UI thread (the session's writer replaced by `InlineWriter`),
  which is how every tap paid for the fsync before the writer thread.

For each: the gaps between drawn frames (p50, p99, the longest, how many over 100 ms: the goal of issue
25's check 6); how long the UI thread was blocked in the app's own code (tap handlers and the frame's
work, not drawing or the pacing sleep) in the frame where that was longest: its wall time less its time on
a CPU and waiting for one (/proc/thread-self/schedstat), which a loaded machine does not inflate; and the
time from a move's last tap to the end of the frame that shows it.  Needs a C compiler for the shim, and
Linux.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
FRAME_SECONDS = 1 / 60
TAP_SECONDS = 0.08
PLAYERS = ["Anna", "Ben", "Chloé", "David"]
MODES = (("writer thread, disk as it is", "thread", 0), ("writer thread, slow card", "thread", None),
         ("commit on the UI thread, slow card", "inline", None))


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]


def scheduled() -> tuple[int, int]:
    """This thread's time on a CPU and waiting for one so far, in ns."""
    on_cpu, waiting, _slices = Path("/proc/thread-self/schedstat").read_text().split()
    return int(on_cpu), int(waiting)


def play(mode: str, data: Path) -> dict[str, Any]:
    """In the child: one game by taps; for each frame its end, the UI thread's scheduler times and the move
    in progress; for each move the time from its last tap to the frame that shows it."""
    os.environ["GOLDTABLE_DATA"] = str(data)
    os.environ.setdefault("KIVY_HOME", str(data / "kivy"))
    sys.path[:0] = [str(ROOT), str(ROOT / "benchmarks")]
    from random import Random

    from bench_app import open_game
    from finger import Finger
    from kivy.base import EventLoop
    from kivy.graphics.opengl import glFinish

    from companion.app.demo import next_move
    from companion.app.launch import start_headless
    from companion.engine.writer import InlineWriter
    from companion.games.digger.app.table import action_label
    from tests.app.ui import find_button

    app = start_headless((800, 480), journal_path=data / "journal.sqlite3", settings_file=data / "s.json",
                         use_system_hardware=False)
    open_game(app, "digger", PLAYERS)
    session = app.table.session
    if mode == "inline":
        session.writer = InlineWriter()
    frames: list[float] = []
    blocked: list[float] = []  # per frame: the UI thread blocked in the app's code (s)
    doing: list[str] = []
    shown: list[float] = []
    next_frame = time.perf_counter()
    what = "start"
    waited = 0.0

    def accounted(work: Any) -> None:
        """Run `work` on the UI thread and add the time it spent neither on a CPU nor waiting for one."""
        nonlocal waited
        start, (cpu, queued) = time.perf_counter(), scheduled()
        work()
        cpu_after, queued_after = scheduled()
        waited += time.perf_counter() - start - (cpu_after - cpu + queued_after - queued) / 1e9

    def frame() -> None:
        nonlocal next_frame, waited
        time.sleep(max(0.0, next_frame - time.perf_counter()))
        accounted(EventLoop.idle)
        glFinish()
        frames.append(time.perf_counter())
        blocked.append(waited)
        doing.append(what)
        waited = 0.0
        next_frame = max(next_frame + FRAME_SECONDS, frames[-1])

    def frames_for(seconds: float) -> None:
        until = time.perf_counter() + seconds
        while time.perf_counter() < until:
            frame()

    dice = Random(4)
    while not session.is_over():
        move = next_move(session)
        assert move is not None
        if move["type"] == "roll":
            texts = [dice.choice("BYRGWK") for _ in range(5)]
        elif move["type"] == "stop":
            texts = ["Stop!"]
        else:
            texts = [action_label(app.table, session.game.parse_action(move))]
        what = f"{move['type']} by {len(texts)} tap(s)"
        before = len(session.actions)
        for text in texts:
            frames_for(TAP_SECONDS)
            finger = find_button(app, text)
            tapped = time.perf_counter()
            accounted(Finger(*finger.to_window(*finger.center)).tap)  # its handlers run now (an inline commit too)
        deadline = tapped + 10
        frame()
        while len(session.actions) == before:
            assert time.perf_counter() < deadline, f"{move} was never shown"
            frame()
        shown.append(frames[-1] - tapped)
        what = "between moves"
    frames_for(0.5)
    app.writer.flush()
    return {"frames": frames, "blocked": blocked, "doing": doing, "shown": shown, "moves": len(session.actions)}


def report(name: str, result: dict[str, Any]) -> str:
    frames, blocked, doing, shown = result["frames"], result["blocked"], result["doing"], result["shown"]
    gaps = [later - earlier for earlier, later in itertools.pairwise(frames)]
    worst = max(range(len(gaps)), key=gaps.__getitem__)
    stuck = max(range(len(blocked)), key=blocked.__getitem__)
    return (f"| {name} | {result['moves']} | {statistics.median(gaps) * 1000:.1f} / "
            f"{percentile(gaps, 0.99) * 1000:.1f} | {gaps[worst] * 1000:.0f} ({doing[worst + 1]}) | "
            f"{sum(gap > 0.1 for gap in gaps)} of {len(gaps)} | {blocked[stuck] * 1000:.1f} ({doing[stuck]}) | "
            f"{statistics.median(shown) * 1000:.0f} / {max(shown) * 1000:.0f} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fsync-ms", type=int, default=200, help="how much longer every fsync takes")
    parser.add_argument("--child", nargs=2, metavar=("MODE", "DATA"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(play(args.child[0], Path(args.child[1]))))
        return
    sys.path.insert(0, str(ROOT))
    from tests.slow_disk import on_slow_cards

    header = ("| commits | moves | frame gap p50 / p99 ms | longest gap ms (during) | gaps > 100 ms | UI thread "
              "blocked in the app's code, most in one frame ms (during) | last tap to move shown, median / max ms |"
              "\n| --- | --- | --- | --- | --- | --- | --- |")
    for name, delay, result in on_slow_cards(Path(__file__), MODES, args.fsync_ms, header):
        print(report(f"{name} (fsync +{delay} ms)", result), flush=True)

if __name__ == "__main__":
    main()
