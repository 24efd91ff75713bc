"""A deliberately tiny game used only to test the engine plumbing (session, journal, record, CLI)
independently of any real game's rules: each player in turn rolls one die and adds it to a shared total;
the game ends when the total reaches the `target` option."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, Field, TypeAdapter

from companion.engine.core import N_, ActionModel, Event, Game, Prompt, Refusal, Setup, Value

COUNTING_ID = "counting_test"


class CountingOptions(BaseModel):
    target: int = Field(default=12, ge=1, le=100)


class CountingState(Value):
    target: int
    players: int
    totals: tuple[int, ...]
    turn: int


class Roll(ActionModel):
    type: Literal["roll"] = "roll"
    values: tuple[Literal["1", "2", "3", "4", "5", "6"]]


class Pass(ActionModel):
    type: Literal["pass"] = "pass"


CountingAction = Annotated[Roll | Pass, Field(discriminator="type")]


class CountingGame(Game[CountingState, CountingOptions]):
    id = COUNTING_ID
    title = "Counting (test)"
    min_players = 1
    max_players = 4
    rule_prefix = "CT"
    options_model = CountingOptions
    state_model = CountingState
    action_adapter = TypeAdapter(CountingAction)

    def initial_state(self, setup: Setup) -> CountingState:
        options = self.options(setup.options)
        return CountingState(target=options.target, players=len(setup.players),
                             totals=(0,) * len(setup.players), turn=setup.first_player)

    def validate(self, state: CountingState, action: ActionModel) -> Refusal | None:
        if self.is_over(state):
            return Refusal(code="game.over", message=N_("The game is over."), rule="CT-2")
        if isinstance(action, Pass) and sum(state.totals) == 0:
            return Refusal(code="pass.too_early", message=N_("Roll at least once before passing."), rule="CT-1")
        return None

    def _apply(self, state: CountingState, action: ActionModel) -> tuple[CountingState, list[Event]]:
        totals = list(state.totals)
        if isinstance(action, Roll):
            totals[state.turn] += int(action.values[0])
        nxt = (state.turn + 1) % state.players
        return state.evolve(totals=tuple(totals), turn=nxt), [Event(kind=action.type)]

    def prompt(self, state: CountingState) -> Prompt:
        return Prompt(player=state.turn, expects=("roll", "pass"), message=N_("Roll the die."),
                      dice=(("1", "2", "3", "4", "5", "6"),), roll_action="roll")

    def is_over(self, state: CountingState) -> bool:
        return sum(state.totals) >= state.target

    def scores(self, state: CountingState) -> list[int]:
        return list(state.totals)
