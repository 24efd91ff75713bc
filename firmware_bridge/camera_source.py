"""Camera source: dice read by a camera over the tray, delivered as the sensor board's rolls are.

Two threads: the *grabber* only reads frames (a camera driver may block in a read, and a frozen camera must
still be noticed), the *reader* takes the newest frame, watches for motion and reads each roll once the
tray is still (`companion.camera.reader.RollWatcher`).  Events: `rolling` when dice move, `roll` with
source `camera` when they rest — uncertain, with the doubtful dice marked, whenever the reading is; a face
the rules do not allow for its die is sent as `?` so the table taps it in (a roll the rules refuse is never
offered as certain) — and `status` when the camera goes (`disconnected`: unplugged, busy, a file source
that ended or vanished; `link_lost`: no new picture for `stall` seconds) and when it is back (`connected`).
Each fault is said once; the source keeps trying to open the camera again, so it is picked up when it
returns, and the table carries on by touch meanwhile.

Camera rolls carry no sequence number: nothing resends them, so there is nothing to acknowledge and no
frame to recognise after a restart (`settle` is a no-op); the app journals a roll before it shows it.
`reading_for(event)` gives the reading behind a roll event (the crops of its dice, for the dispute);
`latest_frame()` the newest picture (the Hardware screen's preview, calibration and teaching).  Without a
profile (`use_profile(None)`: the game at the table has not been calibrated) the camera is watched for
faults and previewed, but nothing is read.
"""

from __future__ import annotations

import hashlib
import logging
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from firmware_bridge.events import (
    NO_MORE_PICTURES,
    NO_NEW_PICTURE,
    PICTURES_AGAIN,
    BridgeEvent,
    RollEvent,
    RollingEvent,
    StatusEvent,
)
from firmware_bridge.hub import Emit, Source

if TYPE_CHECKING:  # the camera's reading needs OpenCV, imported only once a camera reads
    from companion.camera.profile import Profile
    from companion.camera.reader import Reader, Reading

log = logging.getLogger(__name__)

#: Readings kept for `reading_for` (the table asks about the newest roll; a few more cover a backlog).
KEPT_READINGS = 8


def roll_values(reading: Reading, dice: Sequence[Sequence[str]]) -> tuple[list[str], bool]:
    """The values a reading offers the table for these dice, and whether to ask: a die the camera doubts or a
    face its die does not have is `?` or marked uncertain."""
    values, doubtful = reading.values()
    for index, value in enumerate(values):
        if index < len(dice) and value != "?" and value not in dice[index]:
            values[index] = "?"
    return values, bool(doubtful) or "?" in values or reading.uncertain


