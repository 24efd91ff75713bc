"""Digger's table panel: the sand timer, the roll, the stones it allows, Stop, fumble and time up.

The panel only draws and forwards taps: the sand-timer protocol and time up are the DiggerController's
(controller.py here).
"""

from __future__ import annotations

from functools import partial
from typing import Any

from kivy.app import App
from kivy.factory import Factory
from kivy.properties import BooleanProperty, ListProperty, ObjectProperty, StringProperty
from kivy.uix.boxlayout import BoxLayout
from kivy.utils import get_color_from_hex

from companion.app.i18n import _, capitalised, current_language, game_text
from companion.app.table import TableModel
from companion.app.tables.common import DiceKeypad, TablePanel, colour_letter
from companion.app.widgets import make, resize
from companion.engine.core import ActionModel, Setup
from companion.games.digger.app.controller import DiggerController
from companion.games.digger.words import COLOUR_WORDS

#: The game's catalog domain (its id).
DOMAIN = "digger"

FACE_COLOURS = {"B": "#2f6fd6", "Y": "#f2c230", "R": "#d93b30", "G": "#2e9e4f", "W": "#f0f0f0", "K": "#202020"}
STONE_COLOURS = ("B", "Y", "R", "G", "W")


#: A die face's letter in the current language; the table screen asks the game's module for it.
face_letter = colour_letter


def colour_word(token: str, language: str | None = None) -> str:
    """A stone's or a die's colour in words (`blue`), in the current language or `language`."""
    return game_text(DOMAIN, COLOUR_WORDS[token], language=language)


#: A die's face in words: the camera's teaching asks for each face by its colour, never by its letter.
face_word = colour_word


def action_label(table: TableModel, action: ActionModel) -> str:
    """`Take yellow`, `Rob red from Ben`, `Stop!`…"""
    data = action.model_dump()
    if action.type == "take":
        return capitalised(_("Take {colour}").format(colour=colour_word(data["colour"])))
    if action.type == "rob":
        return capitalised(_("Rob {colour} from {name}").format(colour=colour_word(data["colour"]),
                                                                name=table.player_name(data["victim"])))
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


