"""Dice race's rules.  Rule ids:

- DR-1: pawns race from square 0 (the start) to the finish square; players take turns in seat order.
- DR-2: a turn starts with a roll of one die (faces 1-6).
- DR-3: after the roll the player moves their pawn forward by the roll, or stays where it is.
- DR-4: a pawn that ends its move on another pawn's square sends that pawn back to the start.
- DR-5: with the option `exact_finish`, a move past the finish is not allowed (the player stays).
- DR-6: the first pawn on the finish wins, and the game is over.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from companion.engine.core import N_, ActionModel, DiceRefusals, Event, Prompt, Refusal, Setup, Value, refuse
from companion.engine.rules_kit import (
    DiceRoll,
    FrozenDict,
    Game,
    Handler,
    PhaseRule,
    no_check,
    roll_check,
)

FACES: tuple[str, ...] = ("1", "2", "3", "4", "5", "6")


class DiceRaceOptions(BaseModel):
    """The length of the track and how the finish is reached."""

    model_config = ConfigDict(extra="forbid")

    finish: int = Field(12, ge=6, le=30, description="Squares from the start to the finish")
    exact_finish: bool = Field(False, description="DR-5: a pawn must land exactly on the finish")


class DiceRaceState(Value):
    finish: int
    exact_finish: bool
    names: tuple[str, ...]
    pawns: tuple[int, ...]
    turn: int
    phase: Literal["roll", "move", "over"]
    rolled: int = 0


class Roll(DiceRoll):
    """One die as it lies."""


class Advance(ActionModel):
    """Move the pawn by the die just rolled."""


class Stay(ActionModel):
    """Leave the pawn where it is and pass the die on."""


DICE = DiceRefusals(rule="DR-2", count_code="roll.count", count_message=N_("Roll one die, not {count}."),
                    face_code="roll.face", face_message=N_("A die has no face {face}; its faces are {faces}."))
_ROLLS = tuple(Roll(values=(face,)) for face in FACES)


def _roll(game: DiceRace, state: DiceRaceState, action: Roll) -> tuple[DiceRaceState, list[Event]]:
    rolled = int(action.values[0])
    return state.evolve(phase="move", rolled=rolled), [
        Event(kind="rolled", message=N_("{player} rolled {rolled}."), params=game.who(state) | {"rolled": rolled})]


def _check_advance(game: DiceRace, state: DiceRaceState, action: Advance) -> Refusal | None:
    if state.exact_finish and state.pawns[state.turn] + state.rolled > state.finish:
        return refuse("advance.past_finish", N_("{steps} squares would pass the finish: stay where you are."),
                      "DR-5", steps=state.rolled)
    return None


def _advance(game: DiceRace, state: DiceRaceState, action: Advance) -> tuple[DiceRaceState, list[Event]]:
    square = min(state.pawns[state.turn] + state.rolled, state.finish)
    pawns = tuple(0 if seat != state.turn and at == square else at
                  for seat, at in enumerate(state.pawns))
    events = [Event(kind="sent_back", message=N_("{player}'s pawn goes back to the start."),
                    params={"player": state.names[seat]})
              for seat, at in enumerate(state.pawns) if pawns[seat] != at]
    pawns = pawns[:state.turn] + (square,) + pawns[state.turn + 1:]
    if square == state.finish:
        events.append(Event(kind="won", message=N_("{player} reaches the finish and wins."), params=game.who(state)))
        return state.evolve(pawns=pawns, phase="over", rolled=0), events
    return _next_turn(state.evolve(pawns=pawns)), events


def _stay(game: DiceRace, state: DiceRaceState, action: Stay) -> tuple[DiceRaceState, list[Event]]:
    return _next_turn(state), []


def _next_turn(state: DiceRaceState) -> DiceRaceState:
    return state.evolve(turn=(state.turn + 1) % len(state.pawns), phase="roll", rolled=0)


class DiceRace(Game[DiceRaceState, DiceRaceOptions]):
    """The rules of Dice race."""

    id, title, rule_prefix = "dice_race", "Dice race", "DR"
    min_players, max_players = 2, 4
    not_now_message = N_("Not now: the table expects {expected}.")

    phases = FrozenDict({
        "roll": PhaseRule(allows=("roll",), rule="DR-2", otherwise=lambda state: refuse(
            "turn.roll_first", N_("Roll the die first."), "DR-2")),
        "move": PhaseRule(allows=("advance", "stay"), rule="DR-3"),
        "over": PhaseRule(allows=(), rule="DR-6", seated=False, otherwise=lambda state: refuse(
            "game.over", N_("The race is over."), "DR-6")),
    })
    handlers = FrozenDict({Roll: Handler(roll_check(DICE), _roll), Advance: Handler(_check_advance, _advance),
                           Stay: Handler(no_check, _stay)})
    candidates = FrozenDict({
        "roll": lambda game, state: _ROLLS, "advance": lambda game, state: (Advance(),),
        "stay": lambda game, state: (Stay(),)})

    def initial_state(self, setup: Setup) -> DiceRaceState:
        options = self.options(setup.options)
        return DiceRaceState(finish=options.finish, exact_finish=options.exact_finish,
                             names=tuple(player.name for player in setup.players), pawns=(0,) * len(setup.players),
                             turn=setup.first_player, phase="roll")

    def who(self, state: DiceRaceState) -> dict[str, Any]:
        return {"player": state.names[state.turn]}

    def legal_actions(self, state: DiceRaceState) -> list[ActionModel]:
        return [action for action in self.listed_actions(state) or [] if self.validate(state, action) is None]

    def prompt(self, state: DiceRaceState) -> Prompt:
        player, expects = self.phase_player(state, state.turn), self.expects(state)
        if state.phase == "over":
            return Prompt(player=player, expects=expects, message=N_("The race is over."))
        if state.phase == "roll":
            return Prompt(player=player, expects=expects, message=N_("{player}: roll the die."),
                          params=self.who(state), dice=(FACES,), roll_action="roll")
        return Prompt(player=player, expects=expects, message=N_("{player} rolled {rolled}: advance or stay."),
                      params=self.who(state) | {"rolled": state.rolled})

    def is_over(self, state: DiceRaceState) -> bool:
        return state.phase == "over"

    def scores(self, state: DiceRaceState) -> list[int]:
        return list(state.pawns)