class CameraSource(Source):
    """Rolls from a camera (or a file source standing in for one), read with one profile."""

    def __init__(self, url: str, profile: Profile | None = None, *, name: str = "camera", stall: float = 3.0,
                 retry: tuple[float, float] = (0.5, 5.0), still: int = 3,
                 dice: Sequence[Sequence[str]] | None = None, clock: Callable[[], float] = time.monotonic) -> None:
        """`profile`: a `companion.camera.profile.Profile` (or None: nothing is read until `use_profile`).
        A malformed `url` raises UserError here."""
        from companion.camera.sources import parse_address

        parse_address(url)
        self.name = name
        self.url = url
        self.profile: Profile | None = None
        self.reader: Reader | None = None
        self._profile_lock = threading.Lock()
        self._dice: tuple[tuple[str, ...], ...] = ()
        self.use_profile(profile, dice)
        self.stall = stall
        self.retry = retry
        self.still = still
        self._clock = clock
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []
        self._frame_lock = threading.Condition()
        self._frame: Any = None
        self._frame_time = 0.0
        self._frame_number = 0
        self._open = False
        self._reported: str | None = None
        self._readings: OrderedDict[int, tuple[RollEvent, Reading]] = OrderedDict()
        self.frames = 0
        self.rolls = 0
        self.uncertain_rolls = 0
        self.faults = 0
        self.detail = ""

    # -- the Source interface ---------------------------------------------------------------------------
    @property
    def connected(self) -> bool:
        return self._open and self._reported == "connected"

    def describe(self) -> dict[str, Any]:
        return {"kind": "camera", "name": self.name, "url": self.url,
                "game": None if self.profile is None else self.profile.game,
                "connected": self.connected, "pictures": self.frames, "rolls": self.rolls,
                "uncertain": self.uncertain_rolls, "faults": self.faults, "detail": self.detail}

    def start(self, emit: Emit) -> None:
        if self._threads:
            return
        self._emit = emit
        self._stop.clear()
        self._threads = [threading.Thread(target=self._grab, name=f"{self.name}-grabber", daemon=True),
                         threading.Thread(target=self._watch, name=f"{self.name}-reader", daemon=True)]
        for thread in self._threads:
            thread.start()

    def stop(self) -> None:
        self._stop.set()
        with self._frame_lock:
            self._frame_lock.notify_all()
        for thread in self._threads:
            thread.join(timeout=5)
        self._threads = []
        self._emit = None

    # -- what the table tells the camera ------------------------------------------------------------------
    def use_profile(self, profile: Profile | None, dice: Sequence[Sequence[str]] | None = None, *,
                    reader: Reader | None = None) -> None:
        """Read with this profile from now on (None: read nothing); `dice` as `set_dice`, by default the
        profile's game's first roll; `reader`: one already made for `profile` (off the table's thread).
        Called on the table's thread, so the walls are left to the reading thread."""
        from companion.camera.profile import game_dice
        from companion.camera.reader import Reader

        if profile is None:
            reader = None
        elif reader is None or reader.profile is not profile:
            reader = Reader(profile, walls=False)
        with self._profile_lock:
            self.profile, self.reader = profile, reader
            self._dice = () if profile is None else tuple(tuple(die) for die in (dice or game_dice(profile.game)))

    def latest_frame(self) -> Any:
        """The newest picture (a BGR numpy array), or None before the first."""
        with self._frame_lock:
            return self._frame

    def set_dice(self, dice: Sequence[Sequence[str]]) -> None:
        """The dice the game's prompt asks for now (how many, and which faces each may show)."""
        self._dice = tuple(tuple(die) for die in dice)

    def reading_for(self, event: BridgeEvent) -> Reading | None:
        """The reading behind one of this source's roll events (None when it is no longer kept)."""
        kept = self._readings.get(id(event))
        return kept[1] if kept is not None and kept[0] is event else None

    # -- grabber thread --------------------------------------------------------------------------------------
    def _grab(self) -> None:
        from companion.camera.sources import CameraGone, open_source, stamp
        from companion.engine.errors import UserError

        delay = self.retry[0]
        while not self._stop.is_set():
            try:
                source = open_source(self.url)
                source.open()
            except (CameraGone, UserError) as error:
                self._status("disconnected", str(error))
                self._stop.wait(delay)
                delay = min(delay * 2, self.retry[1])
                continue
            delay = self.retry[0]
            self._open = True
            self._status("connected", source.name)
            last_digest = b""
            try:
                while not self._stop.is_set():
                    frame = source.read()
                    if frame is None:  # a file source at its end: read again only once the files change
                        self._status("disconnected", NO_MORE_PICTURES.format(camera=source.name))
                        ended = stamp(source.address.target)
                        while not self._stop.wait(self.retry[0]) and stamp(source.address.target) == ended:
                            pass
                        break
                    digest = b"" if source.address.is_file else hashlib.blake2b(frame.data, digest_size=8).digest()
                    if digest and digest == last_digest:
                        continue  # the same picture again: a frozen camera (noticed by the reader)
                    last_digest = digest
                    with self._frame_lock:
                        self._frame, self._frame_time = frame, self._clock()
                        self._frame_number += 1
                        self._frame_lock.notify_all()
            except CameraGone as error:
                self._status("disconnected", str(error))
            finally:
                self._open = False
                source.close()

    # -- reader thread ---------------------------------------------------------------------------------------
    def _watch(self) -> None:
        from companion.camera.reader import RollWatcher
        from companion.camera.vision import VisionError

        watcher: RollWatcher | None = None
        seen = 0
        while not self._stop.is_set():
            with self._frame_lock:
                if self._frame_number == seen:
                    self._frame_lock.wait(timeout=0.25)
                frame, number, at = self._frame, self._frame_number, self._frame_time
            if self._stop.is_set():
                return
            if number == seen:
                if self._open and self._reported == "connected" and self._clock() - at > self.stall:
                    self._status("link_lost", NO_NEW_PICTURE.format(seconds=f"{self.stall:g}"))
                continue
            seen = number
            if self._reported == "link_lost" and self._open:
                self._status("connected", PICTURES_AGAIN)
            self.frames += 1
            with self._profile_lock:
                reader, dice = self.reader, self._dice
            if reader is None:
                watcher = None
                continue
            if watcher is None or watcher.reader is not reader:
                reader.find_walls()
                watcher = RollWatcher(reader, still=self.still)
            try:
                state, reading = watcher.feed(frame, dice)
            except VisionError as error:
                self.detail = str(error)
                continue
            if state == "moving":
                self._deliver(RollingEvent(source=self.name))
            elif state == "rest" and reading is not None and reading.dice and dice:
                self._roll(reading, dice)

    def _roll(self, reading: Reading, dice: Sequence[Sequence[str]]) -> None:
        values, uncertain = roll_values(reading, dice)
        event = RollEvent(source=self.name, values=tuple(values), uncertain=uncertain)  # type: ignore[arg-type]
        self.rolls += 1
        self.uncertain_rolls += int(event.uncertain)
        self._readings[id(event)] = (event, reading)
        while len(self._readings) > KEPT_READINGS:
            self._readings.popitem(last=False)
        self._deliver(event)

    def _status(self, state: str, detail: str) -> None:
        """Say a change of the camera's state once (a camera that stays away is not reported again)."""
        self.detail = detail
        if state == self._reported:
            return
        if state != "connected":
            self.faults += 1
        self._reported = state
        self._deliver(StatusEvent(source=self.name, state=state, detail=detail))  # type: ignore[arg-type]
