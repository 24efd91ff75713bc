"""Words a player confuses: Undo (take back a move), Back (previous screen) and Home must differ in every
language, and German must not call Home "Start" (which reads as "start a game")."""

from __future__ import annotations

import gettext
from pathlib import Path

import pytest

LOCALE = Path(__file__).resolve().parents[2] / "companion" / "locale"


@pytest.mark.parametrize("language", ["de", "fr", "en"])
def test_undo_back_and_home_are_three_different_words(language: str) -> None:
    catalog = gettext.translation("goldtable", str(LOCALE), languages=[language])
    words = [catalog.gettext(word) for word in ("Undo", "Back", "Home")]
    assert len({word.casefold() for word in words}) == 3, words


def test_german_home_is_not_start() -> None:
    catalog = gettext.translation("goldtable", str(LOCALE), languages=["de"])
    assert catalog.gettext("Home") not in ("Start", "Starten")
    assert catalog.gettext("Undo") != "Zurück"
