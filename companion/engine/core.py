"""The contract every game implements, and the small value types it trades in.

A game is pure: given a state and an action it says whether the action is allowed and what the next
state is.  Nothing here touches a clock, a file, a screen or a pin, so the same rules run in the app,
in `goldtable replay`, in tests and in benchmarks.
"""

from __future__ import annotations

import inspect
import re
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import reduce
from operator import or_
from pathlib import Path
from random import Random
from typing import Annotated, Any, ClassVar, Generic, Literal, NoReturn, Self, TypeVar, cast, get_args, get_origin

from pydantic import BaseModel, ConfigDict, Field, GetCoreSchemaHandler, TypeAdapter, ValidationError
from pydantic_core import core_schema

K = TypeVar("K")
V = TypeVar("V")


def N_(message: str) -> str:
    """Mark a message for translation without translating it here (the app translates on display)."""
    return message


class FrozenDict(dict[K, V]):
    """A dict that refuses every change after it is built, so a frozen value holding one stays unchanged.

    A dict subclass rather than a new mapping type: it compares equal to a plain dict, serialises to the
    same JSON, and code that reads a value's mapping keeps working.  It hashes like the frozenset of its
    items, so values holding one can be hashed (when the items can).
    """

    __slots__ = ()

    def _immutable(self, *args: object, **kwargs: object) -> NoReturn:
        raise TypeError(f"{type(self).__name__} cannot be changed; build a new one (e.g. with evolve)")

    __setitem__ = __delitem__ = __ior__ = clear = pop = popitem = setdefault = update = _immutable

    def __hash__(self) -> int:  # type: ignore[override]  # dict sets __hash__ = None; this one is immutable
        return hash(frozenset(self.items()))

    def __reduce__(self) -> tuple[type[FrozenDict[K, V]], tuple[dict[K, V]]]:
        """Copy and pickle through the constructor (the default would call the refused __setitem__)."""
        return type(self), (dict(self),)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({dict.__repr__(self)})"


def deep_freeze(value: Any) -> Any:
    """`value` with every dict inside turned into a FrozenDict and every list into a tuple."""
    if isinstance(value, dict):
        return FrozenDict({key: deep_freeze(item) for key, item in value.items()})
    if isinstance(value, list | tuple):
        return tuple(deep_freeze(item) for item in value)
    return value


@dataclass(frozen=True)
class _Freeze:
    """Pydantic metadata: validate as the annotated mapping type, then keep the result as a FrozenDict
    (`deep`: with the lists and dicts inside frozen as well, for free-form parameters)."""

    deep: bool = False

    def __get_pydantic_core_schema__(self, source: Any, handler: GetCoreSchemaHandler) -> core_schema.CoreSchema:
        return core_schema.no_info_after_validator_function(deep_freeze if self.deep else FrozenDict,
                                                            handler(source))


#: The field type for mappings in values: read as a `Mapping`, given as any dict, stored as a FrozenDict.
FrozenMap = Annotated[Mapping[K, V], _Freeze()]
#: Free-form message parameters (refusals, events, prompts): frozen all the way down, lists become tuples.
FrozenParams = Annotated[Mapping[str, Any], _Freeze(deep=True)]


class Value(BaseModel):
    """Base for immutable values: states, actions, events.  Frozen so a state can be shared safely.

    Mappings in values are `FrozenDict` and sequences tuples, so nothing in a value can be changed in place.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    def evolve(self, **changes: Any) -> Self:
        """A copy with `changes`, validated like a new value: a misspelt field or a wrong type raises
        pydantic's ValidationError (`model_copy(update=...)` would store either without a word)."""
        return self.model_validate({**self.__dict__, **changes}, strict=True)


class ActionModel(Value):
    """Base for actions.  An action's `type`, the tag JSON and the journal carry and the games' action
    unions are told apart by, is its class name in snake case (`TimeUp` is `time_up`): set here, so a
    game's action class states only its fields.  A class may declare `type: Literal[...]` itself."""

    type: str = ""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        declared = inspect.get_annotations(cls)
        if "type" not in declared:
            tag = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", cls.__name__).lower()
            cls.__annotations__ = {**declared, "type": Literal[tag]}
            cls.type = tag


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
    options: FrozenMap[str, Any] = Field(default_factory=FrozenDict)
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
    params: FrozenParams = Field(default_factory=FrozenDict)

    def text(self) -> str:
        """The message with its parameters filled in."""
        return self.message.format(**self.params)


