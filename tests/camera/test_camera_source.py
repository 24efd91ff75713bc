"""The camera as a bridge source: rolls come to rest as `roll` events from source `camera`, and the faults
(a file source that stops or vanishes, a camera that freezes or is busy) are each said once, with the
camera picked up again when it returns."""

from __future__ import annotations

import shutil
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from companion.camera import sources
from companion.camera.reader import Reader
from companion.camera.sources import Address, CameraGone, FrameSource, read_image
from firmware_bridge.camera_source import CameraSource, roll_values
from firmware_bridge.events import RollEvent, StatusEvent
from firmware_bridge.hub import Bridge
from tests.camera.helpers import SAMPLE, profile, rolls

DIGGER = SAMPLE / "digger-000"


class Heard:
    """Every event the bridge delivered, with a way to wait for one."""

    def __init__(self, bridge: Bridge) -> None:
        self.events: list[Any] = []
        self._changed = threading.Condition()
        bridge.subscribe(self._add)

    def _add(self, event: Any) -> None:
        with self._changed:
            self.events.append(event)
            self._changed.notify_all()

    def wait(self, test: Any, timeout: float = 20.0) -> Any:
        with self._changed:
            assert self._changed.wait_for(lambda: any(test(event) for event in self.events), timeout), self.events
            return next(event for event in self.events if test(event))

    def statuses(self) -> list[str]:
        return [event.state for event in self.events if isinstance(event, StatusEvent)]


def is_roll(event: Any) -> bool:
    return isinstance(event, RollEvent)


def frames_folder(folder: Path, images: list[Path]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for index, image in enumerate(images):
        shutil.copy(DIGGER / "empty.jpg", folder / f"{index:02d}a.jpg")
        shutil.copy(image, folder / f"{index:02d}b.jpg")
    return folder


def clean_rolls() -> list[Any]:
    return [roll for roll in rolls(DIGGER) if roll.case == "clean"]


def test_rolls_at_rest_reach_the_bridge_from_source_camera(tmp_path: Path) -> None:
    roll = clean_rolls()[0]
    reading = Reader(profile(DIGGER)).read(read_image(roll.image), (tuple("BYRGWK"),) * 5)
    folder = frames_folder(tmp_path / "frames", [roll.image])
    bridge = Bridge()
    heard = Heard(bridge)
    camera = CameraSource(f"{folder}?fps=30&hold=15", profile(DIGGER), retry=(0.05, 0.2))
    bridge.add_source(camera)
    with bridge:
        event = heard.wait(is_roll)
        heard.wait(lambda e: isinstance(e, StatusEvent) and e.state == "disconnected")  # the folder has ended
    assert event.source == "camera" and event.seq is None and event.ref is None
    assert list(event.values) == list(reading.faces) and event.uncertain == reading.uncertain
    assert camera.reading_for(event) is not None and camera.reading_for(event).faces == reading.faces
    assert heard.statuses() == ["connected", "disconnected"], "the end of the pictures is said once"
    assert camera.describe()["rolls"] == 1


def test_a_vanished_folder_is_said_once_and_picked_up_again_when_it_returns(tmp_path: Path) -> None:
    """Each picture is held 2 s: on a slow machine, reading the roll took long enough that a folder held for
    0.5 s per picture had ended (and was opened again) before it was taken away."""
    chosen = clean_rolls()[:2]
    folder = frames_folder(tmp_path / "frames", [chosen[0].image])
    bridge = Bridge()
    heard = Heard(bridge)
    bridge.add_source(CameraSource(f"{folder}?fps=30&hold=60", profile(DIGGER), retry=(0.05, 0.2)))
    with bridge:
        heard.wait(is_roll)
        shutil.rmtree(folder)
        time.sleep(1.0)
        assert heard.statuses() == ["connected", "disconnected"], "gone is said once, however long it stays away"
        frames_folder(folder, [chosen[1].image])
        heard.wait(lambda e: isinstance(e, RollEvent) and e is not heard.events[0] and
                   len([r for r in heard.events if isinstance(r, RollEvent)]) == 2)
    assert heard.statuses()[:3] == ["connected", "disconnected", "connected"]


class Stalling(FrameSource):
    """A camera whose driver stops delivering (the read blocks) until `thaw` is set; busy on its first open."""

    opens = 0

    def __init__(self, frames: list[Any], thaw: threading.Event) -> None:
        super().__init__(Address("v4l2", "/dev/video9"))
        self.frames, self.thaw, self.index = frames, thaw, 0

    def open(self) -> None:
        Stalling.opens += 1
        if Stalling.opens == 1:
            raise CameraGone("/dev/video9 cannot be opened: another program may be using it")

    def read(self) -> Any:
        if self.index >= len(self.frames):
            self.thaw.wait(10)
            time.sleep(0.02)
            return self.frames[-1] + (self.index % 2)  # new pictures again (the sensor's noise differs)
        self.index += 1
        time.sleep(0.02)
        return self.frames[self.index - 1]


def test_a_busy_then_frozen_camera_is_said_once_each_and_picked_up_again(monkeypatch: pytest.MonkeyPatch) -> None:
    empty = read_image(DIGGER / "empty.jpg")
    thaw = threading.Event()
    stalling = Stalling([empty, empty + 1, empty], thaw)
    monkeypatch.setattr(sources, "open_source", lambda url: stalling)
    bridge = Bridge()
    heard = Heard(bridge)
    bridge.add_source(CameraSource("v4l2:9", profile(DIGGER), stall=0.5, retry=(0.05, 0.2)))
    with bridge:
        heard.wait(lambda e: isinstance(e, StatusEvent) and e.state == "link_lost")
        time.sleep(1.0)
        assert heard.statuses() == ["disconnected", "connected", "link_lost"]
        assert "another program" in heard.events[0].detail
        thaw.set()
        heard.wait(lambda e: isinstance(e, StatusEvent) and e.detail == "pictures again")
    assert heard.statuses() == ["disconnected", "connected", "link_lost", "connected"]


def test_a_face_the_rules_do_not_allow_goes_to_the_table_as_a_question() -> None:
    in_the_open = next(roll for roll in clean_rolls() if roll.image.name == "roll-003.jpg")  # no die by a wall
    reading = Reader(profile(DIGGER)).read(read_image(in_the_open.image), (tuple("BYRGWK"),) * 5)
    assert not reading.uncertain
    values, ask = roll_values(reading, (("B",),) * 5)  # a prompt whose dice show only B
    assert ask and "?" in values and all(value in ("B", "?") for value in values)
    same, ask = roll_values(reading, (tuple("BYRGWK"),) * 5)
    assert same == list(reading.faces) and not ask


def test_a_camera_roll_is_journalled_with_source_camera(tmp_path: Path) -> None:
    from companion.app.controllers.base import record_source
    from companion.engine.core import Player, Setup
    from companion.engine.journal import Journal
    from companion.engine.session import Session

    assert record_source("camera") == "camera" and record_source("gpio") == "gpio"
    assert record_source("sensor") == "serial"
    journal = Journal(tmp_path / "journal.sqlite3")
    session = Session.new(Setup(game="digger", players=(Player(name="Anna"), Player(name="Ben"))), journal)
    outcome = session.submit({"type": "roll", "values": list("BYRGW")}, record_source("camera"))
    assert outcome.accepted
    journal.close()
    record = Journal(tmp_path / "journal.sqlite3", read_only=True).record(session.game_id)
    assert [action.source for action in record.actions] == ["camera"]
