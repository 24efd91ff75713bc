"""The game record: one JSON document that replays a whole game, our equivalent of a chess PGN.

See docs/record-format.md.  A record holds the setup (game, players, options, seed, first player) and
the accepted actions in order, each with when it happened and where it came from.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final, Literal

from pydantic import Field, ValidationError, field_validator

from companion.engine.core import (
    ActionModel,
    BoardFile,
    Event,
    FrozenDict,
    FrozenMap,
    Game,
    IllegalAction,
    Player,
    Refusal,
    Setup,
    Value,
)
from companion.engine.errors import Say, UserError, describe_validation_error, plain, read_json_file
from companion.engine.registry import get_game

RECORD_FORMAT: Final = "goldtable-record/1"

#: The input an action came from, kept with it in the record (a bridge `Source` is the hardware behind the
#: first three).
ActionSource = Literal["gpio", "serial", "camera", "touch", "keyboard", "virtual", "bot"]


def now_utc() -> datetime:
    """Wall-clock time for record timestamps (never used for rules; the sand timer has its own clock)."""
    return datetime.now(UTC)


class RecordedAction(Value):
    """One accepted action: when, from which input, and the action itself as JSON."""

    at: datetime
    source: ActionSource
    action: FrozenMap[str, Any]
    #: Which hardware frame carried it (`<source>:<seq>`), so a frame the device resends after a restart
    #: is recognised as already recorded instead of being played twice.  Left out of files when empty.
    ref: str | None = Field(default=None, max_length=64, exclude_if=lambda value: value is None)


class GameRecord(Value):
    """A whole game, replayable with `goldtable replay`."""

    format: Literal["goldtable-record/1"] = RECORD_FORMAT
    game: str
    players: tuple[Player, ...] = Field(min_length=1)
    options: FrozenMap[str, Any] = Field(default_factory=FrozenDict)
    seed: int = 0
    first_player: int = 0
    #: The board files played on (name + sha256); absent in records written before they were recorded,
    #: and left out of files when empty (a generated board), so such records keep their old form.
    boards: tuple[BoardFile, ...] = Field(default=(), exclude_if=lambda value: not value)
    started: datetime | None = None
    actions: tuple[RecordedAction, ...] = ()

    @field_validator("players")
    @classmethod
    def _names_unique(cls, players: tuple[Player, ...]) -> tuple[Player, ...]:
        """Scores are reported by name, so two seats may not share one."""
        names = [player.name for player in players]
        if len(set(names)) != len(names):
            raise ValueError("player names must be different")
        return players

    @classmethod
    def from_setup(cls, setup: Setup, actions: tuple[RecordedAction, ...] = (),
                   started: datetime | None = None) -> GameRecord:
        """A record for a setup and the actions accepted so far."""
        return cls(game=setup.game, players=setup.players, options=setup.options, seed=setup.seed,
                   first_player=setup.first_player, boards=setup.boards, started=started, actions=actions)

    def setup(self) -> Setup:
        """The setup this record starts from."""
        return Setup(game=self.game, players=self.players, options=self.options, seed=self.seed,
                     first_player=self.first_player, boards=self.boards)

    def to_json(self) -> str:
        """Pretty JSON, stable field order, for files people may read."""
        return json.dumps(self.model_dump(mode="json"), indent=2, ensure_ascii=False) + "\n"


class ReplayError(UserError):
    """An action in a record that the rules refuse (or cannot read).  `index` counts from 0.

    A refusal is kept with its game's catalog domain, so `text(say)` writes its reason as a person
    reads it (the CLI: in English from the catalogs, "1 chip"); `str()` fills in the bare template."""

    def __init__(self, source: str | Path, index: int, reason: str, refusal: Refusal | None = None,
                 domain: str = "") -> None:
        self.where = f"{source}: action {index}: {reason}"
        self.index = index
        self.refusal = refusal
        self.domain = domain
        super().__init__(self.text())

    @classmethod
    def refused(cls, source: str | Path, index: int, action: ActionModel, refusal: Refusal,
                domain: str) -> ReplayError:
        """`action N: TYPE refused by RULE (CODE): reason`, for every path that re-applies a record."""
        return cls(source, index, f"{action.type} refused by {refusal.rule} ({refusal.code})", refusal, domain)

    def text(self, say: Say = plain) -> str:
        if self.refusal is None:
            return self.where
        return f"{self.where}: {say(self.domain, self.refusal.message, self.refusal.params)}"


class Replay(Value):
    """The outcome of re-applying a record: the final state (as the game's model) and every event."""

    model_config = Value.model_config | {"arbitrary_types_allowed": True}

    state: Value
    events: tuple[Event, ...]


def load_record(path: str | Path) -> GameRecord:
    """Read and validate a record file; any problem becomes a one-line UserError naming file and field."""
    raw = read_json_file(path, " (`goldtable export ID -o FILE` writes a journalled game as a record)")
    try:
        record = GameRecord.model_validate(raw)
    except ValidationError as error:
        raise UserError(describe_validation_error(path, error)) from None
    try:
        game = get_game(record.game)
    except KeyError as error:
        raise UserError(f"{path}: game: {error.args[0]}") from None
    try:
        game.options(record.options)
    except ValidationError as error:
        raise UserError(describe_validation_error(f"{path}: options", error)) from None
    except UserError as error:  # an option naming a file that is missing or broken (a Chinagold board)
        raise UserError(f"{path}: options: {error}") from None
    try:
        game.check_setup(record.setup())
    except UserError as error:
        raise UserError(f"{path}: {error}") from None
    return record


def parse_recorded(game: Game[Any, Any], entry: RecordedAction, source: str | Path, index: int) -> ActionModel:
    """The typed action of one record entry, or a ReplayError naming its index."""
    try:
        return game.parse_action(entry.action)
    except ValidationError as error:
        detail = describe_validation_error("action", error).removeprefix("action: ")
        raise ReplayError(source, index, f"unreadable action: {detail}") from None


def replay(record: GameRecord, source: str | Path = "record") -> Replay:
    """Re-apply every action of a record; the first illegal one raises ReplayError with its index.
    A record whose board files have changed since is refused first (companion.engine.boards)."""
    from companion.engine.boards import check_boards

    game = get_game(record.game)
    check_boards(game, record.setup(), str(source))
    state = game.initial_state(record.setup())
    events: list[Event] = []
    for index, entry in enumerate(record.actions):
        action = parse_recorded(game, entry, source, index)
        try:
            state, new_events = game.apply(state, action)
        except IllegalAction as error:
            raise ReplayError.refused(source, index, action, error.refusal, game.id) from None
        events.extend(new_events)
    return Replay(state=state, events=tuple(events))


def summary(record: GameRecord, state: Value) -> dict[str, Any]:
    """The final summary printed by `goldtable replay --json`."""
    game = get_game(record.game)
    names = [player.name for player in record.players]
    scores = game.scores(state)
    return {
        "game": record.game,
        "over": game.is_over(state),
        "actions": len(record.actions),
        "scores": {name: int(score) for name, score in zip(names, scores)},
        "winners": [names[seat] for seat in game.winners(state)] if game.is_over(state) else [],
    }
