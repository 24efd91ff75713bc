"""The chess clock at the table (games without a sand timer): the engine's TimeBank on Kivy's clock.

`ClockModel` follows the Table view-model: when the engine names a new player, that player's clock
runs.  The hourglass tilt switch pauses (laid flat) and resumes (stood up); the next button resumes
after a break.  Alerts beep through the caller's `on_alert` and, when switched on, are spoken.
Its settings live in their own small file beside the journal (`clocks.json`), off by default.
"""

from __future__ import annotations

import json
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from kivy.clock import Clock
from kivy.event import EventDispatcher
from kivy.properties import BooleanProperty, ListProperty, NumericProperty, StringProperty

from companion.app.i18n import _
from companion.app.settings import data_dir
from companion.app.speech import Speaker
from companion.engine.timebank import Alert, TimeBank, clock_text
from companion.engine.timebank import Clock as MonotonicClock

TICK_SECONDS = 0.2
#: Games that time their turns with a sand timer of their own (Digger's hourglass) keep it.
OWN_TIMER = frozenset({"digger"})


@dataclass(frozen=True)
class ClockSettings:
    """Chess clock and voice, as chosen on the Timer screen.  0 minutes/seconds means "none"."""

    clock: bool = False
    bank_minutes: int = 0
    turn_seconds: int = 0
    speech: bool = False

    @classmethod
    def load(cls, path: Path | None = None) -> ClockSettings:
        """The saved choices; defaults for a missing file or a wrong value (never stops the app)."""
        try:
            raw = json.loads((path or clocks_path()).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return cls()
        if not isinstance(raw, dict):
            return cls()
        default = cls()
        values: dict[str, Any] = {}
        for name in ("clock", "speech"):
            values[name] = raw[name] if isinstance(raw.get(name), bool) else getattr(default, name)
        for name, top in (("bank_minutes", 180), ("turn_seconds", 600)):
            value = raw.get(name)
            ok = isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= top
            values[name] = value if ok else getattr(default, name)
        return cls(**values)

    def save(self, path: Path | None = None) -> None:
        """Written atomically (temp file, then rename)."""
        path = path or clocks_path()
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary = path.with_suffix(".tmp")
        temporary.write_text(json.dumps(asdict(self), indent=2), encoding="utf-8")
        temporary.replace(path)


def clocks_path() -> Path:
    return data_dir() / "clocks.json"


class ClockModel(EventDispatcher):
    """What the table's clock bar shows.  `active` is False for games with their own timer or when the
    chess clock is off; then nothing runs."""

    active = BooleanProperty(False)
    paused = BooleanProperty(False)
    overtime = BooleanProperty(False)
    seat = NumericProperty(-1)
    bank_text = StringProperty("")
    turn_text = StringProperty("")
    totals = ListProperty([])  # [{"name", "used"}] for the End screen

    __events__ = ("on_alert",)

    def __init__(self, speaker: Speaker | None = None, clock: MonotonicClock = time.monotonic,
                 **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.speaker = speaker or Speaker()
        self._clock = clock
        self._bank: TimeBank | None = None
        self._names: tuple[str, ...] = ()
        self._tick: Any = None

    # -- a game starts or ends -----------------------------------------------------------------------
    def start(self, game_id: str, names: tuple[str, ...], settings: ClockSettings) -> None:
        """A new or resumed game: a fresh clock when this game uses the chess clock."""
        self.stop()
        self.speaker.enabled = settings.speech
        self._names = names
        self.seat = -1
        self.totals = []
        if game_id in OWN_TIMER or not settings.clock:
            self.active = False
            return
        self._bank = TimeBank(len(names), bank_seconds=settings.bank_minutes * 60 or None,
                              turn_seconds=settings.turn_seconds or None, clock=self._clock)
        self.active = True
        self._tick = Clock.schedule_interval(lambda _dt: self.update(), TICK_SECONDS)

    def stop(self) -> None:
        """The game is over or left: keep the totals for the End screen, stop ticking."""
        if self._tick is not None:
            self._tick.cancel()
            self._tick = None
        if self._bank is not None:
            self.totals = [{"name": name, "used": clock_text(used, left=False)}
                           for name, used in zip(self._names, self._bank.totals())]
            self._bank.pause()
        self._bank = None
        self.active = False

    # -- what happens at the table -------------------------------------------------------------------
    def player(self, seat: int) -> None:
        """The engine names whose input is due (call after every accepted action and undo)."""
        if seat < 0 or seat == self.seat:
            return
        self.seat = seat
        if self._bank is not None:
            self._bank.start_turn(seat)
        if seat < len(self._names):
            self.speaker.turn(self._names[seat])
        self.update()

    def hourglass(self, flat: bool) -> None:
        """The tilt switch: laid flat pauses the running clock, stood up resumes it."""
        if self._bank is None:
            return
        if flat:
            self._bank.pause()
        else:
            self._bank.resume()
        self.update()

    def next_pressed(self) -> None:
        """The next button after a break: the clock runs again."""
        self.hourglass(flat=False)

    def toggle_pause(self) -> None:
        """The on-screen pause button."""
        self.hourglass(flat=not self.paused)

    def update(self) -> None:
        """Refresh the shown texts and raise the alerts that fell due."""
        if self._bank is None:
            return
        reading = self._bank.reading()
        self.paused = reading.paused
        self.overtime = reading.overtime
        self.bank_text = "" if reading.bank_left is None else clock_text(reading.bank_left)
        self.turn_text = clock_text(reading.turn_left) if reading.turn_left is not None \
            else clock_text(reading.turn_used, left=False)
        for alert in self._bank.poll():
            self.dispatch("on_alert", alert)

    def on_alert(self, alert: Alert) -> None:
        """Speak the alert (when speech is on); the app also beeps."""
        name = self._names[alert.seat]
        if alert.kind.endswith("_low"):
            self.speaker.time_low(name)
        else:
            self.speaker.time_over(name)

    def summary(self) -> str:
        """Time per player, one line, for the End screen ("" when no clock ran)."""
        return "  ".join(_("{name}: {time}").format(name=entry["name"], time=entry["used"]) for entry in self.totals)
