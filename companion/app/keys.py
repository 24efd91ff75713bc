"""A keyboard at the table: Esc goes back, the table's keys go to the game's controller on any screen.

The keys a table understands are `companion.app.controllers.base.table_key`; a text field with the focus
keeps its keys.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from companion.app.main import GoldtableApp

ESCAPE = 27


class TableKeys:
    """Bound to the window's `on_key_down` at start-up."""

    def __init__(self, app: GoldtableApp) -> None:
        self._app = app

    def on_key_down(self, _window: object, key: int, _scancode: int, codepoint: str | None,
                    modifiers: list[str]) -> bool:
        """Esc goes back (never quits the kiosk); other keys go to the game's controller on any screen,
        unless a text field has the focus."""
        app = self._app
        if key == ESCAPE:
            if app.root.current not in ("home", "table"):
                app.back()
            return True
        from companion.app.controllers.base import table_key

        flow = app.flow
        focused = any(getattr(widget, "focus", False) for widget in app.root.walk(restrict=True))
        if focused or flow.controller is None or not table_key(key, codepoint, modifiers):
            return False
        app.journal_desk.in_turn(lambda: flow.controller.on_key(key, codepoint, modifiers))
        return True
