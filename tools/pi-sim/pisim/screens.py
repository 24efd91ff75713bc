"""Seeing the guest's screen: the app's twin on the host (pisim/mirror.py) says where to tap and what a
screen should look like; the guest's screen is compared with it picture by picture."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from PIL import Image, ImageChops, ImageStat

from pisim.host import Failure, Log
from pisim.vm import SCREEN, Machine

MIRROR = Path(__file__).with_name("mirror.py")
#: Mean difference per colour channel (0-255) below which two pictures show the same screen: the same screen
#: on the guest and the twin differs by 0.02-0.05 (Mesa on both), while a change of one row of buttons (Settings'
#: question before Shut down) is 4.4, which the first value of 6 let pass as the same screen.
SAME_SCREEN = 2.0


class Mirror:
    """The app's twin, started fresh at the guest's screen size (as Kivy lays it out: portrait when the
    screen is turned 90 or 270 degrees) and language."""

    def __init__(self, log: Log, language: str = "system", rotation: int = 0) -> None:
        self.log = log
        self.rotation = rotation
        width, height = SCREEN if rotation in (0, 180) else SCREEN[::-1]
        self.size = (width, height)
        self._home = tempfile.TemporaryDirectory(prefix="pi-sim-kivy-")
        # "system", as a fresh card's app is set, with no locale set, as on the card: English
        env = {**os.environ, "KIVY_NO_ARGS": "1", "KIVY_HOME": self._home.name}
        for variable in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"):
            env.pop(variable, None)
        self._process = subprocess.Popen([sys.executable, str(MIRROR), str(width), str(height), language],
                                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                         text=True, env=env)

    def ask(self, **request: Any) -> dict[str, Any]:
        assert self._process.stdin is not None and self._process.stdout is not None
        self._process.stdin.write(json.dumps(request) + "\n")
        self._process.stdin.flush()
        line = self._process.stdout.readline()
        if not line:
            raise Failure("the app's twin on the host stopped (run the check with the project's venv)")
        answer: dict[str, Any] = json.loads(line)
        if "error" in answer:
            raise Failure(f"the app's twin: {answer['error']}")
        return answer

    def where(self, selector: str, press: bool = False) -> tuple[float, float]:
        """The guest's screen pixel where the widget is: its place in the app's layout, turned as the
        screen is turned."""
        answer = self.ask(**{"press" if press else "find": selector})
        return physical(answer["x"], answer["y"], self.size, self.rotation)

    def where_place(self, place: str) -> tuple[float, float]:
        answer = self.ask(place=place)
        return physical(answer["x"], answer["y"], self.size, self.rotation)

    def where_bar(self, safe: str, bar: str) -> tuple[float, float]:
        answer = self.ask(bar=[safe, bar])
        return physical(answer["x"], answer["y"], self.size, self.rotation)

    def shot(self, path: Path) -> Path:
        """What the guest's screen should show now (turned as the screen is)."""
        self.ask(shot=str(path))
        if self.rotation:
            with Image.open(path) as picture:
                picture.rotate(self.rotation, expand=True).save(path)
        return path

    def close(self) -> None:
        if self._process.stdin is not None:
            self._process.stdin.close()
        try:
            self._process.wait(30)
        except subprocess.TimeoutExpired:
            self._process.kill()
        self._home.cleanup()


def physical(x: float, y: float, size: tuple[int, int], rotation: int) -> tuple[float, float]:
    """A point of the app's layout (from its top left) on the physical screen, for Kivy turning its
    drawing `rotation` degrees counter-clockwise (as PIL's `rotate` turns a picture)."""
    width, height = size
    if rotation == 0:
        return x, y
    if rotation == 90:
        return y, width - x
    if rotation == 180:
        return width - x, height - y
    if rotation == 270:
        return height - y, x
    raise ValueError(f"rotation {rotation}")


def difference(first: Path, second: Path) -> float:
    """How different two pictures of the screen are: the mean difference of their colour channels."""
    with Image.open(first) as a, Image.open(second) as b:
        a_rgb, b_rgb = a.convert("RGB"), b.convert("RGB")
        if a_rgb.size != b_rgb.size:
            return 255.0
        return float(sum(ImageStat.Stat(ImageChops.difference(a_rgb, b_rgb)).mean) / 3)


def wait_for(vm: Machine, expected: Path, folder: Path, timeout: float, name: str,
             threshold: float = SAME_SCREEN) -> float:
    """Poll the guest's screen until it shows `expected`; the seconds it took. A Failure keeps the last
    picture of the guest's screen beside the expected one, for a person to look at."""
    started = time.monotonic()
    seen = folder / f"{name}-seen.png"
    best = 255.0
    while True:
        if not vm.running:
            raise Failure(f"the machine stopped while waiting for {name}")
        vm.screendump(seen)
        best = difference(seen, expected)
        if best <= threshold:
            return time.monotonic() - started
        if time.monotonic() - started > timeout:
            raise Failure(f"{name} not on screen after {timeout:.0f} s (difference {best:.1f}; see {seen} and "
                          f"{expected})")
        time.sleep(1.0)
