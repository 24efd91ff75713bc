"""The app's small files (settings, the chess clock's choices) are saved by a thread of their own: a change
returns at once however slow the card, is read back at once, changes made while the card is busy are merged
into the newest, a failure is logged and the app goes on, and closing waits for what is on its way."""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from companion.app import saving
from companion.app.saving import FileSaver
from companion.engine.paths import write_durably


class HeldCard:
    """`write_durably` as a card that answers only when the test lets it: the texts it was given, in order."""

    def __init__(self) -> None:
        self.written: list[tuple[str, str]] = []
        self.waiting = threading.Event()
        self.go = threading.Event()

    def write(self, path: Path, text: str) -> None:
        self.waiting.set()
        assert self.go.wait(10), "the card was never let go"
        write_durably(path, text)
        self.written.append((path.name, text))


@pytest.fixture
def card(monkeypatch: pytest.MonkeyPatch) -> Iterator[HeldCard]:
    held = HeldCard()
    monkeypatch.setattr(saving, "write_durably", held.write)
    yield held
    held.go.set()


def test_a_change_returns_before_the_card_answers_and_reads_back_at_once(tmp_path: Path, card: HeldCard) -> None:
    saver, path = FileSaver(), tmp_path / "app-settings.json"
    path.write_text("old", encoding="utf-8")
    saver.save(path, "new")
    assert card.waiting.wait(5)
    assert saver.read(path) == "new" and path.read_text(encoding="utf-8") == "old"
    assert not saver.flush(timeout=0.05), "still on its way"
    card.go.set()
    assert saver.flush() and path.read_text(encoding="utf-8") == "new" and saver.read(path) == "new"


def test_changes_made_while_the_card_is_busy_are_merged_into_the_newest(tmp_path: Path, card: HeldCard) -> None:
    saver, settings, clocks = FileSaver(), tmp_path / "app-settings.json", tmp_path / "clocks.json"
    saver.save(settings, "sound off")
    assert card.waiting.wait(5)
    for text in ("sound on", "sound off", "sound on"):
        saver.save(settings, text)
    saver.save(clocks, "clock on")
    card.go.set()
    assert saver.flush()
    assert card.written == [("app-settings.json", "sound off"), ("clocks.json", "clock on"),
                            ("app-settings.json", "sound on")], "the other file is not kept waiting"
    assert settings.read_text(encoding="utf-8") == "sound on"


def test_a_card_that_refuses_is_logged_and_the_app_goes_on(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    saver, path = FileSaver(), tmp_path / "read-only" / "app-settings.json"
    path.parent.write_text("a file where the folder should be", encoding="utf-8")
    with caplog.at_level(logging.WARNING, logger="companion.app.saving"):
        saver.save(path, "new")
        assert saver.flush()
    assert "app-settings.json not saved" in caplog.text
    with pytest.raises(OSError):
        saver.read(path)
    saver.save(tmp_path / "clocks.json", "still saving")
    assert saver.flush() and (tmp_path / "clocks.json").read_text(encoding="utf-8") == "still saving"
