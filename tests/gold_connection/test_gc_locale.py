"""The app shows a Gold Connection refusal in German (catalog completeness for every game is checked in
tests/test_game_catalogs.py)."""

from __future__ import annotations


def test_app_shows_a_refusal_in_german() -> None:
    from companion.app.i18n import current_language, game_text, set_language

    before = current_language()
    try:
        set_language("de")
        assert game_text("gold_connection", "Bar {bar} is not in {safe}.", {"bar": "B6", "safe": "S3"}) == \
            "Barren B6 liegt nicht in S3."
    finally:
        set_language(before)
