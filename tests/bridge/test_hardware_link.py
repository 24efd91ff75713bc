"""The app's hardware link: a source that fails to start is listed and the rest runs on, and the
sensor is answered through the worker thread, after the app's handler (ACK = recorded)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from kivy.clock import Clock

from companion.app.hardware import HardwareLink
from firmware_bridge.events import BridgeEvent, ButtonEvent, RollEvent
from firmware_bridge.hub import Emit, Source

ROOT = Path(__file__).resolve().parents[2]


class Answering(Source):
    """A started source that remembers its answers; `answer_delay` makes each answer slow (a stuck port)."""

    has_outputs = False

    def __init__(self, name: str, answer_delay: float = 0.0) -> None:
        self.name = name
        self.emit: Emit | None = None
        self.answer_delay = answer_delay
        self.answers: list[tuple[BridgeEvent, bool, str | None]] = []

    @property
    def connected(self) -> bool:
        return self.emit is not None

    def describe(self) -> dict[str, Any]:
        return {"kind": "fake", "name": self.name}

    def start(self, emit: Emit) -> None:
        self.emit = emit

    def stop(self) -> None:
        self.emit = None

    def settle(self, event: BridgeEvent, recorded: bool, reason: str | None = None) -> None:
        time.sleep(self.answer_delay)
        self.answers.append((event, recorded, reason))


class Broken(Answering):
    def start(self, emit: Emit) -> None:
        raise OSError("could not open port /dev/ttyACM0")


def tick_until(condition: Callable[[], bool], timeout: float = 5.0) -> bool:
    """Run Kivy's clock (exceptions in callbacks surface here) until `condition` holds."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            return False
        Clock.tick()
        time.sleep(0.005)
    return True


@pytest.fixture
def link_with(request: pytest.FixtureRequest) -> Any:
    links: list[HardwareLink] = []

    def make(*sources: Source, problems: list[str] | None = None) -> HardwareLink:
        link = HardwareLink(list(sources), problems)
        links.append(link)
        return link

    yield make
    for link in links:
        link.stop()


def test_a_source_that_fails_to_start_is_listed_and_the_others_run(link_with: Any) -> None:
    good = Answering("gpio-pins")
    link = link_with(Broken("sensor"), good, problems=["serial x: bad URL"])
    seen: list[BridgeEvent] = []
    link.bind(on_event=lambda _link, event: seen.append(event))
    link.start()
    assert tick_until(lambda: len(link.problems) == 2)
    assert link.problems == ["serial x: bad URL", "sensor: could not open port /dev/ttyACM0"]
    assert tick_until(lambda: [info["name"] for info in link.sources] == ["gpio-pins"])
    assert not link.simulated and [source.name for source in link.bridge.sources] == ["gpio-pins"]
    assert good.emit is not None
    good.emit(ButtonEvent(source="gpio-pins", name="stop", action="down"))
    assert tick_until(lambda: len(seen) == 1)


def test_an_event_the_handler_does_not_answer_stays_unanswered(link_with: Any) -> None:
    """ACK means recorded: the link never answers for the app (an uncertain roll waits for the table)."""
    source = Answering("sensor")
    link = link_with(source)
    order: list[str] = []
    link.bind(on_event=lambda _link, event: order.append("handled"))
    link.start()
    assert tick_until(lambda: source.emit is not None)
    roll = RollEvent(source="sensor", seq=8, values=("Y", "R"))
    threading.Thread(target=source.emit, args=(roll,)).start()  # as a reader thread would
    assert tick_until(lambda: order == ["handled"])
    assert not tick_until(lambda: bool(source.answers), timeout=0.5)
    link.settle(roll, True)
    assert tick_until(lambda: source.answers == [(roll, True, None)])


def test_the_handler_answers_itself_once_and_never_waits_for_the_port(link_with: Any) -> None:
    source = Answering("sensor", answer_delay=0.5)
    link = link_with(source)
    took: list[float] = []

    def refuse(_link: HardwareLink, event: BridgeEvent) -> None:
        start = time.perf_counter()
        link.settle(event, False, "roll.dice_count")
        took.append(time.perf_counter() - start)

    link.bind(on_event=refuse)
    link.start()
    assert tick_until(lambda: source.emit is not None)
    roll = RollEvent(source="sensor", seq=9, values=("Y",))
    source.emit(roll)
    assert tick_until(lambda: len(source.answers) == 1)
    time.sleep(0.1)
    Clock.tick()
    assert source.answers == [(roll, False, "roll.dice_count")]  # answered once: no fallback ACK after
    assert took[0] < 0.05  # the UI thread handed the answer over; the slow port is the worker's problem
    with pytest.raises(ValueError):
        link.settle(roll, False, "no such code!")


def test_the_app_starts_with_a_sensor_that_cannot_start_and_plays_by_touch(tmp_path: Path) -> None:
    # the child's Kivy folder under its data folder, named outright: the child imports the UI tests' helpers,
    # and so Kivy, before the app would choose it, and Kivy alone made ~/.kivy in the user's real home
    env = {**os.environ, "PYTHONPATH": str(ROOT), "GOLDTABLE_DATA": str(tmp_path), "KIVY_HOME": str(tmp_path / "kivy")}
    result = subprocess.run([sys.executable, "-m", "tests.bridge.failing_source_app", str(tmp_path)], cwd=ROOT,
                            env=env, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr[-3000:]
    seen = json.loads(result.stdout.strip().splitlines()[-1])
    assert seen["problems"] == ["sensor: could not open port /dev/ttyACM0"]
    assert "Problem: sensor: could not open port /dev/ttyACM0" in "\n".join(seen["hardware_screen"])
    assert seen["sources"] == []
    assert seen["actions"] == 1 and seen["roll"] == list("YRBKG")
