"""The contract every game implements, and the small value types it trades in.

A game is pure: given a state and an action it says whether the action is allowed and what the next
state is.  Nothing here touches a clock, a file, a screen or a pin, so the same rules run in the app,
in `goldtable replay`, in tests and in benchmarks.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from pathlib import Path
from random import Random
from typing import Any, ClassVar, Generic, TypeVar

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError


def N_(message: str) -> str:
    """Mark a message for translation without translating it here (the app translates on display)."""
    return message


class Value(BaseModel):
    """Base for immutable values: states, actions, events.  Frozen so a state can be shared safely."""

    model_config = ConfigDict(frozen=True, extra="forbid")


class ActionModel(Value):
    """Base for actions.  Every concrete action declares `type: Literal[...]` as its discriminator."""

    type: str


class Player(Value):
    """A seat at the table.  Seat order is the order of the list; play passes to the left (next index)."""

    name: str = Field(min_length=1, max_length=24)
    colour: str | None = None


class BoardFile(Value):
    """A board or card file a game was played on: its name and the sha256 of its content, so a later edit
    of the file is noticed instead of silently changing an old game's replay (companion.engine.boards)."""

    name: str = Field(min_length=1)
    sha256: str = Field(pattern=r"^[0-9a-f]{64}$")


class Setup(Value):
    """Everything a game starts from: who plays, which options, which seed, who begins, on which boards."""

    game: str
    players: tuple[Player, ...]
    options: dict[str, Any] = Field(default_factory=dict)
    seed: int = 0
    first_player: int = 0
    #: Filled in when a session starts; empty in setups written before boards were recorded.
    boards: tuple[BoardFile, ...] = ()


class Refusal(Value):
    """Why an action is not allowed: a stable code for programs, a message for people, the rule it cites.

    `message` is an English template with `{name}` fields filled from `params`; the app translates the
    template through the game's gettext catalog before filling it in.
    """

    code: str
    message: str
    rule: str
    params: dict[str, Any] = Field(default_factory=dict)

    def text(self) -> str:
        """The message with its parameters filled in."""
        return self.message.format(**self.params)


class Event(Value):
    """Something that happened as an action was applied, for the log, the screen and the buzzer."""

    kind: str
    message: str = ""
    params: dict[str, Any] = Field(default_factory=dict)

    def text(self) -> str:
        """The message with its parameters filled in."""
        return self.message.format(**self.params)


class Prompt(Value):
    """What the table must supply next: whose input, which action types, and which dice if any.

    `dice` lists one tuple of face tokens per die (bridge tokens: `1`-`6`, `L`, `B Y R G W K`, `0 1 2`),
    so the app knows what to ask the hardware or the touch keypad for, and the engine's seeded RNG knows
    what a virtual roll may produce.
    """

    player: int | None
    expects: tuple[str, ...]
    message: str
    params: dict[str, Any] = Field(default_factory=dict)
    dice: tuple[tuple[str, ...], ...] = ()
    roll_action: str | None = None

    def text(self) -> str:
        """The message with its parameters filled in."""
        return self.message.format(**self.params)


class IllegalAction(Exception):
    """Raised by `Game.apply` when handed an action that `validate` refuses."""

    def __init__(self, refusal: Refusal) -> None:
        super().__init__(f"{refusal.rule} {refusal.code}: {refusal.text()}")
        self.refusal = refusal


StateT = TypeVar("StateT", bound=Value)
OptionsT = TypeVar("OptionsT", bound=BaseModel)


