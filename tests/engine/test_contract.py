"""The shared engine contract: one refusal helper, one dice check against the prompt, one phase table per
game from which "not now", the prompt's expectations and the legal candidates all follow, and one
accessor for whose input is due.  Every installed game is held to it in play by tests/conformance."""

from __future__ import annotations

from typing import Any, Literal

import pytest
from pydantic import BaseModel, ValidationError

from companion.engine import Prompt, Setup, all_games, get_game
from companion.engine.core import ActionModel, DiceRefusals, Event, Value, check_dice, refuse
from companion.engine.rules_kit import (
    DiceRoll,
    FrozenDict,
    Game,
    Handler,
    PhaseRule,
    no_check,
    parse_actions,
    roll_check,
)
from companion.games.chinagold.rules import FOUR_GONE
from tests.chinagold.cg_helpers import position


def test_refuse_takes_code_message_rule_and_keeps_every_keyword_as_a_param() -> None:
    refusal = refuse("x.code", "Rule {rule} for {code}", "X-1", rule="R", code="C")
    assert (refusal.code, refusal.rule, refusal.text()) == ("x.code", "X-1", "Rule R for C")


WORDING = DiceRefusals(rule="X-2", count_code="dice.count", count_message="{want} dice, not {got}",
                       face_code="dice.face", face_message="die {die} ({name}) has no {face}; faces {faces}")


def test_check_dice_reads_count_and_faces_from_the_prompt() -> None:
    prompt = Prompt(player=0, expects=("roll",), message="", dice=(("1", "2"), ("L", "3")))
    assert check_dice(prompt, ("2", "L"), WORDING) is None
    assert check_dice(prompt, (1, 3), WORDING) is None  # numbers are compared as face tokens
    count = check_dice(prompt, ("1",), WORDING)
    assert count is not None and (count.code, count.rule, count.text()) == ("dice.count", "X-2", "2 dice, not 1")
    face = check_dice(prompt, ("1", "2"), WORDING, name=("red", "green"))
    assert face is not None and face.code == "dice.face"
    assert face.text() == "die 1 (green) has no 2; faces L 3" and face.params["value"] == "2"


class Bet(ActionModel):
    """An action whose tag comes from its class name."""

    stake: int


class PlaceArrow(ActionModel):
    """A class name of two words: its tag is both, in snake case."""

    heading: str


class Shout(ActionModel):
    """A class that names its own tag."""

    type: Literal["call"] = "call"


def test_an_actions_tag_is_its_class_name_in_snake_case_unless_it_declares_one() -> None:
    assert Bet(stake=1).type == "bet"
    assert PlaceArrow(heading="N").model_dump() == {"type": "place_arrow", "heading": "N"}
    assert Shout().type == "call"
    assert DiceRoll(values=()).type == "roll"
    with pytest.raises(ValidationError):
        PlaceArrow.model_validate({"type": "arrow", "heading": "N"})


def test_parse_actions_picks_the_class_by_type_and_refuses_an_unknown_one() -> None:
    parser = parse_actions(DiceRoll, Bet)
    assert parser.validate_python({"type": "bet", "stake": 3}) == Bet(stake=3)
    assert parser.validate_python({"type": "roll", "values": ["2"]}) == DiceRoll(values=("2",))
    with pytest.raises(ValidationError):
        parser.validate_python({"type": "fold"})


def test_roll_check_refuses_a_roll_in_the_games_words_against_the_dice_its_prompt_asks_for() -> None:
    class TwoDice(TableGame):
        def prompt(self, state: Step) -> Prompt:
            return Prompt(player=0, expects=("roll",), message="", dice=(("1", "2"), ("L", "3")))

    check = roll_check(WORDING)
    game, state = TwoDice(), Step(phase="open")
    assert check(game, state, DiceRoll(values=("2", "L"))) is None
    refusal = check(game, state, DiceRoll(values=("2",)))
    assert refusal is not None and (refusal.code, refusal.text()) == ("dice.count", "2 dice, not 1")


def test_chinagold_throw_is_checked_against_the_tiles_in_play() -> None:
    game = get_game("chinagold")
    state = position()
    three = game.validate(state, game.parse_action({"type": "throw", "values": [0, 0, 1]}))
    assert three is None
    fewer = state.evolve(tiles=FOUR_GONE)  # two tiles: 0|1 and 1|2
    too_many = game.validate(fewer, game.parse_action({"type": "throw", "values": [0, 0, 1]}))
    assert too_many is not None and (too_many.code, too_many.rule) == ("throw.count", "CG-3")
    face = game.validate(fewer, game.parse_action({"type": "throw", "values": [0, 0]}))
    assert face is not None and face.code == "throw.face" and face.params["tile"] == "1|2"
    assert game.validate(fewer, game.parse_action({"type": "throw", "values": [1, 2]})) is None


