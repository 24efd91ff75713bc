"""A short message over whatever screen is showing (e.g. a roll arrived while no game is being played).

Controllers announce through it; the banner (`companion.app.screens.AnnouncementBanner`) draws `text`.
"""

from __future__ import annotations

from typing import Any

from kivy.clock import Clock, ClockEvent
from kivy.event import EventDispatcher
from kivy.properties import StringProperty

#: How long an announcement stays up.
SHOWN_SECONDS = 6


class Announcer(EventDispatcher):
    """`text` is shown for a few seconds after `announce`; a new one replaces it and starts the time again."""

    text = StringProperty("")

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._clear_event: ClockEvent | None = None

    def announce(self, text: str) -> None:
        """Show `text` over whatever screen is showing for a few seconds."""
        self.text = text
        if self._clear_event is not None:
            self._clear_event.cancel()
        self._clear_event = Clock.schedule_once(lambda _dt: setattr(self, "text", ""), SHOWN_SECONDS)