class DiggerPanel(TablePanel):
    """Timer, roll and choices for the digger's turn; the flow is the DiggerController's."""

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
        super().__init__(controller, **kwargs)
        assert controller.timer is not None, "the Digger table shows the app's sand timer"
        self.timer = controller.timer
        self._showing_stowed = False  # the choices box holds the "stowed" toggles, not take/rob buttons
        self.watch(self.timer, started=self.refresh)
        self.keypad = DiceKeypad(controller=controller, face_colours=FACE_COLOURS, face_text=face_letter,
                                 compact=True)
        self.ids.keypad_holder.add_widget(self.keypad)
        self.start()

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
                toggle = Factory.GToggle(text=capitalised(_("{colour} stowed").format(colour=colour_word(colour))),
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


def build_panel(controller: DiggerController) -> DiggerPanel:
    return DiggerPanel(controller)


def options_panel(model: Any) -> DiggerCardsPanel:
    """The scoring-card values on the Options screen, and which black card each seat holds."""
    return DiggerCardsPanel(model=model)


class DiggerCardsPanel(BoxLayout):
    """Shows the card values of the chosen side; on the black side each seat's card can be chosen
    (tapping a card another seat holds swaps the two), or left to the seeded deal.  It follows the
    options, the seats and the language itself, so the Options screen keeps it from visit to visit; its
    widgets are kept and refilled only when what it shows changes (every option tap changes the
    options, and rebuilding the panel for each was most of a tap on the timer's stepper)."""

    model = ObjectProperty(None)

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(orientation="vertical", size_hint_y=None, spacing=4, **kwargs)
        self.bind(minimum_height=self.setter("height"))
        self._shown: tuple[Any, ...] | None = None  # what the widgets show (`_what`)
        self._heading = self._label("", bold=True)
        self._deal = Factory.GToggle(text="", size_hint_y=None, height=48)
        self._deal.bind(on_release=self._deal_tapped)
        self._lines = BoxLayout(orientation="vertical", size_hint_y=None, spacing=4)  # card values
        self._seats = BoxLayout(orientation="vertical", size_hint_y=None, spacing=4)  # a row per seat
        for box in (self._lines, self._seats):
            box.bind(minimum_height=box.setter("height"))
        self._app = App.get_running_app()
        self.model.bind(values=self.refresh, seats=self.refresh)
        self._app.bind(lang=self.refresh)
        self.refresh()

    def detach(self) -> None:
        """Called when the Options screen shows another game."""
        self.model.unbind(values=self.refresh, seats=self.refresh)
        self._app.unbind(lang=self.refresh)

    def _label(self, text: str = "", height: int = 30, bold: bool = False) -> Any:
        label = Factory.Label(text=text, font_size="16sp", bold=bold, size_hint_y=None, height=height,
                              halign="left", valign="middle")
        label.bind(size=lambda widget, size: setattr(widget, "text_size", size))
        return label

    def _what(self) -> tuple[Any, ...]:
        values = self.model.values
        chosen = values.get("black_cards")
        return (current_language(), values.get("side", "white"), values.get("cards_file") or None,
                tuple(self.model.seats), None if chosen is None else tuple(chosen))

    def refresh(self, *_args: Any) -> None:
        """Refill the widgets if what they show has changed (not on a tap on an unrelated option)."""
        if self._fit_to_seats():
            return  # (the model's change refreshes again)
        what = self._what()
        if what != self._shown:
            self._shown = what
            self._show(*what[1:])

    def _show(self, side: str, cards_file: str | None, seats: tuple[str, ...],
              chosen: tuple[str, ...] | None) -> None:
        from companion.engine.errors import UserError
        from companion.games.digger.cards import load_cards

        heading = self._heading
        try:
            layout = load_cards(cards_file)
        except UserError as error:
            heading.text, heading.height, heading.bold = str(error), 48, False
            self._parts(heading)
            return
        heading.text, heading.height, heading.bold = _("Scoring-card values (our defaults; check them against "
                                                       "your cards):"), 30, True
        if side == "white":
            resize(self._lines, 1, self._label)[0].text = _card_text(layout.white)
            self._parts(heading, self._lines)
            return
        self._deal.text = _("Deal the black cards by chance")
        self._deal.state = "down" if chosen is None else "normal"
        if chosen is None or len(chosen) != len(seats):
            for line, card in zip(resize(self._lines, len(layout.black), self._label), layout.black):
                line.text = _("Card {id}: {values}").format(id=card.id, values=_card_text(card))
            self._parts(heading, self._deal, self._lines)
            return
        by_id = {card.id: card for card in layout.black}
        for seat, (row, name) in enumerate(zip(resize(self._seats, len(seats), self._seat_row), seats)):
            line, values = row.children[1], row.children[0]
            line.children[1].text = name
            for toggle, card in zip(resize(line.children[0], len(layout.black), partial(self._card_toggle, row)),
                                    layout.black):
                toggle.text = card.id
                toggle.state = "down" if chosen[seat] == card.id else "normal"
            row.seat = seat
            values.text = "    " + _card_text(by_id[chosen[seat]])
        self._parts(heading, self._deal, self._seats)

    def _parts(self, *widgets: Any) -> None:
        """These of the panel's parts shown, in this order (a side switch swaps the lines for the seats)."""
        if list(reversed(self.children)) != list(widgets):
            self.clear_widgets()
            for widget in widgets:
                self.add_widget(widget)

    def _seat_row(self) -> Any:
        """A seat's name, a toggle per black card, and the values of the card it holds under them."""
        row = BoxLayout(orientation="vertical", size_hint_y=None, height=76, spacing=4)
        line = BoxLayout(size_hint_y=None, height=48, spacing=4)
        line.add_widget(self._label("", height=48))
        toggles = BoxLayout(size_hint_x=None, spacing=4)
        toggles.bind(minimum_width=toggles.setter("width"))
        line.add_widget(toggles)
        row.add_widget(line)
        row.add_widget(self._label("", height=24))
        return row

    def _card_toggle(self, row: Any) -> Any:
        toggle = Factory.GToggle(size_hint_x=None, width=52)
        toggle.bind(on_release=lambda pressed: self._card_tapped(row.seat, pressed))
        return toggle

    def _card_tapped(self, seat: int, toggle: Any) -> None:
        self.choose(seat, toggle.text)
        toggle.state = "down"  # a tap on the card the seat holds changes nothing, but flipped the toggle

    def _fit_to_seats(self) -> bool:
        """Black cards chosen per seat for a table of another size (the options of the last game, now with
        more or fewer players): the seats kept keep their cards, a new seat gets the first card nobody
        holds.  Whether the choice had to change."""
        from companion.engine.errors import UserError
        from companion.games.digger.cards import load_cards

        chosen, seats = self.model.values.get("black_cards"), len(self.model.seats)
        if chosen is None or len(chosen) == seats or not seats:
            return False
        try:
            cards = [card.id for card in load_cards(self.model.values.get("cards_file") or None).black]
        except UserError:
            cards = []
        kept = list(chosen[:seats])
        kept += [card for card in cards if card not in kept][:seats - len(kept)]
        self.model.set("black_cards", kept if len(kept) == seats else None)
        return True

    def _deal_tapped(self, *_args: Any) -> None:
        seats = len(self.model.seats)
        if self.model.values.get("black_cards") is not None:
            self.model.set("black_cards", None)
        else:
            from companion.games.digger.cards import load_cards

            cards = load_cards(self.model.values.get("cards_file") or None).black
            self.model.set("black_cards", [card.id for card in cards[:seats]])

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
