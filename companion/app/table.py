"""The Table screen's view-model: whose turn, what input is due, refusals, scores, log, undo.

Everything the table shows is computed here from the Session (the only way to play), so the .kv
layout only binds to properties.  Table modules of the games call `submit`/`check` from their panels.
Runs on the UI thread only; hardware events arrive here through `Clock` (see hardware.py).
"""

from __future__ import annotations

from typing import Any

from kivy.event import EventDispatcher
from kivy.properties import BooleanProperty, ListProperty, NumericProperty, ObjectProperty, StringProperty

from companion.app import putback
from companion.app.i18n import _, game_text
from companion.app.rules_doc import find_rule
from companion.app.settings import SEAT_COLOURS
from companion.engine.core import ActionModel, Event, Refusal
from companion.engine.journal import JournalError
from companion.engine.record import Source
from companion.engine.session import Session

LOG_LENGTH = 60


class TableModel(EventDispatcher):
    """View-model of one game at the table.  `revision` changes after every accepted action or undo."""

    session: Session = ObjectProperty(None, allownone=True)  # type: ignore[assignment]
    revision = NumericProperty(0)
    player = NumericProperty(-1)
    turn_text = StringProperty("")
    turn_colour = StringProperty("#888888")
    prompt_text = StringProperty("")
    dice = ListProperty([])
    roll_action = StringProperty("")
    entered = ListProperty([])
    partial = ListProperty([])
    refusal_text = StringProperty("")
    refusal_rule = StringProperty("")
    refusal_rule_text = StringProperty("")
    notice_text = StringProperty("")
    notice_choices = ListProperty([])
    put_back_places = ListProperty([])  # board ids the last undo's put-back instructions are about
    scores = ListProperty([])
    log = ListProperty([])
    can_undo = BooleanProperty(False)
    over = BooleanProperty(False)

    __events__ = ("on_game_over", "on_accepted")

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._pending_notice: dict[str, Any] = {}

    # -- binding a session ---------------------------------------------------------------------------
    def attach(self, session: Session | None) -> None:
        """Show a (new or resumed) session; rebuilds the log from its history."""
        self.session = session
        self.clear_messages()
        self.entered = []
        self.partial = []
        self.relabel()

    def relabel(self) -> None:
        """Rewrite the log and every text in the current language (after a language switch)."""
        self.log = []
        if self.session is not None:
            for actor, events in zip(self._actors(self.session), self.session.events):
                self._log_events(actor, events)
        self.refresh()

    @property
    def domain(self) -> str:
        return self.session.game.id if self.session is not None else "goldtable"

    def game_text(self, template: str, params: dict[str, Any] | None = None) -> str:
        """A game message in the current language."""
        return game_text(self.domain, template, params)

    def player_name(self, seat: int | None) -> str:
        if self.session is None or seat is None or not 0 <= seat < len(self.session.setup.players):
            return ""
        return self.session.setup.players[seat].name

    def player_colour(self, seat: int | None) -> str:
        if self.session is None or seat is None or not 0 <= seat < len(self.session.setup.players):
            return "#888888"
        return self.session.setup.players[seat].colour or SEAT_COLOURS[seat % len(SEAT_COLOURS)]

    def refresh(self) -> None:
        """Recompute every shown value from the session (after a change or a language switch)."""
        session = self.session
        if session is None:
            self.turn_text = self.prompt_text = ""
            self.scores = []
            self.can_undo = self.over = False
            self.revision += 1
            return
        prompt = session.prompt()
        self.over = session.is_over()
        self.player = -1 if prompt.player is None else prompt.player
        name = self.player_name(prompt.player)
        if self.over:
            self.turn_text = _("Game over")
        elif name:
            self.turn_text = _("{name}'s turn").format(name=name)
        else:
            self.turn_text = _("Everyone")
        self.turn_colour = self.player_colour(prompt.player)
        self.prompt_text = self.game_text(prompt.message, prompt.params)
        self.dice = [list(faces) for faces in prompt.dice]
        self.roll_action = prompt.roll_action or ""
        if len(self.entered) > len(self.dice):
            self.entered = []
        scores = session.scores()
        self.scores = [{"seat": seat, "name": player.name, "score": scores[seat],
                        "colour": self.player_colour(seat), "current": seat == prompt.player}
                       for seat, player in enumerate(session.setup.players)]
        self.can_undo = bool(session.actions)
        self.revision += 1

    # -- playing -------------------------------------------------------------------------------------
    def check(self, action: ActionModel | dict[str, Any]) -> Refusal | None:
        """The refusal an action would get now, without playing it (for greying out choices)."""
        if self.session is None:
            return None
        return self.session.check(action)[1]

    def legal_actions(self) -> list[ActionModel] | None:
        if self.session is None:
            return None
        return self.session.game.legal_actions(self.session.state)

    def submit(self, action: ActionModel | dict[str, Any], source: Source = "touch") -> bool:
        """Play an action; a refusal is shown with its rule, a journal failure as a notice."""
        if self.session is None or self.over:
            return False
        actor = self.session.prompt().player
        try:
            outcome = self.session.submit(action, source)
        except JournalError as error:
            self.show_notice(_("Could not save the move, so it was not played: {problem}").format(
                problem=str(error)))
            return False
        if not outcome.accepted:
            assert outcome.refusal is not None
            self.show_refusal(outcome.refusal)
            self.refusal_text = "\n".join(filter(None, [self.refusal_text, putback.after_refusal(
                self.session, self.session.check(action)[0])]))
            return False
        self.clear_messages()
        self.entered = []
        self._log_events(actor, outcome.events)
        self.refresh()
        self.dispatch("on_accepted", outcome.events)
        if self.over:
            self.dispatch("on_game_over")
        return True

    def virtual_roll(self, source: Source = "virtual") -> bool:
        """Let the Pi roll the dice that are due (keyboard shortcut / "roll for me" button)."""
        if self.session is None or self.over or not self.dice:
            return False
        action = self.session.game.virtual_roll(self.session.state, _seeded_rng(self.session))
        return action is not None and self.submit(action, source)

    def undo(self) -> bool:
        if self.session is None:
            return False
        undone = self.session.state
        try:
            outcome = self.session.undo()
        except JournalError as error:
            self.show_notice(_("Could not save the undo: {problem}").format(problem=str(error)))
            return False
        if not outcome.accepted:
            assert outcome.refusal is not None
            self.show_refusal(outcome.refusal)
            return False
        self.clear_messages()
        if self.log:
            self.log = self.log[:-1]
        self.entered = []
        self.refresh()
        text, self.put_back_places = putback.after_undo(self.session, undone)
        self.show_notice(text)
        return True

    # -- dice from touch or hardware -----------------------------------------------------------------
    def enter_die(self, face: str) -> None:
        """Touch keypad: the next die shows `face` (or, after a partly unreadable roll, the next die the
        sensors could not read); the roll is submitted once every die is known."""
        if self.partial:
            filled = list(self.partial)
            filled[filled.index("?")] = face
            if "?" in filled:
                self.partial = filled
            else:
                self.partial = []
                self.submit_roll(filled, "touch")
            return
        if not self.dice or len(self.entered) >= len(self.dice):
            return
        self.entered = [*self.entered, face]
        if len(self.entered) == len(self.dice):
            self.submit_roll(list(self.entered), "touch")

    def clear_entry(self) -> None:
        self.entered = []
        self.partial = []

    def submit_roll(self, values: list[str], source: Source) -> bool:
        """Submit dice values; a value a die does not have, or a missing die, asks for touch entry."""
        if not self.roll_action or not self.dice:
            self.show_notice(_("No dice roll is expected now; the roll was ignored."))
            return False
        if len(values) != len(self.dice):
            self.show_notice(_("{got} dice were read but {want} are needed; please enter the roll by touch.")
                             .format(got=len(values), want=len(self.dice)))
            return False
        for index, (value, faces) in enumerate(zip(values, self.dice)):
            if value not in faces:
                self.show_notice(_("Die {n} showed '{value}', which it cannot show; please enter the roll "
                                   "by touch.").format(n=index + 1, value=value))
                return False
        return self.submit({"type": self.roll_action, "values": values}, source)

    def hardware_roll(self, values: list[str], uncertain: list[int], source: Source) -> None:
        """A roll read by sensors: certain values are played, uncertain ones are confirmed first, and
        dice the sensors could not read at all (`?`) are tapped in on the keypad."""
        if not uncertain:
            self.submit_roll(values, source)
            return
        dice = ", ".join(str(index + 1) for index in uncertain)
        if "?" in values and len(values) == len(self.dice):
            self.clear_messages()
            self.entered = []
            self.partial = list(values)  # the keypad asks for the unread dice only ("Clear": whole roll)
            return
        self._pending_notice = {"values": values, "source": source}
        self.show_notice(_("The sensors are unsure about die {dice} (read as {values}). Confirm the reading, "
                           "or enter the roll by touch.").format(dice=dice, values=" ".join(values)),
                         choices=["confirm", "touch"])

    def answer_notice(self, choice: str) -> None:
        """The way on from a notice: confirm the uncertain reading, or re-enter it by touch."""
        pending, self._pending_notice = self._pending_notice, {}
        self.clear_messages()
        if choice == "confirm" and pending:
            self.submit_roll(pending["values"], pending["source"])
        elif choice == "touch":
            self.clear_entry()

    # -- messages ------------------------------------------------------------------------------------
    def show_refusal(self, refusal: Refusal) -> None:
        self.notice_text = ""
        self.notice_choices = []
        self.refusal_text = self.game_text(refusal.message, refusal.params)
        rule = find_rule(self.domain, refusal.rule)
        self.refusal_rule = f"{refusal.rule} {rule.title}" if rule else refusal.rule
        self.refusal_rule_text = rule.text if rule else ""

    def show_notice(self, text: str, choices: list[str] | None = None) -> None:
        self.refusal_text = self.refusal_rule = self.refusal_rule_text = ""
        self.notice_text = text
        self.notice_choices = choices or ["dismiss"]

    def clear_messages(self) -> None:
        self.put_back_places = []
        self.refusal_text = self.refusal_rule = self.refusal_rule_text = ""
        self.notice_text = ""
        self.notice_choices = []

    # -- log -----------------------------------------------------------------------------------------
    def _actors(self, session: Session) -> list[int | None]:
        return [session.game.prompt(state).player for state in session.states[:-1]]

    def _log_events(self, actor: int | None, events: tuple[Event, ...]) -> None:
        texts = [self.game_text(event.message, event.params) for event in events if event.message]
        line = " ".join(texts) or _("{name} played a move.").format(name=self.player_name(actor))
        self.log = [*self.log[-(LOG_LENGTH - 1):], line]

    def on_game_over(self) -> None:
        """Default handler (the app switches to the End screen)."""

    def on_accepted(self, events: tuple[Event, ...]) -> None:
        """Default handler (the timer and sounds react to events)."""


def _seeded_rng(session: Session):  # type: ignore[no-untyped-def]
    """The same RNG Session.virtual_roll uses, so keyboard rolls replay identically."""
    from random import Random

    return Random(f"{session.setup.seed}:{len(session.actions)}")