# -- the phase table, on a game made only of it ------------------------------------------------------------
class Step(Value):
    phase: Literal["open", "closed", "over"]
    ready: bool = False


class Go(ActionModel):
    """Closes the table."""


class Wait(ActionModel):
    """Keeps it open."""


def _advance(game: Any, state: Step, action: ActionModel) -> tuple[Step, list[Event]]:
    return state.evolve(phase="closed" if action.type == "go" else "open"), [Event(kind=action.type)]


class TableGame(Game[Step, Any]):
    """Two phases: `open` accepts go (offered when ready) and wait; `closed` accepts a roll only (of the no
    dice its prompt asks for, so the roll's own check refuses every one)."""

    id = "table_test"
    not_now_message = "Expected {expected}"
    phases = FrozenDict({
        "open": PhaseRule(allows=("go", "wait"), rule="T-1", offered={"go": lambda state: state.ready}),
        "closed": PhaseRule(allows=("roll",), rule="T-2",
                            refusals={"go": lambda state: refuse("go.twice", "Gone already", "T-3")}),
        "over": PhaseRule(allows=(), rule="T-9", seated=False,
                          otherwise=lambda state: refuse("game.over", "Over", "T-9")),
    })
    handlers = FrozenDict({
        Go: Handler(no_check, _advance), Wait: Handler(no_check, _advance),
        DiceRoll: Handler(roll_check(WORDING), _advance)})
    candidates = FrozenDict({"go": lambda game, state: [Go()], "wait": lambda game, state: [Wait()]})

    def initial_state(self, setup: Setup) -> Step:
        return Step(phase="open")

    def prompt(self, state: Step) -> Prompt:
        return Prompt(player=self.phase_player(state, 0), expects=self.expects(state), message="")

    def is_over(self, state: Step) -> bool:
        return state.phase == "over"

    def scores(self, state: Step) -> list[int]:
        return [0]


def test_phase_table_derives_expects_not_now_and_candidates() -> None:
    game = TableGame()
    waiting, ready = Step(phase="open"), Step(phase="open", ready=True)
    assert game.expects(waiting) == ("wait",) and game.expects(ready) == ("go", "wait")
    assert game.listed_actions(waiting) == [Wait()] and game.listed_actions(ready) == [Go(), Wait()]
    assert game.validate(waiting, Go()) is None  # accepted though not offered: its own check decides
    roll = game.validate(waiting, DiceRoll(values=("1",)))
    assert roll is not None and (roll.code, roll.rule, roll.text()) == ("action.not_now", "T-1", "Expected wait")
    closed = game.apply(ready, Go())[0]
    assert closed.phase == "closed" and game.listed_actions(closed) is None  # a roll has no candidates
    assert game.validate(closed, Go()) == refuse("go.twice", "Gone already", "T-3")
    too_many = game.validate(closed, DiceRoll(values=("1",)))  # the handler's own check
    assert too_many is not None and (too_many.code, too_many.text()) == ("dice.count", "0 dice, not 1")
    over = Step(phase="over")
    assert game.validate(over, Wait()) == refuse("game.over", "Over", "T-9")
    assert game.prompt(over).player is None and game.to_move(over) is None and game.to_move(closed) == 0


class Knobs(BaseModel):
    """Options of the game below."""

    loud: bool = False


class NamedGame(TableGame, Game[Step, Knobs]):
    """A game whose class line names its options; TableGame's Any is no model and sets none."""


def test_models_and_action_parser_come_from_the_class_line_and_the_handler_table() -> None:
    assert TableGame.state_model is Step and "options_model" not in vars(TableGame)
    assert NamedGame.state_model is Step and NamedGame.options_model is Knobs
    parse = TableGame.action_adapter.validate_python
    assert parse({"type": "go"}) == Go() and parse({"type": "roll", "values": []}) == DiceRoll(values=())
    with pytest.raises(ValidationError):
        parse({"type": "bet", "stake": 1})  # a class with no handler here
    for game in all_games().values():  # a game without a handler table (a test's) parses as it says
        declared = {kind.model_fields["type"].default for kind in type(game).handlers}
        assert not declared or set(game.action_adapter.json_schema()["discriminator"]["mapping"]) == declared
