"""Values stay values: `evolve` validates like construction, and nothing in a value changes in place."""

from __future__ import annotations

import copy
import json
import pickle

import pytest
from pydantic import ValidationError

from companion.engine import Player, Setup, get_game
from companion.engine.core import Event, FrozenDict, Refusal
from companion.games.gold_connection.rules import GoldConnection, GoldConnectionState


def _gold_connection_state() -> tuple[GoldConnection, GoldConnectionState]:
    game = get_game("gold_connection")
    assert isinstance(game, GoldConnection)
    setup = Setup(game="gold_connection", players=(Player(name="Ann"), Player(name="Ben")), seed=3)
    return game, game.initial_state(setup)


def test_evolve_refuses_a_misspelt_field_and_leaves_the_value_alone() -> None:
    _, state = _gold_connection_state()
    with pytest.raises(ValidationError, match="chip_suply"):
        state.evolve(chip_suply=3)
    assert "chip_suply" not in state.__dict__ and state.chip_supply == 20


def test_evolve_refuses_a_wrong_type() -> None:
    _, state = _gold_connection_state()
    with pytest.raises(ValidationError, match="counter"):
        state.evolve(counter="3")  # strict: no silent coercion of a string into a count
    with pytest.raises(ValidationError, match="phase"):
        state.evolve(phase="dancing")


def test_evolve_returns_a_new_frozen_value_of_the_same_kind() -> None:
    _, state = _gold_connection_state()
    later = state.evolve(counter=4)
    assert type(later) is type(state) and later.counter == 4 and state.counter == 0
    with pytest.raises(ValidationError):
        later.counter = 5  # type: ignore[misc]
    with pytest.raises(TypeError):
        later.safes["S1"] = ()  # type: ignore[index]


def test_mappings_in_values_cannot_be_changed_in_place() -> None:
    _, state = _gold_connection_state()
    rows = state.robbers[0].rows
    assert isinstance(state.safes, FrozenDict) and isinstance(rows, FrozenDict)
    for change in (lambda: rows.__setitem__("B4", (1,)), lambda: rows.pop("B4"), lambda: rows.update(B4=(1,)),
                   rows.clear, rows.popitem, lambda: rows.setdefault("X", ()), lambda: rows.__delitem__("B4")):
        with pytest.raises(TypeError):
            change()
    refusal = Refusal(code="c", message="{a}", rule="R-1", params={"a": 1})
    with pytest.raises(TypeError):
        refusal.params["a"] = 2  # type: ignore[index]
    assert refusal.text() == "1"


def test_frozen_mappings_keep_json_equality_and_hash() -> None:
    game, state = _gold_connection_state()
    text = game.state_to_json(state)
    again = game.state_from_json(text)
    assert again == state and game.state_to_json(again) == text
    assert isinstance(json.loads(text)["safes"], dict)
    assert state.safes == dict(state.safes) and hash(state) == hash(again)
    assert copy.deepcopy(state) == state and pickle.loads(pickle.dumps(state)) == state


def test_frozen_dict_on_its_own() -> None:
    frozen = FrozenDict({"a": 1})
    assert frozen == {"a": 1} and frozen | {"b": 2} == {"a": 1, "b": 2} and frozen == {"a": 1}
    assert hash(frozen) == hash(FrozenDict(a=1)) != hash(FrozenDict(a=2))
    with pytest.raises(TypeError):
        frozen |= {"b": 2}


def test_message_parameters_are_frozen_all_the_way_down() -> None:
    event = Event(kind="k", message="{faces}", params={"faces": ["B", "Y"], "scores": {"Ann": [3]}})
    assert event.params["faces"] == ("B", "Y") and event.params["scores"] == {"Ann": (3,)}
    with pytest.raises(TypeError):
        event.params["scores"]["Ann"] = (4,)  # type: ignore[index]
    assert hash(event) == hash(Event.model_validate_json(event.model_dump_json()))
    assert json.loads(event.model_dump_json())["params"] == {"faces": ["B", "Y"], "scores": {"Ann": [3]}}
