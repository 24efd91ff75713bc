"""The Table screen's view-model: whose turn, what input is due, refusals, scores, log, undo.

Everything the table shows is computed here from the Session, so the .kv layout only binds to
properties.  Input never comes here: the game's controller (companion/app/controllers/) plays actions
and tells this model what to show (`accepted`, `undone`, `show_refusal`, `show_notice`).
Runs on the UI thread only.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kivy.event import EventDispatcher
from kivy.properties import BooleanProperty, ListProperty, NumericProperty, ObjectProperty, StringProperty
from kivy.utils import colormap, get_color_from_hex, get_hex_from_color

from companion.app import putback
from companion.app.i18n import _, capitalised, game_text
from companion.app.rules_doc import find_rule
from companion.app.settings import SEAT_COLOURS
from companion.engine.core import ActionModel, Event, Refusal
from companion.engine.putback import Phrase
from companion.engine.session import Session

LOG_LENGTH = 60


def hex_colour(colour: str | None, fallback: str) -> str:
    """`colour` as `#rrggbb`: hex is kept, a name (`red`, `Pink`) is looked up in Kivy's colour names."""
    if not colour:
        return fallback
    if colour.startswith("#"):
        try:
            get_color_from_hex(colour)
        except ValueError:
            return fallback
        return colour
    rgba = colormap.get(colour.strip().lower())
    return fallback if rgba is None else get_hex_from_color(rgba[:3])


class TableModel(EventDispatcher):
    """View-model of one game at the table.  `revision` changes after every accepted action or undo."""

    session: Session | None = ObjectProperty(None, allownone=True)
    revision = NumericProperty(0)
    player = NumericProperty(-1)
    turn_text = StringProperty("")
    turn_colour = StringProperty("#888888")
    prompt_text = StringProperty("")
    dice = ListProperty([])
    roll_action = StringProperty("")
    entered = ListProperty([])
    partial = ListProperty([])
    partial_reasons = ListProperty([])  # why the camera could not read the `?` dice (English, marked N_)
    refusal_text = StringProperty("")
    refusal_rule = StringProperty("")
    refusal_rule_text = StringProperty("")
    notice_text = StringProperty("")
    notice_choices = ListProperty([])
    notice_dice = ListProperty([])  # [{"face", "uncertain", "crop"}]: the dice a notice is about (crop: the camera's)
    put_back_places = ListProperty([])  # board ids the last undo's put-back instructions are about
    scores = ListProperty([])
    log = ListProperty([])
    can_undo = BooleanProperty(False)
    over = BooleanProperty(False)

    __events__ = ("on_game_over",)

    def next_die(self) -> int:
        """The die whose faces the keypad offers: after a roll a device read only in part, the first one it
        could not read; else the next one to tap (`len(dice)` once every die is tapped)."""
        return self.partial.index("?") if "?" in self.partial else len(self.entered)

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

    def game_text(self, template: str, params: Mapping[str, Any] | None = None) -> str:
        """A game message in the current language, as a sentence; a player the rules name by seat only
        (Chinagold's "the mountains player") is named as the table knows them."""
        words = dict(params or {})
        if isinstance(words.get("seat"), int) and isinstance(words.get("name"), Phrase):
            words["name"] = self.player_name(words["seat"]) or words["name"]
        text = game_text(self.domain, template, words)
        return capitalised(text)  # a sentence may start with a place ("rail field 6 is …")

    def player_name(self, seat: int | None) -> str:
        if self.session is None or seat is None or not 0 <= seat < len(self.session.setup.players):
            return ""
        return self.session.setup.players[seat].name

    def player_colour(self, seat: int | None) -> str:
        """A seat's colour as `#rrggbb`, whether the setup names it in hex or by name (`red`, as records
        written by hand do); an unknown name falls back to the seat's default colour."""
        if self.session is None or seat is None or not 0 <= seat < len(self.session.setup.players):
            return "#888888"
        return hex_colour(self.session.setup.players[seat].colour, SEAT_COLOURS[seat % len(SEAT_COLOURS)])

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

    def accepted(self, actor: int | None, events: tuple[Event, ...]) -> None:
        """Show an action the controller has played: messages cleared, a log line, every value anew."""
        self.clear_messages()
        self.entered = []
        self._log_events(actor, events)
        self.refresh()

    def undone(self, undone: Any) -> None:
        """Show that the last action was taken back, and what the table must put back for it (`undone` is
        the state before the undo)."""
        self.clear_messages()
        if self.log:
            self.log = self.log[:-1]
        self.entered = []
        self.refresh()
        if self.session is not None:
            text, self.put_back_places = putback.after_undo(self.session, undone)
            self.show_notice(text)

    def refused_put_back(self, action: ActionModel | None) -> None:
        """After a refusal: what to put back if the table already made the refused move."""
        if self.session is not None:
            self.refusal_text = "\n".join(filter(None, [self.refusal_text,
                                                         putback.after_refusal(self.session, action)]))

    # -- messages ------------------------------------------------------------------------------------
    def show_refusal(self, refusal: Refusal) -> None:
        self.notice_text = ""
        self.notice_choices = []
        self.notice_dice = []
        self.refusal_text = self.game_text(refusal.message, refusal.params)
        rule = find_rule(self.domain, refusal.rule)
        self.refusal_rule = f"{refusal.rule} {rule.title}" if rule else refusal.rule
        self.refusal_rule_text = rule.text if rule else ""

    def show_notice(self, text: str, choices: list[str] | None = None,
                    dice: list[dict[str, Any]] | None = None) -> None:
        self.refusal_text = self.refusal_rule = self.refusal_rule_text = ""
        self.notice_text = text
        self.notice_choices = choices or ["dismiss"]
        self.notice_dice = dice or []

    def clear_messages(self) -> None:
        self.put_back_places = []
        self.refusal_text = self.refusal_rule = self.refusal_rule_text = ""
        self.notice_text = ""
        self.notice_choices = []
        self.notice_dice = []

    # -- log -----------------------------------------------------------------------------------------
    def _actors(self, session: Session) -> list[int | None]:
        return [session.game.prompt(state).player for state in session.states[:-1]]

    def _log_events(self, actor: int | None, events: tuple[Event, ...]) -> None:
        texts = [self.game_text(event.message, event.params) for event in events if event.message]
        line = " ".join(texts) or _("{name}'s move is done.").format(name=self.player_name(actor))
        self.log = [*self.log[-(LOG_LENGTH - 1):], line]

    def on_game_over(self) -> None:
        """Default handler (the app switches to the End screen)."""
