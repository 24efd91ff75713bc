"""A table at rest draws nothing: after a move the window is redrawn for the change and then stays still.

Every frame on the Pi's software renderer costs the CPU that the Chinagold bot searches with; Kivy's
scroll views used to fade their bar half a second after each change, redrawing the whole window for
another half second (about 30 frames) after every move.
"""

from __future__ import annotations

import time
from typing import Any

import pytest
from kivy.base import EventLoop

from companion.app.launch import pump
from tests.app.test_tap_every_button import GAMES, advance, open_table

#: Long enough for Kivy's half-second fade trigger and its half-second animation to have run.
SETTLE_SECONDS = 1.2
FRAME = 1 / 60


def draws_during(seconds: float) -> int:
    """How many frames were drawn while the app ran at 60 frames a second for `seconds`."""
    window = EventLoop.window
    drawn = [0]

    def count(*_args: Any) -> None:
        drawn[0] += 1

    window.bind(on_flip=count)
    try:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            pump(1)
            time.sleep(FRAME)
    finally:
        window.unbind(on_flip=count)
    return drawn[0]


@pytest.mark.parametrize("game", list(GAMES))
def test_the_window_stops_redrawing_after_a_move(table_app: Any, game: str) -> None:
    open_table(table_app, game, GAMES[game])
    for _ in range(3):
        assert advance(table_app)
    draws_during(0.2)  # the move itself is drawn in these frames
    late = draws_during(SETTLE_SECONDS)
    assert late <= 2, f"{late} frames drawn in {SETTLE_SECONDS} s with nothing changing"
