"""The on-screen keyboard: on a touch-only table every text field gets Kivy's docked VKeyboard.

Kivy brings the keyboard (`kivy.uix.vkeyboard`, with a layout per language); this module only decides
when to use it and keeps its layout on the app's language: German QWERTZ (with ä ö ü), French AZERTY,
English QWERTY.  A keyboard that is plugged in keeps working too (Kivy's "system and dock" mode).  The
keyboard docks at the bottom; a field it would cover is lifted above it while it is shown.
"""

from __future__ import annotations

import os
from typing import Any

from kivy.app import App
from kivy.clock import Clock
from kivy.core.window import Window
from kivy.uix.vkeyboard import VKeyboard

#: App language -> Kivy keyboard layout (kivy/data/keyboards/<name>.json).
LAYOUTS: dict[str, str] = {"de": "de", "fr": "azerty", "en": "qwerty"}


def keyboard_layout(lang: str) -> str:
    return LAYOUTS.get(lang, "qwerty")


def onscreen_keyboard_wanted() -> bool:
    """On a Raspberry Pi (a kiosk has no keyboard) unless GOLDTABLE_KEYBOARD=system; anywhere with
    GOLDTABLE_KEYBOARD=dock (a PC with a touchscreen, the tests)."""
    from firmware_bridge.machine import raspberry_pi_model

    choice = os.environ.get("GOLDTABLE_KEYBOARD", "")
    if choice in ("dock", "system"):
        return choice == "dock"
    return raspberry_pi_model() is not None


class TableKeyboard(VKeyboard):
    """Kivy's VKeyboard in the layout of the app's language, following a language switch."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        app = App.get_running_app()
        if app is not None:
            self.layout = keyboard_layout(app.lang)
            app.bind(lang=self._follow_language)

    def _follow_language(self, _app: Any, lang: str) -> None:
        self.layout = keyboard_layout(lang)

    def on_parent(self, _keyboard: Any, parent: Any) -> None:
        """Shown: lift the screens so the field being typed in sits just above the keyboard (after Kivy has
        docked and scaled it, hence the next frame); hidden: put them back."""
        if parent is None:
            _lift_screens(0.0)
        else:
            Clock.schedule_once(lambda _dt: self._keep_target_visible(), 0)

    def _keep_target_visible(self) -> None:
        target = self.target
        app = App.get_running_app()
        if target is None or self.parent is None or app is None or app.root is None:
            return
        keyboard_top = self.y + self.height * self.scale
        field_bottom = target.to_window(target.x, target.y)[1] - app.root.y
        _lift_screens(max(0.0, keyboard_top + MARGIN - field_bottom))


#: Space between the keyboard and the field typed in, in pixels.
MARGIN = 6


def _lift_screens(lift: float) -> None:
    app = App.get_running_app()
    if app is not None and app.root is not None:
        app.root.y = lift


def use_onscreen_keyboard(enabled: bool) -> None:
    """Focusing a TextInput shows the docked TableKeyboard (enabled) or only listens to a real keyboard.

    Sets the flags Kivy's `keyboard_mode = systemanddock` sets, at run time, so no config file is needed.
    """
    Window.set_vkeyboard_class(TableKeyboard if enabled else None)
    Window.allow_vkeyboard = enabled
    Window.single_vkeyboard = True
    Window.docked_vkeyboard = enabled
    Window.use_syskeyboard = True
