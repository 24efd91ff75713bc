"""The Players screen's column of earlier players: names to seat again with one tap, and until a game
has been played a line saying what the column is for (an empty column under a heading looked broken)."""

from __future__ import annotations

from typing import Any

from companion.app.launch import pump


def hint(app: Any) -> Any:
    """The line under "Earlier players" while it shows, else None."""
    line = app.root.get_screen("players").ids.earlier_hint
    return line if line.height > 0 else None


def test_the_empty_column_says_what_it_is_for(fresh_app: Any) -> None:
    app = fresh_app
    app.choose_game("digger")
    app.new_game()
    model = app.players_model
    model.remembered = []
    pump(2)
    assert hint(app) is not None and hint(app).text == "Names from your games will appear here."
    app.set_language("de")
    pump(2)
    assert hint(app).text == "Hier erscheinen die Namen aus euren Partien."
    app.set_language("en")
    model.remembered = ["Anna", "Ben"]
    pump(2)
    chips = [widget.text for widget in reversed(app.root.get_screen("players").ids.remembered.children)]
    assert hint(app) is None and chips == ["Anna", "Ben"]
