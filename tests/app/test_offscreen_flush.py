"""The offscreen window (tests, screenshots, `goldtable --offscreen`) hands every frame to the renderer.

SDL's offscreen window swaps buffers without flushing: Mesa's software renderer then kept each frame's
drawing queued, about 64 KB a frame, and a headless app grew by tens of MB over a game; flushed but not
waited for, frames drawn faster than the renderer's threads kept up piled up in it as well.  The native
heap is read with glibc's `mallinfo2` (Debian's libc, as CI has)."""

from __future__ import annotations

import ctypes
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

FRAMES = 300


class _MallInfo2(ctypes.Structure):
    _fields_ = [(name, ctypes.c_size_t) for name in
                ("arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks", "uordblks",
                 "fordblks", "keepcost")]


def native_heap_in_use() -> int:
    """Bytes the C heap has handed out and not had back (the renderer allocates there)."""
    libc = ctypes.CDLL("libc.so.6")
    if not hasattr(libc, "mallinfo2"):
        pytest.skip("needs glibc 2.33 or later (mallinfo2)")
    libc.mallinfo2.restype = _MallInfo2
    return int(libc.mallinfo2().uordblks)


def test_redrawn_frames_do_not_pile_up_in_the_renderer(tmp_path: Path) -> None:
    """In a process of its own (tests/app/redraw_app.py): after the suite's other tests, this process's
    heavier frames left more in flight than the app ever holds.  With a flush alone after each frame, a
    loop faster than the renderer's threads left 0-14 MB behind (94 MB once, starved of CPU); with the
    frame finished, as a real window's swap does, a few kilobytes."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "GOLDTABLE_DATA": str(tmp_path), "KIVY_HOME": str(tmp_path / "kivy")}
    done = subprocess.run([sys.executable, "-m", "tests.app.redraw_app", str(tmp_path)], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120, check=True)
    grown = int(next(line for line in done.stdout.splitlines() if line.startswith("GROWN")).split()[1])
    assert grown < 2**20, f"{FRAMES} redrawn frames left {grown / 2**20:.1f} MB in the native heap"
