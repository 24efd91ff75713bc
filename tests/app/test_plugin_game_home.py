"""Dice race, a game from outside Goldtable (tests/plugins), on the touchscreen through its entry point alone:
Home offers it beside the shipped games and it is played to its end with taps on the generic table, in its
own catalog's words and journalled like any game; a broken plugin is named on Home and the others stay."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from companion.app.launch import pump
from tests.app.ui import label_texts, tap
from tests.plugin_games import installed, plugin_folder


@pytest.fixture
def home(table_app: Any) -> Iterator[Any]:
    """The shared app on Home; afterwards its games are read again (the test's plugin is gone by then) and
    the game chosen before is chosen again."""
    chosen = table_app.flow.game_id
    yield table_app
    table_app.flow.choose_game(chosen)
    table_app.flow.show_games()
    pump(1)


def game_buttons(app: Any) -> list[str]:
    return [button.text for button in reversed(app.root.get_screen("home").ids.games.children)]


def test_home_offers_the_plugin_and_it_is_played_by_touch(home: Any, dice_race: str) -> None:
    app = home
    app.flow.show_games()
    pump(1)
    assert game_buttons(app) == ["Chinagold", "Dice race", "Digger", "Gold Connection", "Goldgräber"]
    tap(app, "Dice race")
    assert app.flow.game_id == dice_race
    tap(app, "New game")
    assert app.root.current == "players" and len(app.players_model.seats) == 2
    tap(app, "Next", frames=2)
    assert app.root.current == "options" and "Squares from the start to the finish" in label_texts(app)
    tap(app, "Next", frames=2)
    tap(app, "Start the game", frames=2)
    assert app.root.current == "table"
    session = app.table.session
    assert session.setup.game == dice_race and session.game_id is not None
    app.preferences.set_language("de")
    pump(1)
    assert app.table.prompt_text.endswith(": würfle.")
    app.preferences.set_language("en")
    while not session.is_over():
        if "roll" in session.prompt().expects:
            tap(app, "6")  # the generic keypad, with the faces the prompt asks for
        elif session.prompt().player == session.setup.first_player:
            tap(app, "advance")  # the generic table's buttons for the offered choices
        else:
            tap(app, "stay")
        assert len(session.actions) < 40
    pump(2)
    assert app.root.current == "end"
    finished = next(game for game in app.journal.games() if game.id == session.game_id)
    assert (finished.game, finished.finished, finished.actions) == (dice_race, True, len(session.actions))


def test_home_names_a_broken_plugin_and_offers_every_other_game(home: Any, tmp_path: Path) -> None:
    folder = plugin_folder(tmp_path / "site", "broken_game", "broken = broken_game:GAME", "import no_such_dependency\n")
    app = home
    with installed(folder):
        app.flow.show_games()
        pump(2)
        assert game_buttons(app) == ["Chinagold", "Digger", "Gold Connection", "Goldgräber"]
        assert any(text.startswith("A game cannot be played: game 'broken' cannot be loaded: broken_game:GAME "
                                   "cannot be imported") for text in label_texts(app))
    app.flow.show_games()
    pump(2)
    assert not any("cannot be played" in text for text in label_texts(app))
