"""One headless app for all app tests (Kivy has one window per process; starting it is the slow part)."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from companion.app.launch import pump, start_headless

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def app_data() -> Iterator[Path]:
    """The shared app's data folder, removed when the run ends."""
    folder = Path(tempfile.mkdtemp(prefix="goldtable-app-test-"))
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


class ManualClock:
    """Monotonic time plus an offset a test can push forward, so the sand timer runs out at once; `held()`
    stops it for a test that reads clocks to the second (a loaded machine's pause must not tick one on)."""

    def __init__(self) -> None:
        self.offset = 0.0
        self.held_at: float | None = None

    def __call__(self) -> float:
        return (time.monotonic() if self.held_at is None else self.held_at) + self.offset

    def advance(self, seconds: float) -> None:
        self.offset += seconds

    @contextlib.contextmanager
    def held(self) -> Iterator[None]:
        self.held_at = time.monotonic()
        try:
            yield
        finally:  # time goes on from where it stood
            self.offset += self.held_at - time.monotonic()
            self.held_at = None


@pytest.fixture(scope="session")
def clock() -> ManualClock:
    return ManualClock()


@pytest.fixture(scope="package")
def app(app_data: Path, clock: ManualClock) -> Iterator[Any]:
    """Shared by the whole tests/app package and stopped after it, so later Kivy tests get the window
    to themselves."""
    os.environ["GOLDTABLE_DATA"] = str(app_data)
    application = start_headless((800, 480), journal_path=app_data / "journal.sqlite3",
                                 settings_file=app_data / "app-settings.json", use_system_hardware=False,
                                 clock=clock)
    yield application
    application.stop()


@pytest.fixture
def fresh_app(app: Any) -> Iterator[Any]:
    """The shared app back on Home in English with no game on the table; its settings (the players a
    table remembers, the game chosen), the options the next table starts from and who begins are put
    back afterwards, so no test sees another's players or options."""
    app.preferences.set_language("en")
    app.flow.controller.open(None)
    app.go("home")
    pump(2)
    settings = app.preferences.settings
    options = app.flow._options, app.flow._options_game
    first = app.players_model.first_player
    yield app
    app.preferences.settings = settings
    app.preferences.save()
    app.flow._options, app.flow._options_game = options
    app.players_model.first_player = first


def back_home(app: Any) -> None:
    """Home with no game, so later Kivy tests meet no live table (its rules still bind to the app)."""
    app.table.clear_messages()
    app.table.attach(None)
    app.go("home")
    pump(2)


@pytest.fixture
def table_app(fresh_app: Any) -> Iterator[Any]:
    """The shared app for a test that puts games on the table; back on an empty Home afterwards."""
    yield fresh_app
    back_home(fresh_app)


def kill_when_ready(module: str, data: Path) -> str:
    """Run `python -m module data` (an app process on the data folder), read until it prints its READY
    line, then kill it with SIGKILL, as a power cut would; that line is returned."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "GOLDTABLE_DATA": str(data)}
    child = subprocess.Popen([sys.executable, "-m", module, str(data)], cwd=ROOT, env=env,
                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        line = ""
        while not line.startswith("READY"):
            line = child.stdout.readline()  # type: ignore[union-attr]
            assert line, "the app process ended before it was ready"
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait()
    return line
