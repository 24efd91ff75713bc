"""The Players screen's column of earlier players: names to seat again with one tap, and until a game
has been played a line saying what the column is for, or that everyone in it is seated (an empty column
under a heading looked broken)."""

from __future__ import annotations

from typing import Any

from companion.app.launch import pump


def hint(app: Any) -> Any:
    """The line under "Earlier players" while it shows, else None."""
    line = app.root.get_screen("players").ids.earlier_hint
    return line if line.height > 0 else None


def test_the_empty_column_says_what_it_is_for(fresh_app: Any) -> None:
    app = fresh_app
    app.flow.choose_game("digger")
    app.flow.new_game()
    model = app.players_model
    model.remembered, model.knows_names = [], False
    pump(2)
    assert hint(app) is not None and hint(app).text == "Names from your games will appear here."
    app.preferences.set_language("de")
    pump(2)
    assert hint(app).text == "Hier erscheinen die Namen aus euren Partien."
    app.preferences.set_language("en")
    model.remembered = ["Anna", "Ben"]
    pump(2)
    chips = [widget.text for widget in reversed(app.root.get_screen("players").ids.remembered.children)]
    assert hint(app) is None and chips == ["Anna", "Ben"]
    model.remembered, model.knows_names = [], True  # every remembered name is seated: said, not a bare heading
    pump(2)
    assert hint(app) is not None and hint(app).text == "Everyone from your earlier games is seated."


def test_chinagold_offers_the_pi_as_a_chip_that_seats_it_and_says_so(fresh_app: Any) -> None:
    """Playing against the Pi was only found by naming a seat "Pi"; the Players screen now offers it."""
    app = fresh_app
    app.flow.choose_game("chinagold")
    app.flow.new_game()
    pump(2)
    screen = app.root.get_screen("players")
    chips = list(reversed(screen.ids.remembered.children))
    assert chips[0].text == "Pi"
    assert hint(app).text == "Tap Pi and Goldtable plays that seat."
    chips[0].dispatch("on_release")
    pump(2)
    assert "Pi" in [seat["name"] for seat in app.players_model.seats]
    assert hint(app).text == "Goldtable plays Pi's seat."
    app.preferences.set_language("fr")
    pump(2)
    assert hint(app).text == "Goldtable joue la place de Pi."
    app.preferences.set_language("en")
