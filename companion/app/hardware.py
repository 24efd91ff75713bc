"""The app's side of the hardware bridge: sources from the settings, events onto the UI thread.

Bridge callbacks arrive on reader threads; they only schedule work with `Clock.schedule_once`, which
is thread-safe.  Starting sources, sending LED/beeper commands and answering the sensor (`settle`) run
on a worker thread, so a slow serial port never freezes the screen.  A source that fails to start is
listed in `problems` and the others run on; touch always works.  On a PC without GPIO the keyboard
stands in for the buttons.

A GTP/1 sensor is answered only when the app settles the event: `$ACK` after the session journalled
it (ACK means "recorded"), `$NAK` when it was refused.  That is later than `on_event` returning: the
journal commits on its writer thread, and the table controller settles the frame once the row is on
disk; the device resends until then.
"""

from __future__ import annotations

import logging
import queue
import re
import threading
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from kivy.clock import Clock
from kivy.event import EventDispatcher
from kivy.properties import BooleanProperty, ListProperty

from companion.engine.core import N_
from companion.engine.errors import UserError
from firmware_bridge.events import (
    STATUS_DETAILS,
    BeepCommand,
    BridgeEvent,
    ButtonEvent,
    LedCommand,
    RollEvent,
    RollingEvent,
    StatusEvent,
    TimerEvent,
)
from firmware_bridge.hub import Bridge, Source
from firmware_bridge.protocol import nak_reason

if TYPE_CHECKING:
    from companion.camera.reader import Reader, Reading
    from companion.camera.vision import Image
    from firmware_bridge.camera_source import CameraSource

log = logging.getLogger(__name__)

RECENT_EVENTS = 12


def on_raspberry_pi() -> bool:
    """True on a Raspberry Pi (its device tree names the model), where GPIO pins exist."""
    try:
        return "Raspberry Pi" in Path("/proc/device-tree/model").read_text(errors="replace")
    except OSError:
        return False


def default_sources(gpio: bool, serial_url: str, camera_url: str = "") -> tuple[list[Source], list[str]]:
    """GPIO (the shipped pin map) when asked for and on a Pi, the serial sensor: the configured URL, or
    else a Pico found by its USB id whenever it is plugged in, and the camera when one is configured;
    plus one line per source that could not be set up (shown on the Hardware screen; touch still works)."""
    sources: list[Source] = []
    problems: list[str] = []
    if gpio and on_raspberry_pi():
        from firmware_bridge.config import load_pin_map
        from firmware_bridge.gpio import GpioSource

        try:
            sources.append(GpioSource(load_pin_map()))
        except Exception as error:  # noqa: BLE001 — a bad pin map must not keep the table from playing
            problems.append(f"gpio: {error}")
    from firmware_bridge.serial_source import SerialSource

    try:
        sources.append(SerialSource(serial_url or None))
    except ValueError as error:
        problems.append(f"serial {serial_url}: {error}")
    if camera_url:
        try:
            sources.append(camera_source(camera_url))
        except (UserError, ImportError) as error:
            problems.append(f"camera {camera_url}: {error}")
    return sources, problems


def camera_source(url: str) -> Source:
    """The camera at `url`, reading nothing until a table's game gives it a profile (UserError for an
    address that can never work; ImportError without OpenCV)."""
    import cv2  # noqa: F401 — the camera needs OpenCV: say so now, not on its reader thread

    from firmware_bridge.camera_source import CameraSource

    return CameraSource(url)


class CameraDoubts(NamedTuple):
    """Why the camera asks about a roll: the dice it doubts (in the roll's order), whether only because they
    touch each other or the wall (a die may be cocked there, its face read clearly), and its reasons
    (English, marked for translation)."""

    dice: list[int]
    only_may_lean: bool
    reasons: tuple[str, ...]


