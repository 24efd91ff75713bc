"""Goldgräber's table panel: the hex board with figures, train, rafts and chips; taps choose destinations.

The fields a move may end on are outlined on the board; tapping one moves there, tapping any other is
refused with the rule that forbids it.  Dice come from the hardware (the app's hardware roll), from the
face buttons here or from "Roll for me"; brawls and robber fights are shown step by step with each roll.
When a chip is turned, the table taps what it shows; kinds that can no longer be face down are greyed.
"""

from __future__ import annotations

from typing import Any

from kivy.factory import Factory
from kivy.properties import BooleanProperty, ObjectProperty, StringProperty

from companion.app.boards.loupe import BoardLoupe
from companion.app.i18n import _ as app_text
from companion.app.i18n import catalog, current_language, game_text, phrase_text
from companion.app.table import TableModel
from companion.app.tables.common import TablePanel
from companion.app.widgets import resize
from companion.engine.core import N_, ActionModel, Setup
from companion.games.goldgraeber.app.board import BoardView, GoldgraeberBoard
from companion.games.goldgraeber.app.controller import GoldgraeberController
from companion.games.goldgraeber.rules import (
    CHIP_KINDS,
    DIE_FACES,
    Goldgraeber,
    GoldgraeberState,
    Look,
    Move,
    Raft,
    Reveal,
    Roll,
    chip_odds,
)
from companion.games.goldgraeber.words import face_words, field_words

#: The game's catalog domain (its id).
DOMAIN = "goldgraeber"
#: Phases of a fight and of moving away after it, when no chip is turned.
FIGHTS = frozenset({"robber", "brawl", "away_roll", "away"})


def face_word(token: str, language: str | None = None) -> str:
    """A face of the die in words (the locomotive, or its number), for the camera's teaching."""
    return phrase_text(DOMAIN, face_words(token), language)


#: House colours of the layout as words to translate.
COLOUR_WORDS: dict[str, str] = {"red": N_("red"), "yellow": N_("yellow"), "green": N_("green"),
                                "blue": N_("blue"), "white": N_("white"), "black": N_("black")}


def _(message: str) -> str:
    """A panel string from the game's own catalog (companion/locale/*/goldgraeber.po), else the app's."""
    translated = catalog(DOMAIN).gettext(message)
    return translated if translated != message else app_text(message)


def place(field: str, state: GoldgraeberState) -> str:
    """A field in table words, in the current language (`rail field 6`, `the north shore of the lake …`)."""
    return field_words(field, state).text(_)


def action_label(table: TableModel, action: ActionModel) -> str:
    """`Move to rail field 6`, `Raft to the west shore of the lake …`, `Gold 3`, `Robber 4`, `Look at chips`."""
    state = table.session.state if table.session is not None else None
    if isinstance(action, Move) and isinstance(state, GoldgraeberState):
        return _("Move to {field}").format(field=place(action.to, state))
    if isinstance(action, Raft) and isinstance(state, GoldgraeberState):
        return _("Raft to {field}").format(field=place(action.to, state))
    if isinstance(action, Reveal):
        return (_("Gold {value}") if action.chip == "gold" else _("Robber {value}")).format(value=action.value)
    if isinstance(action, Look):
        return _("Look at chips")
    return action.type


def setup_steps(setup: Setup) -> list[str]:
    """Goldgräber's setup guide."""
    steps = [
        _("Shuffle the 48 gold and 16 robber chips and lay them face down on the 64 dig fields."),
        _("Put the six rafts on the raft posts by the lakes."),
        _("Put the locomotive on the first rail field at the tunnel."),
        _("Each player puts a figure in the house of their colour in Golden City."),
        _("Put the 10 spare chips aside."),
    ]
    game = Goldgraeber()
    houses = game.initial_state(setup).houses
    for player, house in zip(setup.players, houses):
        colour = game.board.house_colours[house]
        steps.append(_("{name} plays the {colour} house.").format(name=player.name,
                                                                  colour=_(COLOUR_WORDS.get(colour, colour))))
    if setup.options.get("look_variant"):
        steps.append(_("Variant: instead of rolling, a player may secretly look at the chips next to their figure."))
    return steps