class Game(ABC, Generic[StateT, OptionsT]):
    """Rules of one game.  Subclasses are registered with `companion.engine.registry.register`.

    Subclasses set the class attributes and implement the abstract hooks; `apply` is provided and always
    validates first, so an illegal action can never produce a state.
    """

    id: ClassVar[str]
    title: ClassVar[str]
    min_players: ClassVar[int]
    max_players: ClassVar[int]
    rule_prefix: ClassVar[str]
    options_model: ClassVar[type[BaseModel]]
    state_model: ClassVar[type[Value]]
    action_adapter: ClassVar[TypeAdapter[Any]]

    # -- setup -------------------------------------------------------------------------------------
    def options(self, raw: dict[str, Any]) -> OptionsT:
        """Validate raw options (from a record, a file or the Options screen); unknown names are errors,
        so a misspelt house rule is reported instead of silently ignored."""
        unknown = [key for key in raw if key not in self.options_model.model_fields]
        if unknown:
            raise ValidationError.from_exception_data(self.options_model.__name__, [
                {"type": "extra_forbidden", "loc": (key,), "input": raw[key]} for key in unknown])
        return self.options_model.model_validate(raw)  # type: ignore[return-value]

    def check_setup(self, setup: Setup) -> None:
        """Raise UserError (naming the field) when the seats do not fit this game."""
        from companion.engine.errors import UserError

        count = len(setup.players)
        if not self.min_players <= count <= self.max_players:
            raise UserError(f"players: {self.title} needs {self.min_players}-{self.max_players} players, "
                            f"not {count}")
        if not 0 <= setup.first_player < count:
            raise UserError(f"first_player: must be a seat from 0 to {count - 1}")
        if len({player.name for player in setup.players}) != count:
            raise UserError("players: player names must be different")

    def board_files(self, setup: Setup) -> tuple[Path, ...]:
        """The board and card files this setup is played on (their content decides the replay)."""
        return ()

    @abstractmethod
    def initial_state(self, setup: Setup) -> StateT:
        """The state before the first action.  Any shuffling uses `Random(setup.seed)` only."""

    # -- rules -------------------------------------------------------------------------------------
    def parse_action(self, raw: Any) -> ActionModel:
        """Turn JSON (dict) into this game's typed action; raises pydantic.ValidationError."""
        return self.action_adapter.validate_python(raw)  # type: ignore[no-any-return]

    @abstractmethod
    def validate(self, state: StateT, action: ActionModel) -> Refusal | None:
        """None when the action is allowed now, otherwise the refusal that says why not."""

    @abstractmethod
    def _apply(self, state: StateT, action: ActionModel) -> tuple[StateT, list[Event]]:
        """Apply an action already validated; never called with an illegal one."""

    def apply(self, state: StateT, action: ActionModel) -> tuple[StateT, list[Event]]:
        """The next state and what happened; raises IllegalAction for a refused action."""
        refusal = self.validate(state, action)
        if refusal is not None:
            raise IllegalAction(refusal)
        return self._apply(state, action)

    def legal_actions(self, state: StateT) -> list[ActionModel] | None:
        """Every allowed action when the set is small enough to list, else None."""
        return None

    @abstractmethod
    def prompt(self, state: StateT) -> Prompt:
        """What the table has to do next."""

    def virtual_roll(self, state: StateT, rng: Random) -> ActionModel | None:
        """A dice action with values from `rng`, for tables that want the Pi to roll; None if no roll is due."""
        prompt = self.prompt(state)
        if not prompt.dice or prompt.roll_action is None:
            return None
        values = [rng.choice(faces) for faces in prompt.dice]
        return self.parse_action({"type": prompt.roll_action, "values": values})

    # -- outcome -----------------------------------------------------------------------------------
    @abstractmethod
    def is_over(self, state: StateT) -> bool:
        """True once the game has ended."""

    @abstractmethod
    def scores(self, state: StateT) -> list[int]:
        """Current score per seat (live during play, final once over)."""

    def winners(self, state: StateT) -> list[int]:
        """Seats with the best score; games with tie-breaks override this."""
        scores = self.scores(state)
        best = max(scores)
        return [seat for seat, score in enumerate(scores) if score == best]

    # -- serialisation -----------------------------------------------------------------------------
    def state_to_json(self, state: StateT) -> str:
        """The state as canonical JSON (used to prove that replay reproduces a game)."""
        return state.model_dump_json()

    def state_from_json(self, text: str) -> StateT:
        """A state back from `state_to_json`."""
        return self.state_model.model_validate_json(text)  # type: ignore[return-value]
