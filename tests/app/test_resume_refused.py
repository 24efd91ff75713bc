"""A journalled game whose action the rules now refuse cannot be resumed; Home says which action and
why, in the app's language and with counted words ("1 chip", "1 Chip"), not the bare template."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from companion.engine.journal import Journal
from companion.engine.record import GameRecord
from tests.test_cli_text import _gold_connection_short_by


def test_home_says_why_a_game_cannot_be_resumed_in_the_apps_words(fresh_app: Any, tmp_path: Path) -> None:
    app = fresh_app
    shared = app.journal.path
    journal = Journal(tmp_path / "journal.sqlite3")
    record = GameRecord.model_validate(_gold_connection_short_by(1))
    game_id = journal.new_game(record.setup())
    for entry in record.actions:  # written as the journal holds them, without the rules' check
        journal.append(game_id, "action", entry)
    app.journal_desk.open(journal)
    try:
        app.flow.resume(game_id)
        assert app.root.current == "home"
        assert app.journal_desk.journal_notice.startswith("That game cannot be resumed: journal game")
        assert app.journal_desk.journal_notice.endswith("Spend exactly 1 chip to reach the target, or none.")
        app.preferences.set_language("de")
        app.flow.resume(game_id)
        assert "Setze genau 1 Chip ein" in app.journal_desk.journal_notice
    finally:
        app.preferences.set_language("en")
        app.journal_desk.open(Journal(shared))