class HardwareLink(EventDispatcher):
    """Owns the Bridge; `on_event` fires on the UI thread for every bridge event."""

    sources = ListProperty([])
    recent = ListProperty([])
    problems = ListProperty([])
    simulated = BooleanProperty(True)

    __events__ = ("on_event",)

    def __init__(self, sources: list[Source] | None = None, problems: list[str] | None = None,
                 **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.problems = list(problems or [])
        self.bridge = Bridge()
        self._to_start = list(sources or [])  # started one by one on the worker: one failing keeps none back
        #: What the table last said the camera is to read: its game and the dice due (`expect_dice`).
        self._camera_game: str | None = None
        self._camera_dice: list[tuple[str, ...]] = []
        self.simulated = not any(source.name.startswith("gpio") for source in self._to_start)
        self._unsubscribe: Callable[[], None] | None = None
        self._work: queue.Queue[Callable[[], object] | None] = queue.Queue()
        self._worker = threading.Thread(target=self._run_worker, name="goldtable-hardware", daemon=True)
        self._worker.start()
        self._status_event = Clock.schedule_interval(lambda _dt: self.refresh_status(), 1.0)

    # -- life cycle ----------------------------------------------------------------------------------
    def start(self) -> None:
        """Subscribe, then start the sources on the worker thread."""
        if self._unsubscribe is None:
            self._unsubscribe = self.bridge.subscribe(self._from_source_thread)
        self._work.put(self._start_bridge)

    def _start_bridge(self) -> None:
        """Worker thread: start each source; one that fails is listed in `problems`, the rest run."""
        self.bridge.start()
        failed: list[str] = []
        to_start, self._to_start = self._to_start, []
        for source in to_start:
            try:
                self.bridge.add_source(source)
            except Exception as error:  # noqa: BLE001 — a missing port or pin must not stop the app
                log.warning("hardware source %s did not start: %s", source.name, error)
                failed.append(f"{source.name}: {error}")
        Clock.schedule_once(partial(self._started, failed))

    def _started(self, failed: list[str], _dt: float = 0.0) -> None:
        if failed:
            self.problems = [*self.problems, *failed]
            self.simulated = not any(source.name.startswith("gpio") for source in self.bridge.sources)
        self.refresh_status()

    def stop(self) -> None:
        """Stop the sources and the worker (called when the app closes)."""
        self._status_event.cancel()
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None
        self.bridge.stop()
        self._work.put(None)

    def add_source(self, source: Source) -> None:
        """Attach a source at run time (tests: mock pins, a file source standing in for the camera)."""
        self.bridge.add_source(source)
        self.simulated = not any(known.name.startswith("gpio") for known in self.bridge.sources)
        self._attached(source)

    def replace_source(self, source: Source) -> None:
        """Attach `source` in place of the one with its name (Settings: the sensor or the camera at another
        address), on the worker thread: stopping a serial source waits for its reader thread."""
        def replace() -> None:
            self.bridge.replace_source(source)
            Clock.schedule_once(lambda _dt: self._attached(source))

        self._work.put(replace)

    def _attached(self, source: Source) -> None:
        """UI thread, a source attached at run time: the status shows it, and a camera reads what the table
        last said is due, with its game's profile."""
        self.refresh_status()
        if source is self.camera:
            self.reload_camera_profile()

    # -- threads -------------------------------------------------------------------------------------
    def _run_worker(self) -> None:
        while True:
            job = self._work.get()
            if job is None:
                return
            try:
                job()
            except Exception:
                log.exception("hardware job failed")

    def _from_source_thread(self, event: BridgeEvent) -> None:
        """Runs on a source thread: hand the event to the UI thread and return at once."""
        Clock.schedule_once(partial(self._deliver, event), -1)

    def _deliver(self, event: BridgeEvent, _dt: float = 0.0) -> None:
        """UI thread: show the event and hand it to the app, whose table controller answers the device
        (`settle`) once the session has journalled the input, or refused it.  Nothing is acknowledged
        here: an ACK means "recorded", and an uncertain roll stays unanswered while the table decides."""
        self._note(event)
        if isinstance(event, StatusEvent):
            self.refresh_status()
        self.dispatch("on_event", event)

    # -- answering the sensor ------------------------------------------------------------------------
    def settle(self, event: BridgeEvent, recorded: bool, reason: str | None = None) -> None:
        """Answer the device that sent `event`: `recorded` once the session journalled it (`$ACK`), else
        refused with a short reason code (`$NAK`, e.g. the refusal's code or `no_game`).  Call it after
        `Session.submit` returned; it hands the answer to the worker thread and returns at once.  A
        reason that cannot go on the wire raises ValueError here."""
        if not recorded:
            nak_reason(reason)
        if event.seq is not None:
            self._work.put(partial(self.bridge.settle, event, recorded, reason))

    def on_event(self, event: BridgeEvent) -> None:
        """Default handler; the app binds its own."""

    def _note(self, event: BridgeEvent) -> None:
        self.recent = [*self.recent[-(RECENT_EVENTS - 1):], event]

    def refresh_status(self) -> None:
        """Re-read each source's description for the Hardware screen."""
        status = []
        for source in self.bridge.sources:
            try:
                info = dict(source.describe())
                info["connected"] = bool(source.connected)
            except Exception as error:  # noqa: BLE001 — show the problem instead of failing the screen
                info = {"connected": False, "error": str(error)}
            info.setdefault("name", source.name)
            status.append(info)
        if status != list(self.sources):
            self.sources = status

    # -- the camera ----------------------------------------------------------------------------------
    @property
    def camera(self) -> CameraSource | None:
        """The camera source, or None without one."""
        from firmware_bridge.camera_source import CameraSource

        return next((source for source in [*self.bridge.sources, *self._to_start]
                     if isinstance(source, CameraSource)), None)

    def expect_dice(self, game: str | None, dice: list[tuple[str, ...]]) -> None:
        """The table's game and the dice due now (none: nothing to read); the camera reads with that game's
        profile from the data folder, once it has one.  Kept for a camera attached later."""
        new_game = game != self._camera_game
        self._camera_game, self._camera_dice = game, dice
        camera = self.camera
        if camera is None:
            return
        if new_game:
            self.reload_camera_profile()
        else:
            camera.set_dice(dice)

    def reload_camera_profile(self) -> None:
        """Read the table's game's profile again (after calibrating or teaching on the Hardware screen, or for
        a new game), on the worker: a Pi takes tens of milliseconds to parse one, and a table is opening.  A
        profile of another game is dropped at once, so the camera reads nothing meanwhile; a damaged profile
        is a problem on the Hardware screen, and the camera reads nothing."""
        camera = self.camera
        if camera is None:
            return
        game = self._camera_game
        if camera.profile is not None and camera.profile.game != game:
            camera.use_profile(None)
        self._work.put(partial(self._load_camera_profile, camera, game))

    def _load_camera_profile(self, camera: CameraSource, game: str | None) -> None:
        """Worker thread: the profile `reload_camera_profile` asked for, handed to the UI thread."""
        from companion.camera.profile import known_profile, profile_path
        from companion.camera.reader import Reader

        reader, problem = None, None
        path = None if game is None else profile_path(game)
        if path is not None and path.exists():
            try:
                profile = known_profile(path, game)
                reader = None if profile.untaught() else Reader(profile, walls=False)
            except UserError as error:
                problem = str(error)
        Clock.schedule_once(lambda _dt: self._use_camera_reader(camera, game, reader, problem))

    def _use_camera_reader(self, camera: CameraSource, game: str | None, reader: Reader | None,
                           problem: str | None) -> None:
        """UI thread: the camera reads with the profile just read, unless the table or the camera changed
        since it was asked for (a later reload brings the right one)."""
        if camera is not self.camera or game != self._camera_game:
            return
        if problem is not None:
            self.problems = [*self.problems, problem]
        camera.use_profile(None if reader is None else reader.profile, reader=reader)
        camera.set_dice(self._camera_dice)  # a profile taught between rolls reads nothing until the next
        self.refresh_status()

    def remove_camera(self) -> None:
        """Stop and drop the camera (Settings: another address, or none)."""
        camera = self.camera
        if camera is not None:
            self._work.put(lambda: self.bridge.remove_source(camera.name))

    def crops(self, event: BridgeEvent | None) -> list[Image] | None:
        """The camera's picture of each die of a roll it read (BGR arrays, in the roll's order), else None."""
        reading = self._camera_reading(event)
        return None if reading is None else [die.patch for die in reading.dice]

    def camera_doubts(self, event: BridgeEvent | None) -> CameraDoubts | None:
        """Why the camera asks about a roll it read, and which of its dice (None: no reading kept)."""
        reading = self._camera_reading(event)
        if reading is None:
            return None
        return CameraDoubts(reading.values()[1], reading.only_may_lean, reading.reasons)

    def _camera_reading(self, event: BridgeEvent | None) -> Reading | None:
        """The camera's reading behind one of its roll events, while the camera keeps it."""
        camera = self.camera
        return None if camera is None or event is None else camera.reading_for(event)

    # -- outputs -------------------------------------------------------------------------------------
    def send(self, command: LedCommand | BeepCommand) -> None:
        """Queue an LED or beeper command for the worker thread."""
        self._work.put(partial(self.bridge.send, command))

    def beep(self, ms: int) -> None:
        self.send(BeepCommand(ms=ms))

    def led(self, name: str, mode: str) -> None:
        self.send(LedCommand(name=name, mode=mode))  # type: ignore[arg-type]


#: How a source that went away is said, in the Hardware screen's log and in the table's notice.
GONE_WORDS = {"disconnected": N_("disconnected"), "link_lost": N_("link lost (no heartbeat)")}
#: How the Hardware screen names the sources the app makes (a source named otherwise keeps its name).
SOURCE_WORDS = {"gpio": N_("GPIO pins"), "serial": N_("serial sensor"), "camera": N_("camera")}
_GPIO_CONNECTED = re.compile(r"^(\d+) inputs, (\d+) LEDs via (\S+)$")  # firmware_bridge.gpio's detail
#: The bridge's status details as patterns, each field of its template caught by name.
_DETAILS = [(template, re.compile(re.sub(r"\\\{(\w+)\\\}", r"(?P<\1>.+)", re.escape(template))))
            for template in STATUS_DETAILS]


def labelled(label: str, value: str, language: str | None = None) -> str:
    """`label: value` as `language` writes it (French puts a space before the colon)."""
    from companion.app.i18n import tr

    return tr("{label}: {value}", language).format(label=label, value=value)


def source_word(name: str, language: str | None = None) -> str:
    from companion.app.i18n import tr

    return tr(SOURCE_WORDS[name], language) if name in SOURCE_WORDS else name


def detail_text(detail: str, language: str | None = None) -> str:
    """A source's status detail in `language`: one of the bridge's own sentences said anew, anything else
    (an address, the system's error) as it is."""
    from companion.app.i18n import tr

    for template, pattern in _DETAILS:
        found = pattern.fullmatch(detail)
        if found is not None:
            return tr(template, language).format(**found.groupdict())
    return detail


def event_line(event: BridgeEvent, language: str | None = None) -> str:
    """One short line per bridge event for the Hardware screen in `language` (the app's if None), e.g.
    `sensor: roll Y R B K G` (faces are the wire's tokens, as the keyboard enters them)."""
    from companion.app.i18n import ntr, tr

    if isinstance(event, RollEvent):
        what = tr("roll {faces}", language).format(faces=" ".join(event.values))
        if event.uncertain:
            what = tr("{roll} (unsure)", language).format(roll=what)
    elif isinstance(event, RollingEvent):
        what = tr("dice rolling", language)
    elif isinstance(event, ButtonEvent):
        what = {"down": tr("button {name} pressed", language), "up": tr("button {name} released", language),
                "held": tr("button {name} held", language)}[event.action].format(name=event.name)
    elif isinstance(event, TimerEvent):
        what = tr("hourglass turned over", language) if event.state == "flip" else tr("hourglass laid flat", language)
    elif isinstance(event, StatusEvent):
        what = {"connected": tr("connected", language), "hello": tr("device {device}, firmware {firmware}", language),
                **{state: tr(words, language) for state, words in GONE_WORDS.items()}}[event.state].format(
                    device=event.device, firmware=event.firmware)
        found = _GPIO_CONNECTED.match(event.detail or "")
        if found:
            inputs, leds = int(found[1]), int(found[2])
            what = labelled(what, tr("{inputs}, {leds} via {driver}", language).format(
                inputs=ntr("{n} input", "{n} inputs", inputs, language).format(n=inputs),
                leds=ntr("{n} LED", "{n} LEDs", leds, language).format(n=leds), driver=found[3]), language)
        elif event.detail:
            what += f" ({detail_text(event.detail, language)})"
    else:  # a frame the bridge refused
        what = tr("frame refused ({reason}): {frame}", language).format(reason=event.reason, frame=event.frame)
    return labelled(source_word(event.source, language), what, language)


def events_text(events: list[BridgeEvent], language: str) -> str:
    """The Hardware screen's last events, newest first, in the app's language."""
    from companion.app.i18n import tr

    return "\n".join(event_line(event, language) for event in reversed(events)) or tr("No events yet.", language)

