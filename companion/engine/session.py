"""A game in progress: the rules, the states so far, and (optionally) the journal that keeps them.

The app, the CLI and the tests all play through a Session, so "validate, journal, then acknowledge"
happens in exactly one place.  `submit` and `undo` commit on the calling thread (the CLI, replays);
`submit_soon` and `undo_soon` commit on the session's writer thread (`companion.engine.writer`) and
answer on the app's UI thread once the row is on disk.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass, field
from datetime import datetime
from functools import partial
from typing import Any

from pydantic import ValidationError

from companion.engine.boards import check_boards, current_boards
from companion.engine.core import (
    N_,
    ActionModel,
    Event,
    Game,
    IllegalAction,
    Prompt,
    Refusal,
    Setup,
    Value,
    roll_rng,
)
from companion.engine.errors import UserError, describe_validation_error
from companion.engine.journal import Journal, JournalError, Notice
from companion.engine.record import ActionSource, GameRecord, RecordedAction, ReplayError, now_utc, parse_recorded
from companion.engine.registry import get_game
from companion.engine.writer import InlineWriter, Writer


@dataclass(frozen=True)
class Outcome:
    """The answer to one submitted action: accepted with events, or refused with the reason, or (from
    `submit_soon`/`undo_soon`) not saved: `unsaved` is the JournalError's notice, and nothing changed."""

    accepted: bool
    events: tuple[Event, ...] = ()
    refusal: Refusal | None = None
    unsaved: Notice | None = None


@dataclass(frozen=True)
class _Accepted:
    """An action the rules accepted, not yet journalled: what it becomes once it is."""

    entry: RecordedAction
    state: Value
    events: tuple[Event, ...]
    ends_game: bool


NOTHING_TO_UNDO = Refusal(code="undo.nothing", message=N_("There is nothing to undo."), rule="TABLE-1")


