"""Small widgets shared by the screens: the score chart (Kivy graphics), the grid of choice buttons, and
the table screens' two size rules (docs/design.md)."""

from __future__ import annotations

from typing import Any

from kivy.graphics import Color, Line, Rectangle
from kivy.properties import ListProperty, NumericProperty
from kivy.uix.gridlayout import GridLayout
from kivy.uix.widget import Widget
from kivy.utils import get_color_from_hex

#: Smallest side of anything tapped on a table screen (48 px is about 9 mm on the 7" 800x480 display).
MIN_TAP_PX = 48
#: Smallest font size of game information on a table screen, readable from a chair at the table.
MIN_TEXT_SP = 18


def make(class_name: str, **properties: Any) -> Widget:
    """A widget of a kv dynamic class with its kv-declared properties set (they cannot go to __init__)."""
    from kivy.factory import Factory

    widget = getattr(Factory, class_name)()
    for name, value in properties.items():
        setattr(widget, name, value)
    return widget


class ChoiceGrid(GridLayout):
    """Choice or dice buttons of a table panel in rows of `MIN_TAP_PX`, whatever height a panel gives a
    button, so no game can make a tap target too small (rule in widgets.kv)."""

    def add_widget(self, widget: Widget, *args: Any, **kwargs: Any) -> None:
        widget.size_hint_y = 1  # take the forced row height
        super().add_widget(widget, *args, **kwargs)


class ScoreChart(Widget):
    """Score of every seat after every action, one polyline per seat, drawn with canvas instructions."""

    history = ListProperty([])
    colours = ListProperty([])
    padding = NumericProperty(24)

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.bind(pos=self._redraw, size=self._redraw, history=self._redraw, colours=self._redraw)

    def _redraw(self, *_args: Any) -> None:
        self.canvas.clear()
        history = self.history
        if not history or not history[0]:
            return
        pad = self.padding
        left, bottom = self.x + pad, self.y + pad
        width, height = max(self.width - 2 * pad, 1), max(self.height - 2 * pad, 1)
        top_score = max(max(row) for row in history) or 1
        steps = max(len(history) - 1, 1)
        with self.canvas:
            Color(1, 1, 1, 0.08)
            Rectangle(pos=(left, bottom), size=(width, height))
            Color(1, 1, 1, 0.5)
            Line(points=[left, bottom + height, left, bottom, left + width, bottom], width=1)
            for seat in range(len(history[0])):
                colour = self.colours[seat] if seat < len(self.colours) else "#cccccc"
                Color(*get_color_from_hex(colour))
                points: list[float] = []
                for index, row in enumerate(history):
                    points += [left + width * index / steps, bottom + height * row[seat] / top_score]
                Line(points=points, width=2.0)
