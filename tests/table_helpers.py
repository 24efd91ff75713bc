"""Headless table-panel tests: the offscreen window, a game's panel on it, and real touches."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest


@pytest.fixture(scope="module", name="kivy_ready")
def kivy_ready_fixture() -> Any:
    """Offscreen window plus the app's shared widget rules (loaded once, as the app does)."""
    from kivy.core.window import Window

    from companion.app.widgets import WIDGETS_KV, load_kv

    load_kv(WIDGETS_KV)
    return Window


def make_controller(session: Any, **kwargs: Any) -> Any:
    """A TableModel with the game's controller (no App, no hardware) playing `session`."""
    from companion.app.controllers import controller_class
    from companion.app.table import TableModel

    controller = controller_class(session.setup.game)(TableModel(), **kwargs)
    controller.open(session)
    return controller


def show_panel(window: Any, controller: Any, game: str, size: tuple[int, int]) -> Any:
    """The game's table panel for `controller`, placed at the window's origin at `size` and laid out."""
    from companion.app.launch import pump
    from companion.app.tables import table_for

    panel = table_for(game).build_panel(controller)
    panel.size_hint = (None, None)
    panel.size = size
    panel.pos = (0, 0)
    window.add_widget(panel)
    pump(3)
    return panel


@contextmanager
def shown_panel(window: Any, controller: Any, game: str, size: tuple[int, int]) -> Iterator[Any]:
    """`show_panel` for the length of a block; then the panel is detached (it stops following the
    controller and the language) and taken off the window, whatever the block did."""
    panel = show_panel(window, controller, game, size)
    try:
        yield panel
    finally:
        panel.detach()
        window.remove_widget(panel)


def touch_at(x: float, y: float) -> None:
    """A real touch (down and up) through the window at window coordinates, then one frame."""
    from kivy.tests.common import UnitTestTouch

    from companion.app.launch import pump

    touch = UnitTestTouch(x, y)
    touch.touch_down()
    touch.touch_up()
    pump(1)


def tap_cell(board: Any, cell: Any) -> None:
    """A player's finger on a board cell: a touch at its centre, and when that opens the board's loupe
    (cells under 48 px, several allowed ones near) a touch on the cell in the loupe.  A loupe already
    open is used when it shows the cell, else closed first with its Close button."""
    loupe = board.loupe
    magnified = loupe.magnified if loupe is not None else None
    if magnified is not None and not magnified.shows(cell):
        touch_at(*magnified.close_button.to_window(*magnified.close_button.center))
    if loupe is None or loupe.magnified is None:
        touch_at(*board.to_window(*board.centre_of(cell)))
    magnified = loupe.magnified if loupe is not None else None
    if magnified is not None:
        touch_at(*magnified.board.to_window(*magnified.board.centre_of(cell)))


def played(session: Any, call: Any, *args: Any, **kwargs: Any) -> bool:
    """Make an input (`call(*args, **kwargs)`: a controller's or a panel's) and let the app answer it (the
    journal commits on its writer thread): whether it changed the game, an action played or taken back."""
    from companion.app.launch import pump

    before = len(session.actions)
    call(*args, **kwargs)
    pump(1)
    return len(session.actions) != before


def drawn(texture: Any, margin: int = 0) -> bytes:
    """`texture` (or a region of a shared one) drawn white at whole pixels into a transparent picture
    `margin` pixels larger on every side: its RGBA rows, from the bottom."""
    from kivy.graphics import ClearBuffers, ClearColor, Color, Fbo, Rectangle

    width, height = texture.size
    fbo = Fbo(size=(width + 2 * margin, height + 2 * margin))
    with fbo:
        ClearColor(0, 0, 0, 0)
        ClearBuffers()
        Color(1, 1, 1, 1)
        Rectangle(texture=texture, pos=(margin, margin), size=(width, height))
    fbo.draw()
    return bytes(fbo.pixels)
