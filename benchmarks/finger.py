"""A finger on the screen for the app benchmarks, as Kivy's input providers make one.

Kivy's test touch (`kivy.tests.common.UnitTestTouch`) imports pytest: about 60 ms and 13 MB that the
app itself never pays, which the start-up and memory figures would otherwise charge to it.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from kivy.base import EventLoop
from kivy.clock import Clock
from kivy.graphics.opengl import glFinish
from kivy.input.motionevent import MotionEvent


class Finger(MotionEvent):
    """A touch at window coordinates (x, y): `down()`, `up()`, or `tap()` for both at once."""

    def __init__(self, x: float, y: float) -> None:
        window = EventLoop.window
        super().__init__("bench", 1, {"x": x / (window.width - 1.0), "y": y / (window.height - 1.0)},
                         is_touch=True, type_id="touch")
        self.profile = ["pos"]

    def depack(self, args: Any) -> None:
        self.sx, self.sy = args["x"], args["y"]
        super().depack(args)

    def down(self) -> None:
        EventLoop.post_dispatch_input("begin", self)

    def up(self) -> None:
        EventLoop.post_dispatch_input("end", self)

    def tap(self) -> None:
        self.down()
        self.up()


def land_paced(action: Callable[[], Any], wait: float) -> float:
    """A touch (`action`) on a paced clock (Kivy's at most 60 frames a second): after a frame at rest the
    finger lands `wait` seconds into the next 60th and is seen when the clock wakes, as SDL's events are;
    its frame is then drawn.  The moment it landed (`time.perf_counter`), for the app and the bare app."""
    EventLoop.idle()  # a frame at rest: the clock sleeps out its 60th
    time.sleep(wait)
    landed = time.perf_counter()
    Clock.schedule_once(lambda _dt: action(), 0)
    EventLoop.idle()
    glFinish()
    return landed
