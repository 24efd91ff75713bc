"""Digger's table panel: the sand timer, the roll, the stones it allows, Stop, fumble and time up.

The panel only draws and forwards taps: the sand-timer protocol and time up are the DiggerController's
(companion/app/controllers/digger.py).
"""

from __future__ import annotations

from typing import Any

from kivy.factory import Factory
from kivy.properties import BooleanProperty, ListProperty, ObjectProperty, StringProperty
from kivy.uix.boxlayout import BoxLayout
from kivy.utils import get_color_from_hex

from companion.app.controllers.digger import DiggerController
from companion.app.i18n import _, game_text
from companion.app.table import TableModel
from companion.app.tables.common import DiceKeypad, LanguageWatch, colour_letter
from companion.app.widgets import make, resize
from companion.engine.core import N_, ActionModel, Setup

GAME_ID = "digger"
USES_TIMER = True

FACE_COLOURS = {"B": "#2f6fd6", "Y": "#f2c230", "R": "#d93b30", "G": "#2e9e4f", "W": "#f0f0f0", "K": "#202020"}
COLOUR_WORDS = {"B": N_("blue"), "Y": N_("yellow"), "R": N_("red"), "G": N_("green"), "W": N_("white"),
                "K": N_("black")}
STONE_COLOURS = ("B", "Y", "R", "G", "W")


#: A die face's letter in the current language; the table screen asks the game's module for it.
face_letter = colour_letter


def colour_word(token: str) -> str:
    return game_text(GAME_ID, COLOUR_WORDS[token])


def action_label(table: TableModel, action: ActionModel) -> str:
    """`Take yellow`, `Rob red from Ben`, `Stop!`…"""
    data = action.model_dump()
    if action.type == "take":
        return _("Take {colour}").format(colour=colour_word(data["colour"]))
    if action.type == "rob":
        return _("Rob {colour} from {name}").format(colour=colour_word(data["colour"]),
                                                    name=table.player_name(data["victim"]))
    if action.type == "stop":
        return _("Stop!")
    if action.type == "fumble":
        return _("Fumbled")
    return action.type


def setup_steps(setup: Setup) -> list[str]:
    """Digger's setup guide."""
    options = setup.options
    side = _("white side") if options.get("side", "white") == "white" else _("black side")
    return [
        _("Put all 50 stones (10 of each colour) in the middle of the table."),
        _("Give every player a scoring card, {side} up.").format(side=side),
        _("The first digger takes the five colour dice; the player on the right takes the sand timer "
          "({seconds} s).").format(seconds=options.get("timer_seconds", 30)),
        _("Put the tin for the blue stones (water) where everyone can reach it."),
    ]