def refuse(code: str, message: str, rule: str, /, **params: Any) -> Refusal:
    """A refusal: stable code, English message template, the rule it cites, then the template's fields.

    The one argument order every game uses (code, message, rule)."""
    return Refusal(code=code, message=message, rule=rule, params=params)


class Event(Value):
    """Something that happened as an action was applied, for the log, the screen and the buzzer."""

    kind: str
    message: str = ""
    params: FrozenParams = Field(default_factory=FrozenDict)

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
    params: FrozenParams = Field(default_factory=FrozenDict)
    dice: tuple[tuple[str, ...], ...] = ()
    roll_action: str | None = None

    def text(self) -> str:
        """The message with its parameters filled in."""
        return self.message.format(**self.params)


@dataclass(frozen=True)
class DiceRefusals:
    """How one game words a roll that does not fit its dice: the rule cited and, for a wrong number of
    dice and for an impossible face, a code and a message template.

    Count messages may use `{count}` (= `{got}`) and `{want}`; face messages `{face}` (= `{value}`, the
    value as entered), `{die}` (0-based) and `{faces}` (the die's faces).
    """

    rule: str
    count_code: str
    count_message: str
    face_code: str
    face_message: str


@dataclass(frozen=True)
class DiceMisfit:
    """How a roll does not fit the dice that are due: `got` values for `want` dice, or (`die` set) the
    0-based die `die` showing `value`, which is not one of its faces."""

    got: int
    want: int
    die: int | None = None
    value: object = None


def dice_misfit(dice: Sequence[Sequence[str]], values: Sequence[object]) -> DiceMisfit | None:
    """The one check of a roll against the dice that are due (one tuple of faces per die, as
    `Prompt.dice`): one value per die, each one of that die's faces; None when the roll fits.

    Values are compared as face tokens (`str(value)`), so games that enter numbers check the same way as
    games that enter letters.  The rules word a misfit as their refusal (`check_dice`); the table, for a
    roll from hardware or the keypad, as what to enter by touch instead."""
    if len(values) != len(dice):
        return DiceMisfit(got=len(values), want=len(dice))
    for die, (value, faces) in enumerate(zip(values, dice)):
        if str(value) not in faces:
            return DiceMisfit(got=len(values), want=len(dice), die=die, value=value)
    return None


def check_dice(prompt: Prompt, values: Sequence[object], refusals: DiceRefusals,
               **per_die: Sequence[object]) -> Refusal | None:
    """A roll checked against what the prompt asks for (`dice_misfit`), refused in the game's words.

    Each `per_die` sequence names something per die (e.g. `tile=state.tiles`); the face refusal carries
    the entry of the offending die under that name.
    """
    misfit = dice_misfit(prompt.dice, values)
    if misfit is None:
        return None
    if misfit.die is None:
        return refuse(refusals.count_code, refusals.count_message, refusals.rule,
                      count=misfit.got, got=misfit.got, want=misfit.want)
    die = misfit.die
    return refuse(refusals.face_code, refusals.face_message, refusals.rule, face=misfit.value, value=misfit.value,
                  die=die, faces=" ".join(prompt.dice[die]), **{name: names[die] for name, names in per_die.items()})


def roll_rng(seed: int, moves: int) -> Random:
    """Where the Pi's roll after `moves` actions of a game set up with `seed` comes from (`Game.virtual_roll`):
    the same game at the same move rolls alike, in the app, in a replay and in a scripted example."""
    return Random(f"{seed}:{moves}")


class IllegalAction(Exception):
    """Raised by `Game.apply` when handed an action that `validate` refuses."""

    def __init__(self, refusal: Refusal) -> None:
        super().__init__(f"{refusal.rule} {refusal.code}: {refusal.text()}")
        self.refusal = refusal


StateT = TypeVar("StateT", bound=Value)
OptionsT = TypeVar("OptionsT", bound=BaseModel)


