"""The sand timer on screen: the engine's Countdown driven by Kivy's clock, warnings by sound and bridge.

The countdown's clock is injected (time.monotonic by default), so tests run a whole turn without
waiting.  Warnings: a short beep at 5 s, a long one at 0, through the speaker and the bridge's buzzer.
"""

from __future__ import annotations

import math
import struct
import tempfile
import time
import wave
from collections.abc import Callable
from pathlib import Path
from typing import Any

from kivy.clock import Clock
from kivy.event import EventDispatcher
from kivy.properties import BooleanProperty, NumericProperty, StringProperty

from companion.engine.countdown import Countdown

TICK_SECONDS = 0.1


def _tone_file(folder: Path, name: str, hertz: float, seconds: float) -> Path:
    """A short sine beep as a WAV file in `folder` (no sound files to ship)."""
    path = folder / f"{name}.wav"
    rate = 22050
    frames = b"".join(struct.pack("<h", int(12000 * math.sin(2 * math.pi * hertz * i / rate)))
                      for i in range(int(rate * seconds)))
    with wave.open(str(path), "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(rate)
        out.writeframes(frames)
    return path


class Sounds:
    """Warning sounds; silently absent when the machine has no audio device.

    The beeps are written on first use into a folder of this process's own (two apps on one machine
    never share a file), removed when the process ends (some audio back ends read the file while playing).
    """

    def __init__(self) -> None:
        self._loaded: dict[str, Any] = {}
        self._folder: tempfile.TemporaryDirectory[str] | None = None

    def play(self, name: str) -> None:
        if name not in self._loaded:
            from kivy.core.audio import SoundLoader

            hertz, seconds = {"warning": (880.0, 0.15), "expired": (440.0, 0.8)}[name]
            if self._folder is None:
                self._folder = tempfile.TemporaryDirectory(prefix="goldtable-sounds-", ignore_cleanup_errors=True)
            try:
                self._loaded[name] = SoundLoader.load(str(_tone_file(Path(self._folder.name), name, hertz, seconds)))
            except Exception:  # noqa: BLE001 — no audio device: the buzzer and the screen still warn
                self._loaded[name] = None
        sound = self._loaded[name]
        if sound is not None:
            sound.stop()
            sound.play()


class TimerModel(EventDispatcher):
    """A countdown shown in large type; `on_warning(mark)` fires at 5 s and at 0 (`on_time_up` too)."""

    remaining = NumericProperty(30.0)
    seconds = NumericProperty(30.0)
    running = BooleanProperty(False)
    expired = BooleanProperty(False)
    started = BooleanProperty(False)
    paused = BooleanProperty(False)
    text = StringProperty("30")

    __events__ = ("on_warning", "on_time_up")

    def __init__(self, clock: Callable[[], float] = time.monotonic, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.countdown = Countdown(self.seconds, clock=clock, on_threshold=self._threshold)
        self._tick = Clock.schedule_interval(self.poll, TICK_SECONDS)
        self._tick.cancel()

    def start(self, seconds: float | None = None) -> None:
        """Turn the sand timer: full length again."""
        if seconds is not None:
            self.seconds = seconds
        self.countdown.start(self.seconds)
        self.expired = self.paused = False
        self._tick()
        self.poll()

    def pause(self) -> None:
        """The hourglass laid flat: the sand stops where it is."""
        self.countdown.stop()
        self._tick.cancel()
        self.poll()
        self.paused = self.countdown.stopped

    def resume(self) -> None:
        """The hourglass stood up again after a pause: the sand runs on from where it stopped."""
        self.countdown.resume()
        self.paused = False
        self._tick()
        self.poll()

    def reset(self, seconds: float | None = None) -> None:
        if seconds is not None:
            self.seconds = seconds
            self.countdown.seconds = float(seconds)
        self.countdown.reset()
        self._tick.cancel()
        self.expired = self.paused = False
        self.poll()

    def poll(self, *_args: Any) -> None:
        """Read the countdown (Kivy clock tick); thresholds call back from inside."""
        self.countdown.poll()
        self.remaining = self.countdown.remaining()
        self.running = self.countdown.running
        self.started = self.countdown.started
        self.text = str(math.ceil(self.remaining)) if self.remaining > 0 else "0"
        if not self.running:
            self._tick.cancel()

    def _threshold(self, mark: float) -> None:
        self.dispatch("on_warning", mark)
        if mark <= 0:
            self.expired = True
            self.dispatch("on_time_up")

    def on_warning(self, mark: float) -> None:
        """Default handler (the app beeps)."""

    def on_time_up(self) -> None:
        """Default handler (the Digger table asks for time up)."""