class DiggerPanel(BoxLayout):
    """Timer, roll and choices for the digger's turn; the flow is the DiggerController's."""

    controller = ObjectProperty(None)
    table = ObjectProperty(None)
    roll = ListProperty([])
    info_text = StringProperty("")
    time_up_pending = BooleanProperty(False)
    timer_idle_but_running = BooleanProperty(False)
    stowed = ListProperty([])
    waiting = ListProperty([])
    can_stop = BooleanProperty(False)
    can_fumble = BooleanProperty(False)
    can_call_time = BooleanProperty(False)
    keypad = ObjectProperty(None, allownone=True)

    def __init__(self, controller: DiggerController, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.controller = controller
        self.table = controller.table
        assert controller.timer is not None, "the Digger table shows the app's sand timer"
        self.timer = controller.timer
        self._showing_stowed = False  # the choices box holds the "stowed" toggles, not take/rob buttons
        controller.listen(self.refresh)
        self.timer.bind(started=self.refresh)
        self._language = LanguageWatch(self.table, self.refresh)
        self.keypad = DiceKeypad(controller=controller, face_colours=FACE_COLOURS, face_text=face_letter,
                                 compact=True)
        self.ids.keypad_holder.add_widget(self.keypad)
        self.refresh()

    def detach(self) -> None:
        """Called when another game takes the table."""
        self.controller.unlisten(self.refresh)
        self.timer.unbind(started=self.refresh)
        self._language.detach()

    # -- showing -------------------------------------------------------------------------------------
    def refresh(self, *_args: Any) -> None:
        """Everything drawn anew from the state, the phase table and the controller (after an action, the
        timer's start or a language switch)."""
        controller = self.controller
        state = controller.state
        if state is None:
            return
        game = controller.session.game
        expects = game.expects(state)
        self.roll = list(state.roll)
        self.waiting = controller.waiting
        self.time_up_pending = controller.time_up_pending
        self.stowed = list(controller.stowed)
        self.timer_idle_but_running = controller.timer_idle_but_running
        self.can_stop = bool(game.offered(state, "stop", checked=True))
        self.can_fumble = bool(game.offered(state, "fumble", checked=True))
        self.can_call_time = "time_up" in expects  # the sand runs once the turn's first roll is in
        waiting = ", ".join(f"{state.waiting.count(c)} {colour_word(c)}" for c in self.waiting) or "—"
        middle = "  ".join(f"{colour_word(c)} {state.middle.count(c)}" for c in STONE_COLOURS)
        self.info_text = _("Waiting to be stowed: {waiting}\nMiddle: {middle}   Tin: {tin}").format(
            waiting=waiting, middle=middle, tin=state.tin)
        self._rebuild_choices(game, state)
        self._rebuild_dice()

    def _rebuild_dice(self) -> None:
        """The dice widgets are kept and recoloured: every action redraws them, and widgets created
        and dropped each time leave their memory scattered over the heap (see docs/performance.md)."""
        dice = resize(self.ids.dice, len(self.roll), lambda: make("DiggerDie"))
        for die, face in zip(dice, self.roll):
            die.colour = FACE_COLOURS.get(face, "#888888")
            die.face, die.text = face, face_letter(face)
            die.unique = self.roll.count(face) == 1 and face != "K"

    def _rebuild_choices(self, game: Any, state: Any) -> None:
        box = self.ids.choices
        if self.time_up_pending or self._showing_stowed:  # rare (the sand ran out): toggles built afresh
            box.clear_widgets()
        self._showing_stowed = self.time_up_pending
        if self.time_up_pending:
            for colour in self.waiting:
                toggle = Factory.GToggle(text=_("{colour} stowed").format(colour=colour_word(colour)),
                                         size_hint=(None, None), height=48, width=160,
                                         state="down" if colour in self.stowed else "normal")
                toggle.bind(on_release=lambda _t, c=colour: self.controller.toggle_stowed(c))
                box.add_widget(toggle)
            return
        actions = [*game.offered(state, "take", checked=True), *game.offered(state, "rob", checked=True)]
        buttons = resize(box, len(actions), self._choice_button)
        for button, action in zip(buttons, actions):
            colour = action.model_dump()["colour"]
            button.action = action
            button.text = action_label(self.table, action)
            button.width = 206 if action.type == "rob" else 150
            button.background_color = get_color_from_hex(FACE_COLOURS[colour])
            button.color = (0, 0, 0, 1) if colour in ("Y", "W") else (1, 1, 1, 1)

    def _choice_button(self) -> Any:
        """A take/rob button; `_rebuild_choices` reuses it for whichever action it shows next."""
        button = Factory.GButton(size_hint=(None, None), height=48, font_size="18sp")
        button.bind(on_release=lambda pressed: self.controller.submit(pressed.action))
        return button

    # -- taps the .kv forwards -----------------------------------------------------------------------
    def turn_hourglass(self) -> None:
        self.controller.turn_hourglass()

    def confirm_time_up(self) -> None:
        self.controller.confirm_time_up()

    def press_time_up(self) -> None:
        self.controller.call_time()


def build_panel(controller: DiggerController) -> DiggerPanel:
    return DiggerPanel(controller)


def options_panel(model: Any) -> DiggerCardsPanel:
    """The scoring-card values on the Options screen, and which black card each seat holds."""
    return DiggerCardsPanel(model=model)


class DiggerCardsPanel(BoxLayout):
    """Shows the card values of the chosen side; on the black side each seat's card can be chosen
    (tapping a card another seat holds swaps the two), or left to the seeded deal."""

    model = ObjectProperty(None)

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(orientation="vertical", size_hint_y=None, spacing=4, **kwargs)
        self.bind(minimum_height=self.setter("height"))
        self.model.bind(values=self.rebuild)
        self.rebuild()

    def detach(self) -> None:
        """Called when the Options screen is built again."""
        self.model.unbind(values=self.rebuild)

    def _label(self, text: str, height: int = 30, bold: bool = False) -> Any:
        label = Factory.Label(text=text, font_size="16sp", bold=bold, size_hint_y=None, height=height,
                              halign="left", valign="middle")
        label.bind(size=lambda widget, size: setattr(widget, "text_size", size))
        return label

    def rebuild(self, *_args: Any) -> None:
        from companion.engine.errors import UserError
        from companion.games.digger.cards import load_cards

        self.clear_widgets()
        values = self.model.values
        try:
            layout = load_cards(values.get("cards_file") or None)
        except UserError as error:
            self.add_widget(self._label(str(error), height=48))
            return
        self.add_widget(self._label(_("Scoring-card values (our defaults; check them against your cards):"),
                                    bold=True))
        if values.get("side", "white") == "white":
            self.add_widget(self._label(_card_text(layout.white)))
            return
        seats = list(self.model.seats)
        chosen = values.get("black_cards")
        deal = Factory.GToggle(text=_("Deal the black cards by chance"), size_hint_y=None, height=48,
                               state="down" if chosen is None else "normal")
        deal.bind(on_release=lambda _b: self.model.set("black_cards", None if chosen is not None else
                                                       [card.id for card in layout.black[:len(seats)]]))
        self.add_widget(deal)
        if chosen is None or len(chosen) != len(seats):
            for card in layout.black:
                self.add_widget(self._label(_("Card {id}: {values}").format(id=card.id, values=_card_text(card))))
            return
        by_id = {card.id: card for card in layout.black}
        for seat, name in enumerate(seats):
            row = BoxLayout(size_hint_y=None, height=48, spacing=4)
            row.add_widget(self._label(name, height=48))
            for card in layout.black:
                toggle = Factory.GToggle(text=card.id, size_hint_x=None, width=52,
                                         state="down" if chosen[seat] == card.id else "normal")
                toggle.bind(on_release=lambda _b, s=seat, c=card.id: self.choose(s, c))
                row.add_widget(toggle)
            self.add_widget(row)
            self.add_widget(self._label("    " + _card_text(by_id[chosen[seat]]), height=24))

    def choose(self, seat: int, card_id: str) -> None:
        chosen = list(self.model.values["black_cards"])
        if card_id in chosen:
            other = chosen.index(card_id)
            chosen[other] = chosen[seat]
        chosen[seat] = card_id
        self.model.set("black_cards", chosen)


def _card_text(values: Any) -> str:
    return "   ".join(f"{colour_word(token)} {getattr(values, field)}"
                      for token, field in (("Y", "yellow"), ("R", "red"), ("G", "green"), ("W", "white")))
