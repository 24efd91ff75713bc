"""Small widgets shared by the screens (the score chart is in companion.app.chart)."""

from __future__ import annotations

from typing import Any

from kivy.uix.widget import Widget


def make(class_name: str, **properties: Any) -> Widget:
    """A widget of a kv dynamic class with its kv-declared properties set (they cannot go to __init__)."""
    from kivy.factory import Factory

    widget = getattr(Factory, class_name)()
    for name, value in properties.items():
        setattr(widget, name, value)
    return widget
