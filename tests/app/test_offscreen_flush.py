"""The offscreen window (tests, screenshots, `goldtable --offscreen`) hands every frame to the renderer.

SDL's offscreen window swaps buffers without flushing: Mesa's software renderer then kept each frame's
drawing queued, about 64 KB a frame, and a headless app grew by tens of MB over a game.  The native
heap is read with glibc's `mallinfo2` (Debian's libc, as CI has)."""

from __future__ import annotations

import ctypes
from typing import Any

import pytest
from kivy.base import EventLoop

from companion.app.launch import pump

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


def test_redrawn_frames_do_not_pile_up_in_the_renderer(app: Any) -> None:
    window = EventLoop.window
    pump(3)
    before = native_heap_in_use()
    for _ in range(FRAMES):
        window.canvas.ask_update()
        pump(1)
    grown = native_heap_in_use() - before
    assert grown < 4 * 2**20, f"{FRAMES} redrawn frames left {grown / 2**20:.1f} MB in the native heap"
