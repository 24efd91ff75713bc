"""Driving the headless app like a finger: find a visible, enabled widget by its text and tap it."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from kivy.uix.button import ButtonBehavior
from kivy.uix.label import Label
from kivy.uix.scrollview import ScrollView
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


def scroll_views_around(widget: Widget) -> Iterator[ScrollView]:
    """The scroll views the widget lies in, innermost first."""
    parent = widget.parent
    while parent is not None and parent is not parent.parent:
        if isinstance(parent, ScrollView):
            yield parent
        parent = parent.parent


def on_screen(widget: Widget) -> bool:
    """The widget's centre is inside every scroll view around it (not scrolled out of sight)."""
    x, y = widget.to_window(*widget.center)
    for scroll in scroll_views_around(widget):
        left, bottom = scroll.to_window(scroll.x, scroll.y)
        if not (left <= x <= left + scroll.width and bottom <= y <= bottom + scroll.height):
            return False
    return True


def buttons(app: Any, text: str, disabled: bool = False) -> list[Widget]:
    """The visible buttons with this text on the current screen, enabled ones or (`disabled`) greyed-out ones."""
    return [w for w in visible_widgets(app.root.current_screen) if isinstance(w, ButtonBehavior)
            and isinstance(w, Label) and w.text == text and w.disabled == disabled and on_screen(w)]


def find_button(app: Any, text: str) -> Widget:
    matches = buttons(app, text)
    if not matches:
        shown = sorted({w.text for w in visible_widgets(app.root.current_screen) if isinstance(w, ButtonBehavior)
                        and isinstance(w, Label)})
        raise AssertionError(f"no enabled button {text!r} on {app.root.current}; buttons: {shown}")
    return matches[0]


def tap(app: Any, text: str, frames: int = 1) -> None:
    """Touch down and up in the middle of the button, through Kivy's input dispatch."""
    from kivy.tests.common import UnitTestTouch  # imports pytest: not at module level, for the benchmarks

    button = find_button(app, text)
    x, y = button.to_window(*button.center)
    touch = UnitTestTouch(x, y)
    touch.touch_down()
    touch.touch_up()
    pump(frames)


def label_texts(app: Any) -> list[str]:
    return [w.text for w in visible_widgets(app.root.current_screen) if isinstance(w, Label) and w.text]


def history_read(model: Any, timeout: float = 120.0) -> None:
    """Frames until History's reading of the journal is done (it runs on a worker thread and hands its
    games over through Kivy's Clock)."""
    until(lambda: not model.loading, "History to finish reading the journal", timeout)


def until(test: Callable[[], object], what: str, timeout: float = 30.0) -> None:
    """Frames (or, for a model alone, ticks of Kivy's Clock) until `test()` holds: work on a thread of its
    own hands its answer over through the Clock."""
    import time

    from kivy.app import App
    from kivy.clock import Clock

    deadline = time.monotonic() + timeout
    while not test():
        if time.monotonic() > deadline:
            raise AssertionError(f"waited {timeout:g} s for {what}")
        time.sleep(0.01)  # the threads whose answer is awaited get their turn
        if App.get_running_app() is None:  # a model alone: no frames before the shared app's first one
            Clock.tick()
        else:
            pump(1)
