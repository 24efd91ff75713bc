"""Small widgets shared by the screens: the grid of choice buttons and the table screens' two size rules
(docs/design.md).  The score chart is in companion.app.chart."""

from __future__ import annotations

from typing import Any

from kivy.uix.gridlayout import GridLayout
from kivy.uix.widget import Widget

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
