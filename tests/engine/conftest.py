from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from companion.engine import registry
from companion.engine.journal import Journal
from tests.engine.counting_game import COUNTING_ID, CountingGame


@pytest.fixture(autouse=True)
def counting_game(monkeypatch: pytest.MonkeyPatch) -> CountingGame:
    """Register the plumbing-test game for one test only, so it never shows up elsewhere."""
    game = CountingGame()
    registry._load_all()
    monkeypatch.setitem(registry._GAMES, COUNTING_ID, game)
    return game


@pytest.fixture
def journal(tmp_path: Path) -> Iterator[Journal]:
    j = Journal(tmp_path / "journal.sqlite3")
    yield j
    j.close()