@dataclass
class Session:
    """One game being played.  `states[i]` is the state after the first i actions."""

    game: Game  # type: ignore[type-arg]
    setup: Setup
    journal: Journal | None = None
    game_id: int | None = None
    actions: list[RecordedAction] = field(default_factory=list)
    states: list[Value] = field(default_factory=list)
    events: list[tuple[Event, ...]] = field(default_factory=list)
    #: Where `submit_soon` and `undo_soon` commit (the app's writer thread); inline by default.
    writer: Writer = field(default_factory=InlineWriter, repr=False, compare=False)

    # -- creation ----------------------------------------------------------------------------------
    @classmethod
    def new(cls, setup: Setup, journal: Journal | None = None) -> Session:
        """Start a game (journalled when a journal is given)."""
        game = get_game(setup.game)
        game.check_setup(setup)
        try:
            options = game.options(setup.options)
        except ValidationError as error:
            raise UserError(describe_validation_error("options", error)) from None
        setup = setup.evolve(options=options.model_dump(mode="json"))
        setup = setup.evolve(boards=current_boards(game, setup))
        session = cls(game=game, setup=setup, journal=journal)
        session.states.append(game.initial_state(setup))
        if journal is not None:
            session.game_id = journal.new_game(setup)
        return session

    @classmethod
    def resume(cls, journal: Journal, game_id: int) -> Session:
        """Rebuild a journalled game with exactly the actions that were acknowledged; one the rules refuse
        now raises ReplayError naming it."""
        setup = journal.setup(game_id)
        game = get_game(setup.game)
        check_boards(game, setup, f"journal game {game_id}")
        session = cls(game=game, setup=setup, journal=journal, game_id=game_id)
        session.states.append(game.initial_state(setup))
        for index, entry in enumerate(journal.actions(game_id)):
            action = parse_recorded(game, entry, f"journal game {game_id}", index)
            try:
                state, events = game.apply(session.state, action)
            except IllegalAction as error:  # the rules have changed since: say which action, as a replay does
                raise ReplayError.refused(f"journal game {game_id}", index, action, error.refusal, game.id) from None
            session.actions.append(entry)
            session.states.append(state)
            session.events.append(tuple(events))
        return session

    @classmethod
    def from_record(cls, record: GameRecord, journal: Journal | None = None) -> Session:
        """Continue a game from a record (e.g. an imported file); every action is checked again, and the
        first one refused raises ReplayError."""
        check_boards(get_game(record.game), record.setup(), "record")
        session = cls.new(record.setup(), journal)
        for index, entry in enumerate(record.actions):
            action = parse_recorded(session.game, entry, "record", index)
            outcome = session.submit(action, entry.source, entry.at)
            if not outcome.accepted:
                assert outcome.refusal is not None
                raise ReplayError.refused("record", index, action, outcome.refusal, session.game.id)
        return session

    # -- reading -----------------------------------------------------------------------------------
    @property
    def state(self) -> Value:
        """The current state."""
        return self.states[-1]

    def prompt(self) -> Prompt:
        """What the table has to do next."""
        return self.game.prompt(self.state)

    def is_over(self) -> bool:
        return bool(self.game.is_over(self.state))

    def scores(self) -> list[int]:
        return list(self.game.scores(self.state))

    def record(self) -> GameRecord:
        """This game as a game record."""
        return GameRecord.from_setup(self.setup, tuple(self.actions))

    # -- playing -----------------------------------------------------------------------------------
    def check(self, action: ActionModel | dict[str, Any]) -> tuple[ActionModel | None, Refusal | None]:
        """Parse and validate without changing anything (the app uses it to grey out choices)."""
        if isinstance(action, dict):
            try:
                action = self.game.parse_action(action)
            except ValidationError as error:
                first = error.errors()[0]
                # An unknown `type` fails before any field, so pydantic names no place: it is the type.
                where = ".".join(str(p) for p in first["loc"]) or "type"
                return None, Refusal(code="action.malformed", message=N_("Unreadable input ({where}): {problem}"),
                                     rule="TABLE-2", params={"where": where, "problem": first["msg"]})
        return action, self.game.validate(self.state, action)

    def submit(self, action: ActionModel | dict[str, Any], source: ActionSource,
               at: datetime | None = None, ref: str | None = None) -> Outcome:
        """Validate, journal (durably), then apply.  A refused action changes nothing.

        `ref` names the hardware frame that carried the action (see `is_recorded`).

        The action and, when it ends the game, the end mark are one journal transaction.  Raises
        JournalError when it cannot be committed: then nothing is on disk and the state is unchanged, so
        a retry cannot journal the action twice.
        """
        accepted = self._accept(action, source, at, ref)
        if isinstance(accepted, Outcome):
            return accepted
        self._journal_action(accepted)
        return self._keep(accepted)

    def submit_soon(self, action: ActionModel | dict[str, Any], source: ActionSource, then: Callable[[Outcome], None],
                    ref: str | None = None) -> None:
        """`submit` for the app's UI thread.  At its turn (every write in flight answered first) the action
        is validated: a refusal is answered at once; an accepted action is committed on the writer thread
        and `then(outcome)` follows on the UI thread once it is on disk, or with `unsaved` set if the
        commit failed (then nothing changed, as `submit` raising JournalError)."""
        def at_its_turn() -> None:
            accepted = self._accept(action, source, None, ref)
            if isinstance(accepted, Outcome):
                then(accepted)
            else:
                self._commit(partial(self._journal_action, accepted), partial(self._keep, accepted), then)

        self.writer.in_turn(at_its_turn)

    def _accept(self, action: ActionModel | dict[str, Any], source: ActionSource, at: datetime | None,
                ref: str | None) -> Outcome | _Accepted:
        """The refusal, or the accepted action with the state it leads to (nothing changed yet)."""
        parsed, refusal = self.check(action)
        if refusal is not None or parsed is None:
            return Outcome(accepted=False, refusal=refusal)
        state, events = self.game.apply(self.state, parsed)
        entry = RecordedAction(at=at or now_utc(), source=source, action=parsed.model_dump(mode="json"), ref=ref)
        return _Accepted(entry, state, tuple(events), bool(self.game.is_over(state)))

    def _journal_action(self, accepted: _Accepted) -> None:
        if self.journal is not None and self.game_id is not None:
            self.journal.append(self.game_id, "action", accepted.entry, finished=True if accepted.ends_game else None)

    def _keep(self, accepted: _Accepted) -> Outcome:
        self.actions.append(accepted.entry)
        self.states.append(accepted.state)
        self.events.append(accepted.events)
        return Outcome(accepted=True, events=accepted.events)

    def _commit(self, write: Callable[[], None], keep: Callable[[], Outcome], then: Callable[[Outcome], None]) -> None:
        """`write` on the writer thread; once it is on disk the session `keep`s the change and `then` hears."""
        def landed(result: Future[None]) -> None:
            try:
                result.result()
            except JournalError as error:
                then(Outcome(accepted=False, unsaved=error.notice))
            else:
                then(keep())

        self.writer.write(write, landed)

    def is_recorded(self, ref: str) -> bool:
        """Whether the frame `ref` (`<source>:<seq>`) is already the latest action from its source.

        A device resends its one unacknowledged frame until it hears back, also to a restarted app; only
        that last frame can come twice, so comparing with the source's latest recorded frame suffices.
        """
        prefix = ref.rpartition(":")[0] + ":"
        latest = next((entry.ref for entry in reversed(self.actions)
                       if entry.ref is not None and entry.ref.startswith(prefix)), None)
        return latest == ref

    def virtual_roll_action(self) -> ActionModel | None:
        """The dice the Pi rolls now, from a RNG seeded by the game's seed and move number (`roll_rng`);
        None when no roll is due."""
        return self.game.virtual_roll(self.state, roll_rng(self.setup.seed, len(self.actions)))

    def virtual_roll(self, source: ActionSource = "virtual") -> Outcome | None:
        """Let the Pi roll the dice that are due (`virtual_roll_action`)."""
        action = self.virtual_roll_action()
        return None if action is None else self.submit(action, source)

    def undo(self, source: ActionSource = "touch", ref: str | None = None) -> Outcome:
        """Take back the last action; the undo (with reopening an ended game) is one journal transaction,
        the history kept, journalled with who asked (`source`) and the frame that carried it (`ref`, as
        `submit`'s).  JournalError as for `submit`."""
        if not self.actions:
            return Outcome(accepted=False, refusal=NOTHING_TO_UNDO)
        self._journal_undo(self.is_over(), source, ref)
        return self._take_back()

    def undo_soon(self, then: Callable[[Outcome], None], source: ActionSource = "touch",
                  ref: str | None = None) -> None:
        """`undo` for the app's UI thread, at its turn and answered as `submit_soon` is."""
        def at_its_turn() -> None:
            if not self.actions:
                then(Outcome(accepted=False, refusal=NOTHING_TO_UNDO))
            else:
                self._commit(partial(self._journal_undo, self.is_over(), source, ref), self._take_back, then)

        self.writer.in_turn(at_its_turn)

    def _journal_undo(self, reopens: bool, source: ActionSource, ref: str | None) -> None:
        if self.journal is not None and self.game_id is not None:
            self.journal.append(self.game_id, "undo", None, finished=False if reopens else None, source=source,
                                ref=ref)

    def _take_back(self) -> Outcome:
        self.actions.pop()
        self.states.pop()
        self.events.pop()
        return Outcome(accepted=True, events=(Event(kind="undo", message=N_("Last action taken back.")),))