class GoldgraeberPanel(TablePanel):
    """Board on the left; train, odds, fight steps, dice and chip buttons on the right."""

    train_text = StringProperty("")
    train_progress = ObjectProperty(0.0)
    odds_text = StringProperty("")
    step_text = StringProperty("")
    rolling = BooleanProperty(False)
    revealing = BooleanProperty(False)
    can_look = BooleanProperty(False)

    def __init__(self, controller: GoldgraeberController, **kwargs: Any) -> None:
        super().__init__(controller, **kwargs)
        self.game = Goldgraeber()
        self.board = GoldgraeberBoard(self.game.board.layout)
        self.loupe = BoardLoupe(self.board, self.tap_field, self._choosable, lambda: self.state, table=self.table)
        self.ids.board_holder.add_widget(self.board)
        self._faces_shown: tuple[str, ...] = ()
        self._chips_shown: tuple[tuple[int, ...], str] = ((), "")
        self.start()

    @property
    def state(self) -> GoldgraeberState | None:
        session = self.table.session
        state = session.state if session is not None else None
        return state if isinstance(state, GoldgraeberState) else None

    # -- showing -------------------------------------------------------------------------------------
    def refresh(self, *_args: Any) -> None:
        """Everything drawn anew from the state and the phase table (after an action, a selection or a
        language switch)."""
        state = self.state
        if state is None:
            return
        board = self.game.board
        self.labels = {"Roll for me": _("Roll for me"), "Look at chips": _("Look at chips")}
        # numbered from 1 like the rail fields the log and the board name (R1 at the tunnel)
        self.train_text = _("Train: rail field {position} of {last}").format(position=state.locomotive + 1,
                                                                              last=len(board.rail))
        self.train_progress = state.locomotive / (len(board.rail) - 1)
        expects = self.game.expects(state)
        self.rolling = "roll" in expects
        self.revealing = "reveal" in expects
        self.odds_text = "" if self.revealing or state.phase in FIGHTS else self._odds_line(state)
        self.step_text = self._step_line(state)
        self.can_look = bool(self.game.offered(state, "look", checked=True))
        self._rebuild_faces()
        self._rebuild_chips(state)
        self.board.view = self.view_of(state)

    def view_of(self, state: GoldgraeberState) -> BoardView:
        """What the board shows for a state: pieces, chips, and the fields the due choice may take."""
        board = self.game.board
        figures: dict[str, list[str]] = {}
        for seat, field in enumerate(state.figures):
            figures.setdefault(field, []).append(board.house_colours[state.houses[seat]])
        # the fields the due walk or raft may end on
        highlights = {action.to for kind in ("move", "raft") for action in self.game.offered(state, kind)
                      if isinstance(action, Move | Raft)}
        if self.table.put_back_places:  # after an undo: the fields the put-back sentences name
            highlights = set(self.table.put_back_places)
        return BoardView(figures=figures, locomotive=board.ids[board.rail[state.locomotive]],
                         rafts=list(state.rafts), face_down=set(state.face_down),
                         stacks={stack.field: stack.robber[1] + (f"+{len(stack.loot)}" if stack.loot else "")
                                 for stack in state.stacks},
                         highlights=highlights, selected=state.figures[state.actor])

    @staticmethod
    def _odds_line(state: GoldgraeberState) -> str:
        """What a dig may find, which matters before a move.  Not shown in a fight, where the die decides,
        nor while a chip is entered: the fight's line (five lines in German and French) and the ten chip
        buttons need the room."""
        odds = chip_odds(state)
        odds_template = N_("Face down: {count} chips\nRobber behind one: {chance}%\nAverage dig: {gold:.1f} nuggets")
        return game_text(DOMAIN, odds_template, {"count": odds.unseen, "chance": round(odds.robber_chance * 100),
                                                 "gold": odds.expected_gold})

    def _step_line(self, state: GoldgraeberState) -> str:
        """The fight in progress, one roll at a time (which fight: the phase table's row), or what the
        tap the phase table offers will do."""
        name = self.table.player_name
        row, expects = self.game.phase_of(state), self.game.expects(state)
        if row == "brawl":
            assert state.defender is not None
            if state.attacker_roll is None:
                return _("Brawl on {field}: {attacker} against {defender}. {attacker} rolls.").format(
                    field=place(state.fight_field or "", state), attacker=name(state.current),
                    defender=name(state.defender))
            return _("Brawl: {attacker} rolled {roll}. Now {defender} rolls.").format(
                attacker=name(state.current), roll=state.attacker_roll, defender=name(state.defender))
        if row == "robber":
            stack = next(s for s in state.stacks if s.field == state.fight_field)
            robber = (N_("Robber of strength {strength} on {field} (guarding {loot} chips): roll higher to win.")
                      if stack.loot else N_("Robber of strength {strength} on {field}: roll higher to win."))
            return game_text(DOMAIN, robber, {"strength": stack.robber[1], "field": field_words(stack.field, state),
                                               "loot": len(stack.loot)})
        if row == "away_roll":
            return _("{name} won the brawl and rolls to move away.").format(name=name(state.actor))
        if "move" in expects:
            return game_text(DOMAIN, N_("Tap a highlighted field ({steps} steps)."), {"steps": state.steps})
        if "raft" in expects:
            return _("Tap the shore field the raft should go to.")
        if "reveal" in expects:  # the prompt beside says which chip; the ten chip buttons need the room
            return _("Tap what the chip shows.")
        return ""

    def _rebuild_faces(self) -> None:
        faces = DIE_FACES if self.rolling else ()
        if faces == self._faces_shown:
            return
        self._faces_shown = faces
        for button, face in zip(resize(self.ids.faces, len(faces), self._new_entry_button), faces):
            button.text = face
            button.action = Roll(values=(face,))  # what the button plays (tests hold it to the rules)

    def _rebuild_chips(self, state: GoldgraeberState) -> None:
        counts = state.unseen if self.revealing else ()
        shown = (counts, current_language())  # the buttons name the chips in the language
        if shown == self._chips_shown:
            return
        self._chips_shown = shown
        buttons = resize(self.ids.chips, len(counts), self._new_entry_button)
        for button, kind, left in zip(buttons, CHIP_KINDS, counts):
            chip = "gold" if kind[0] == "G" else "robber"
            button.action = Reveal(chip=chip, value=int(kind[1]))  # type: ignore[arg-type]
            button.text = f"{action_label(self.table, button.action)} ({left})"
            button.disabled = left == 0

    def _new_entry_button(self) -> Any:
        """A die face or chip button, kept for reuse (`resize`): it plays the action it holds."""
        button = Factory.GButton()
        button.bind(on_release=lambda pressed: self.controller.submit(pressed.action))
        return button

    # -- input ---------------------------------------------------------------------------------------
    def enter_face(self, face: str) -> None:
        self.controller.submit({"type": "roll", "values": [face]})

    def enter_chip(self, chip: str, value: int) -> None:
        self.controller.submit({"type": "reveal", "chip": chip, "value": value})

    def roll_for_me(self) -> None:
        self.controller.virtual_roll("virtual")

    def look(self) -> None:
        self.controller.submit({"type": "look"})

    def _choosable(self) -> set[str]:
        """The fields the next tap may choose (a touch between several of them opens the board's loupe)."""
        state = self.state
        if state is None:
            return set()
        return {action.to for action in self.game.legal_actions(state) if isinstance(action, (Move, Raft))}

    def tap_field(self, field: str) -> None:
        self.controller.tap_field(field)


def build_panel(controller: GoldgraeberController) -> GoldgraeberPanel:
    return GoldgraeberPanel(controller)