@dataclass(frozen=True)
class PhaseRule:
    """One row of a game's phase table: which action types the phase accepts and how others are refused.

    - `allows`: the action types accepted in this phase (their own checks still apply), in prompt order.
    - `rule`: the rule cited when an action of another type comes now.
    - `offered`: per allowed type, when the prompt offers it (default: always); a type accepted but not
      offered is answered by its own check, with its own reason.
    - `refusals`: per other type, the refusal to give instead of the generic "not now".
    - `otherwise`: the refusal for every type not allowed (e.g. "the game is over"), if not generic.
    - `seated`: False when no seat acts (table setup, game over): the prompt's player is None then.
    - `setup`: True where seats act before play proper (Gold Connection's start rolls and arrows): the
      score chart counts its turns from the first phase without it, as the game's own turn counter does.
    """

    allows: tuple[str, ...]
    rule: str
    offered: Mapping[str, Callable[[Any], bool]] = field(default_factory=dict)
    refusals: Mapping[str, Callable[[Any], Refusal]] = field(default_factory=dict)
    otherwise: Callable[[Any], Refusal] | None = None
    seated: bool = True
    setup: bool = False


@dataclass(frozen=True)
class Handler:
    """What a game does with one action class: `check(game, state, action)` returns a refusal or None
    (called only when the phase allows the action), `apply(game, state, action)` the next state and events."""

    check: Callable[[Any, Any, Any], Refusal | None]
    apply: Callable[[Any, Any, Any], tuple[Any, list[Event]]]


def parse_actions(*kinds: type[ActionModel]) -> TypeAdapter[Any]:
    """A game's `action_adapter`: JSON becomes the action class whose `type` it names (one discriminated
    union over `kinds`, so an unknown or misspelt type is a validation error, not a guess)."""
    union: Any = reduce(or_, kinds)
    return TypeAdapter(Annotated[union, Field(discriminator="type")])


def _model(kind: object, base: type[BaseModel]) -> bool:
    """Whether a type argument of `Game[...]` is a model (not a TypeVar, nor `Any`, a class since 3.11)."""
    return isinstance(kind, type) and issubclass(kind, base)


