"""Driving the headless app like a finger: find a visible, enabled widget by its text and tap it."""

from __future__ import annotations

from typing import Any, Iterator

from kivy.tests.common import UnitTestTouch
from kivy.uix.button import ButtonBehavior
from kivy.uix.label import Label
from kivy.uix.widget import Widget

from companion.app.launch import pump


def visible_widgets(root: Widget) -> Iterator[Widget]:
    """Widgets that are drawn (opacity above 0 all the way up) and have a size."""
    stack = [root]
    while stack:
        widget = stack.pop()
        if widget.opacity == 0 or widget.width <= 0 or widget.height <= 0:
            continue
        yield widget
        stack.extend(widget.children)


def find_button(app: Any, text: str) -> Widget:
    screen = app.root.current_screen
    matches = [w for w in visible_widgets(screen) if isinstance(w, ButtonBehavior) and isinstance(w, Label)
               and w.text == text and not w.disabled]
    if not matches:
        shown = sorted({w.text for w in visible_widgets(screen) if isinstance(w, ButtonBehavior)
                        and isinstance(w, Label)})
        raise AssertionError(f"no enabled button {text!r} on {app.root.current}; buttons: {shown}")
    return matches[0]


def tap(app: Any, text: str, frames: int = 1) -> None:
    """Touch down and up in the middle of the button, through Kivy's input dispatch."""
    button = find_button(app, text)
    x, y = button.to_window(*button.center)
    touch = UnitTestTouch(x, y)
    touch.touch_down()
    touch.touch_up()
    pump(frames)


def label_texts(app: Any) -> list[str]:
    return [w.text for w in visible_widgets(app.root.current_screen) if isinstance(w, Label) and w.text]
