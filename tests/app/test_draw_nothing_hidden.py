"""Nothing hidden costs a frame: Kivy draws a widget at opacity 0, and a quad in a clear colour, as it
draws any other, and the software renderer (a Pi without its GPU driver, the simulated Pi, the test
machine) shades every pixel of it.  A hidden overlay as large as the panel cost every table frame 2 ms
of 12 (docs/performance.md).  So no hidden quad on a table screen may cover more than a large button."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from kivy.core.window import Window
from kivy.graphics import BorderImage, Color, Ellipse, Rectangle, RoundedRectangle
from kivy.uix.widget import Widget

from companion.app.launch import pump
from tests.app.test_tap_every_button import GAMES, open_table

#: The largest hidden quad allowed, as a share of the window (a 96x52 button is 1.3 %).
LARGEST_HIDDEN = 0.03


def hidden_quads(widget: Widget, shown: float = 1.0) -> Iterator[tuple[float, str]]:
    """(area, owner) of every quad with an area that a widget draws while it cannot be seen: at opacity
    0 (its own or a parent's) or in a colour with alpha 0."""
    shown *= widget.opacity
    groups = [widget.canvas.before] if widget.canvas.has_before else []
    groups += [widget.canvas] + ([widget.canvas.after] if widget.canvas.has_after else [])
    for group in groups:
        alpha = 1.0
        for instruction in group.children:
            if isinstance(instruction, Color):
                alpha = instruction.a
            elif isinstance(instruction, (Rectangle, BorderImage, RoundedRectangle, Ellipse)):
                area = instruction.size[0] * instruction.size[1]
                if area and (shown == 0 or alpha == 0):
                    yield area, f"{type(widget).__name__} {getattr(widget, 'text', '')!r:.30}"
    for child in widget.children:
        yield from hidden_quads(child, shown)


def too_large(screen: Widget) -> list[str]:
    window = Window.width * Window.height
    return [f"{owner}: {area / window:.0%} of the window"
            for area, owner in hidden_quads(screen) if area > LARGEST_HIDDEN * window]


@pytest.mark.parametrize("game", list(GAMES))
def test_a_table_draws_no_large_quad_it_hides(table_app: Any, game: str) -> None:
    app = table_app
    open_table(app, game, GAMES[game])
    screen = app.root.current_screen
    assert not too_large(screen)
    app.table.show_notice("A question the table must answer", choices=["confirm", "touch"])
    pump(2)
    shade = screen.ids.message.canvas.before.children
    assert any(isinstance(quad, Rectangle) and tuple(quad.size) == tuple(screen.ids.panel.size) for quad in shade)
    assert not too_large(screen)
    app.table.clear_messages()
    pump(2)
    assert not too_large(screen)


def test_the_rule_finds_a_hidden_overlay(table_app: Any) -> None:
    open_table(table_app, "digger", 2)
    screen = table_app.root.current_screen
    with screen.ids.panel.canvas.after:
        colour, overlay = Color(0, 0, 0, 0), Rectangle(pos=(0, 0), size=Window.size)
    try:
        assert too_large(screen) == ["BoxLayout '': 100% of the window"]
    finally:
        screen.ids.panel.canvas.after.remove(colour)
        screen.ids.panel.canvas.after.remove(overlay)