class Game(ABC, Generic[StateT, OptionsT]):
    """Rules of one game, declared to the app by its package's `GameDeclaration` (companion.engine.registry).

    Subclasses set the class attributes and implement the abstract hooks; `apply` is provided and always
    validates first, so an illegal action can never produce a state.  What the class line and the handler
    table already say is not written again: `state_model` and `options_model` are the two types of
    `Game[State, Options]`, and `action_adapter` reads JSON into the handler table's action classes (a
    game may set any of the three itself).
    """

    id: ClassVar[str]
    title: ClassVar[str]
    min_players: ClassVar[int]
    max_players: ClassVar[int]
    rule_prefix: ClassVar[str]
    options_model: ClassVar[type[BaseModel]]
    state_model: ClassVar[type[Value]]
    action_adapter: ClassVar[TypeAdapter[Any]]
    #: The phase table (see PhaseRule), keyed by `phase_of(state)`; games without one override validate.
    phases: ClassVar[Mapping[str, PhaseRule]] = {}
    #: Typed dispatch: the handler per action class (used by the default validate and _apply).
    handlers: ClassVar[Mapping[type[ActionModel], Handler]] = {}
    #: Per action type, the candidates `legal_actions` lists when that type is offered; a type offered
    #: without an entry means the set is too large to list (legal_actions returns None).
    candidates: ClassVar[Mapping[str, Callable[[Any, Any], Sequence[ActionModel]]]] = {}
    #: Message of the generic "not now" refusal (code `action.not_now`); `{expected}` lists what is offered.
    not_now_message: ClassVar[str] = "Not now: the table expects {expected}."

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        declared = vars(cls)
        for base in declared.get("__orig_bases__", ()):
            if get_origin(base) is Game:
                state, options = get_args(base)
                if "state_model" not in declared and _model(state, Value):
                    cls.state_model = state
                if "options_model" not in declared and _model(options, BaseModel):
                    cls.options_model = options
        if "action_adapter" not in declared and cls.handlers:
            cls.action_adapter = parse_actions(*cls.handlers)

    # -- setup -------------------------------------------------------------------------------------
    def options(self, raw: Mapping[str, Any]) -> OptionsT:
        """Validate raw options (from a record, a file or the Options screen); unknown names are errors,
        so a misspelt house rule is reported instead of silently ignored."""
        unknown = [key for key in raw if key not in self.options_model.model_fields]
        if unknown:
            raise ValidationError.from_exception_data(self.options_model.__name__, [
                {"type": "extra_forbidden", "loc": (key,), "input": raw[key]} for key in unknown])
        return cast(OptionsT, self.options_model.model_validate(raw))

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
        return cast(ActionModel, self.action_adapter.validate_python(raw))

    def validate(self, state: StateT, action: ActionModel) -> Refusal | None:
        """None when the action is allowed now, otherwise the refusal that says why not.

        By default: the phase table answers "not now", then the action's handler checks the rest."""
        return self.check_phase(state, action) or self.handlers[type(action)].check(self, state, action)

    def _apply(self, state: StateT, action: ActionModel) -> tuple[StateT, list[Event]]:
        """Apply an action already validated; never called with an illegal one.  By default: its handler."""
        return self.handlers[type(action)].apply(self, state, action)

    # -- phases ------------------------------------------------------------------------------------
    def phase_of(self, state: StateT) -> str:
        """The key of the phase table row in force (by default the state's `phase` field)."""
        return str(getattr(state, "phase"))  # noqa: B009 - StateT is only known to be a Value here

    def in_play(self, state: StateT) -> bool:
        """Whether play proper is under way (not a setup phase of the phase table, `PhaseRule.setup`)."""
        return not self.phases[self.phase_of(state)].setup

    def to_move(self, state: StateT) -> int | None:
        """The seat whose input is due now, None when no seat's (game over, table setup).

        Games name this differently in their states (`digger`, `current`, `actor`, `to_move`) and override
        this cheaply (see `phase_player`); generic code (app, bots, benchmarks) asks here.  It is always
        the prompt's `player`; by default it is read from the prompt.
        """
        return self.prompt(state).player

    def expects(self, state: StateT) -> tuple[str, ...]:
        """The action types the prompt offers now, from the phase table."""
        row = self.phases[self.phase_of(state)]
        return tuple(kind for kind in row.allows if kind not in row.offered or row.offered[kind](state))

    def check_phase(self, state: StateT, action: ActionModel) -> Refusal | None:
        """The phase table's answer: None when the phase accepts this action type, else why not now."""
        row = self.phases[self.phase_of(state)]
        if action.type in row.allows:
            return None
        special = row.refusals.get(action.type) or row.otherwise
        if special is not None:
            return special(state)
        return refuse("action.not_now", self.not_now_message, row.rule,
                      expected=", ".join(self.expects(state)), action=action.type, got=action.type)

    def phase_player(self, state: StateT, seat: int) -> int | None:
        """`seat` when the phase table says a seat acts now, else None (for prompts)."""
        return seat if self.phases[self.phase_of(state)].seated else None

    def listed_actions(self, state: StateT) -> list[ActionModel] | None:
        """The candidates of every offered type (see `candidates`), in the table's order; None when an
        offered type has too many to list."""
        actions: list[ActionModel] = []
        for kind in self.expects(state):
            if kind not in self.candidates:
                return None
            actions.extend(self.candidates[kind](self, state))
        return actions

    def offered(self, state: StateT, kind: str, checked: bool = False) -> list[ActionModel]:
        """The candidates of one action type when the phase table offers it now, else none: what a panel
        may show or a bot pick from, without naming phases.  A candidate may still be refused by its own
        check (a loot in the safe where the turn began); `checked` keeps only those `validate` accepts.
        A type offered that has no candidates (too many to list) raises KeyError."""
        if kind not in self.expects(state):
            return []
        found = list(self.candidates[kind](self, state))
        return [action for action in found if self.validate(state, action) is None] if checked else found

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
        """A dice action with values from `rng` (`roll_rng`), for tables that want the Pi to roll; None if no
        roll is due."""
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
        return cast(StateT, self.state_model.model_validate_json(text))
