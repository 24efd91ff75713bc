"""Test-wide setup: Kivy headless (offscreen SDL on Mesa, never the mock GL backend), a private data dir."""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from collections.abc import Iterator

import pytest
from hypothesis import settings

if "GOLDTABLE_DATA" not in os.environ:  # a private data folder, removed when the test run ends
    os.environ["GOLDTABLE_DATA"] = tempfile.mkdtemp(prefix="goldtable-test-data-")
    atexit.register(shutil.rmtree, os.environ["GOLDTABLE_DATA"], ignore_errors=True)
from companion.headless import prepare_kivy

prepare_kivy((800, 480), offscreen=True)

settings.register_profile("default", deadline=None)
settings.register_profile("thorough", deadline=None, max_examples=2000)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))


@pytest.fixture
def dice_race() -> Iterator[str]:
    """Dice race, a game from outside Goldtable, installed for one test (tests/plugin_games.py); its id."""
    from tests.plugin_games import DICE_RACE, installed

    with installed():
        yield DICE_RACE
