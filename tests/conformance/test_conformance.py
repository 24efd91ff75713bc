"""One conformance suite for every installed game: Goldtable's own and Dice race, the game from outside it
(tests/plugins), installed for these tests and found through its entry point alone.  What is checked at every
step of the random playouts is said in playout.py; the games' own rules are their own tests' business."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from hypothesis import Phase, given, settings
from hypothesis import strategies as st

from companion.engine.core import ActionModel
from companion.engine.registry import all_games, declared, get_game, problems
from tests.conformance.playout import options_strategy, play
from tests.plugin_games import DICE_RACE, installed

with installed():
    INSTALLED = declared()  # at collection: the games the suite is run over, the plugin's among them


@pytest.fixture(autouse=True, scope="module")
def _plugins_installed() -> Iterator[None]:
    with installed():
        yield


def test_the_suite_runs_over_every_installed_game_the_plugin_too() -> None:
    assert {"digger", "gold_connection", "goldgraeber", "chinagold", DICE_RACE} <= set(INSTALLED)
    assert sorted(all_games()) == INSTALLED and problems() == []


# Shrinking whole games is slow and rarely simpler than the seed that failed, so a failure is reported as drawn.
@pytest.mark.parametrize("game_id", INSTALLED)
@settings(phases=(Phase.explicit, Phase.reuse, Phase.generate), max_examples=15)
@given(data=st.data())
def test_random_playouts_keep_the_table_contract(game_id: str, data: st.DataObject) -> None:
    game = get_game(game_id)
    players = data.draw(st.integers(game.min_players, game.max_players), label="players")
    options = data.draw(options_strategy(game), label="options")
    seed = data.draw(st.integers(0, 2**31), label="seed")
    session = play(game_id, seed, players, options)
    assert len(session.actions) > 0


@pytest.mark.parametrize("game_id", INSTALLED)
def test_every_action_a_game_parses_has_a_handler(game_id: str) -> None:
    game = get_game(game_id)
    parsed = set(game.action_adapter.json_schema()["discriminator"]["mapping"])
    assert parsed == {cls.model_fields["type"].default for cls in game.handlers}
    assert all(issubclass(cls, ActionModel) for cls in game.handlers)

