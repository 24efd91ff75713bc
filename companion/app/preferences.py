"""The Settings screen's part of the app: what the user chose, saved at once and applied at once.

Kv binds to it as `app.preferences` (`app.preferences.settings.sound`, `app.preferences.set_language("de")`).
The language itself is the App's `lang`, which every screen's text is bound to; this object only changes it.
"""

from __future__ import annotations

import time
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kivy.clock import Clock
from kivy.core.window import Window
from kivy.event import EventDispatcher
from kivy.properties import BooleanProperty, ObjectProperty

from companion.app import i18n
from companion.app.i18n import _, tr
from companion.app.journal_desk import notice_text
from companion.app.saving import saver
from companion.app.settings import AppSettings, load_settings

if TYPE_CHECKING:
    from companion.app.main import GoldtableApp
    from companion.engine.journal import Notice


class Preferences(EventDispatcher):
    """The app's settings (`settings`, read once at start) and the Settings screen's switches and fields."""

    #: The window fills the screen now (the setting, `--fullscreen` or a Raspberry Pi at start; Settings' switch).
    fullscreen = BooleanProperty(False)
    #: Why the settings or the timer's choices could not be saved on the card (a journal `Notice`, None when
    #: they were): Settings and Timer & voice say it, since the choice lasts only until the app closes.
    save_problem = ObjectProperty(None, allownone=True)

    def __init__(self, app: GoldtableApp, settings_file: Path, serial_url: str | None = None,
                 **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._app = app
        self.settings_file = settings_file
        self.settings: AppSettings = load_settings(settings_file)
        if serial_url is not None:
            self.settings = self.settings.model_copy(update={"serial_url": serial_url})
        self._unsaved: dict[Path, Notice] = {}
        saver.listen(self._written)

    def _written(self, path: Path, error: OSError | None) -> None:
        """On the saver's thread: why it failed is asked of the card here (it may be slow), the outcome goes
        to the screen's thread."""
        problem = None
        if error is not None:
            from companion.engine.journal_triage import why_not_writable

            problem = why_not_writable(path, error)
        Clock.schedule_once(lambda _dt: self._saved(path, problem))

    def _saved(self, path: Path, problem: Notice | None) -> None:
        if problem is None:
            self._unsaved.pop(path, None)
        else:
            self._unsaved[path] = problem
        self.save_problem = next(iter(self._unsaved.values()), None)

    @staticmethod
    def unsaved_text(problem: Notice | None, language: str) -> str:
        """What Settings and Timer & voice say while `save_problem` is set ("" when it is None); kv passes
        both properties, so the sentence follows a new problem and a new language."""
        if problem is None:
            return ""
        return tr("Could not save the settings: {problem}. They apply until Goldtable closes.",
                  language).format(problem=notice_text(problem, language))

    def set_language(self, language: str) -> None:
        """Switch every screen's text at once (kv rules rebind on `app.lang`; view-models recompute)."""
        self.update(language=language)
        app = self._app
        app.lang = i18n.set_language(language)
        if app.table is not None:
            app.table.relabel()
        app.journal_desk.refresh_resume()

    def save(self) -> None:
        """On the card soon, by the saver thread: a tap never waits for the card."""
        saver.save(self.settings_file, self.settings.to_json())

    def set_fullscreen(self, on: bool) -> None:
        """Settings' switch. Drawn, it takes the window's state, which must not save it as the setting (a
        kiosk's `--fullscreen` would otherwise become the setting of every later start)."""
        if on != self.fullscreen:
            self.update(fullscreen=on)

    def update(self, **changes: Any) -> None:
        self.settings = self.settings.model_copy(update=changes)
        self.save()
        if "fullscreen" in changes:
            Window.fullscreen = "auto" if changes["fullscreen"] else False
            self.fullscreen = changes["fullscreen"]

    def play_sound(self, name: str) -> None:
        """A warning through the speaker, when the sound setting is on."""
        if self.settings.sound and self._app.sounds is not None:
            self._app.sounds.play(name)

    def apply_serial(self, url: str) -> str:
        """Settings: attach a serial sensor now; returns a message for the screen."""
        url = url.strip()
        hardware = self._app.hardware
        if hardware is None:
            return _("The hardware is still starting; try again in a moment.")
        from firmware_bridge.serial_source import SerialSource

        try:
            source = SerialSource(url or None)
        except ValueError as error:
            return str(error)
        self.update(serial_url=url)
        hardware.replace_source(source)
        if not url:
            return _("No address given: Goldtable looks for the sensor board on USB (a Raspberry Pi Pico).")
        return _("Serial sensor {url} added.").format(url=url)

    def apply_camera(self, url: str) -> str:
        """Settings: use the camera at `url` now (empty: none); returns a message for the screen."""
        url = url.strip()
        hardware = self._app.hardware
        if hardware is None:
            return _("The hardware is still starting; try again in a moment.")
        from companion.app.hardware import camera_source
        from companion.engine.errors import UserError

        if url:
            try:
                source = camera_source(url)
            except ImportError:
                return _("The camera needs OpenCV: sudo apt install python3-opencv")
            except UserError as error:
                return str(error)
        self.update(camera_url=url)
        hardware.remove_camera()
        if not url:
            return _("No camera: rolls are entered by touch, buttons or the sensor board.")
        hardware.replace_source(source)  # once attached, it reads what the table last said is due
        return _("Camera {url} added; calibrate it on the Hardware screen.").format(url=url)

    def system_action(self, action: str) -> None:
        """Settings, after its confirmation step: "quit", "restart" (the app) or "shutdown" (the Pi).
        Every move is already journalled, so stopping loses nothing.  An export still on its way to the USB
        stick is waited for first, with the screen saying so (`_once_exported`)."""
        from companion.app import saving
        from companion.app.history import exports
        from companion.system import power

        if not exports.idle:
            self._once_exported(action, time.monotonic() + saving.CLOSE_SECONDS)
            return
        if action == "shutdown":
            problem = power.power_off()
            if problem is not None:
                self._app.screen("settings").message = _("The Pi could not be shut down: {problem}").format(
                    problem=problem)
                return
        self._app.stop()
        if action == "restart":
            power.restart()

    def _once_exported(self, action: str, give_up_at: float, _dt: float = 0.0) -> None:
        """Quit, restart or shut down once the exports on their way are on the stick, looking every fifth of
        a second meanwhile, unless the question is cancelled.  A stick that stopped answering keeps its write
        in the kernel: Quit then goes anyway (the window closes; the process ends when the stick is taken
        out), but Restart cannot, as the new app replaces this process only once that write has ended, and
        the screen would freeze till then; nor should Shut down, which would wait for that write while the
        Pi stops, on timeouts of a minute and more, and leave the stick unclean."""
        from companion.app.history import exports

        screen = self._app.screen("settings")
        if screen.confirm != action:  # Cancel tapped meanwhile (or Settings left): the app stays
            screen.message = ""
        elif exports.idle:
            screen.message = ""
            self.system_action(action)
        elif time.monotonic() < give_up_at:
            screen.message = _("Saving to the USB stick first…")
            Clock.schedule_once(partial(self._once_exported, action, give_up_at), 0.2)
        elif action == "quit":
            self._app.stop_by(give_up_at)
        elif action == "restart":
            screen.message = _("The USB stick does not answer. Take it out, then tap Restart again.")
        else:
            screen.message = _("The USB stick does not answer. Take it out, then tap Shut down again.")
