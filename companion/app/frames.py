"""`GOLDTABLE_FRAME_LOG=FILE`: a line for every turn of the UI thread's loop, to find stalls on a Pi.

A table that stutters on one Pi and not on another is hard to explain from a description; this log says
when the screen could not be redrawn and why. Each line is the moment (seconds, monotonic clock), the gap
since the loop's last turn and how much of that gap the UI thread spent on a CPU and waiting for one, in
milliseconds (`/proc/thread-self/schedstat`). What is left of a gap is time the UI thread was blocked:
waiting for a disk, a lock, another thread. A slow card's fsync on the UI thread shows up there, a slow
CPU (or an emulated one) does not. Mesa's software renderer (a Pi without its GPU driver, a simulated Pi)
draws on threads of its own, and the UI thread waiting for them shows up as blocked as well:
`LP_NUM_THREADS=0` makes it draw on the UI thread, so its time counts as the UI thread's CPU. Off unless
the variable is set; the file is written as the app runs.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

SCHEDSTAT = Path("/proc/thread-self/schedstat")


def scheduler_times(path: Path = SCHEDSTAT) -> tuple[float, float]:
    """This thread's time on a CPU and waiting in the run queue so far, in ms (0, 0 where Linux does not
    say)."""
    try:
        on_cpu, waiting, _slices = path.read_text().split()
    except (OSError, ValueError):
        return 0.0, 0.0
    return int(on_cpu) / 1e6, int(waiting) / 1e6


class FrameLog:
    """Writes one line per turn of the loop it is ticked by (the app's Clock, every frame)."""

    def __init__(self, path: Path, clock: Callable[[], float] = time.monotonic,
                 times: Callable[[], tuple[float, float]] = scheduler_times) -> None:
        self._file: IO[str] = path.open("w", encoding="utf-8", buffering=1)
        self._file.write("# at_s gap_ms cpu_ms runqueue_ms blocked_ms\n")
        self._clock, self._times = clock, times
        self._last = clock()
        self._last_times = times()

    def tick(self, *_args: Any) -> None:
        now, (cpu, waiting) = self._clock(), self._times()
        gap = (now - self._last) * 1000
        on_cpu, queued = cpu - self._last_times[0], waiting - self._last_times[1]
        self._file.write(f"{now:.4f} {gap:.1f} {on_cpu:.1f} {queued:.1f} {max(0.0, gap - on_cpu - queued):.1f}\n")
        self._last, self._last_times = now, (cpu, waiting)

    def close(self) -> None:
        self._file.close()

