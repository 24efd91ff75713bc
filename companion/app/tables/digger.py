"""Digger's table panel: the sand timer, the roll, the stones it allows, Stop, fumble and time up.

The timer is the app's TimerModel; the first roll (event `timer_start`) or the hourglass tilt switch
starts it, Stop or the end of a turn resets it, and when it runs out the panel enters `time_up`
(asking first which colours were already stowed, when the house rule DIG-R5 allows it).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kivy.app import App
from kivy.factory import Factory
from kivy.properties import BooleanProperty, ListProperty, ObjectProperty, StringProperty
from kivy.uix.boxlayout import BoxLayout
from kivy.utils import get_color_from_hex

from companion.app.i18n import _, game_text
from companion.app.table import TableModel
from companion.app.tables.common import DiceKeypad
from companion.app.widgets import make
from companion.engine.core import N_, ActionModel, Event, Setup

GAME_ID = "digger"
USES_TIMER = True

FACE_COLOURS = {"B": "#2f6fd6", "Y": "#f2c230", "R": "#d93b30", "G": "#2e9e4f", "W": "#f0f0f0", "K": "#202020"}
COLOUR_WORDS = {"B": N_("blue"), "Y": N_("yellow"), "R": N_("red"), "G": N_("green"), "W": N_("white"),
                "K": N_("black")}
STONE_COLOURS = ("B", "Y", "R", "G", "W")


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


def on_button(table: TableModel, name: str, source: str) -> bool:
    """The `stop` button calls Stop; the hourglass (tilt switch) starts the timer."""
    panel = _panel_of(table)
    if panel is None:
        return False
    if name == "stop":
        if panel.time_up_pending:
            panel.confirm_time_up()
        else:
            table.submit({"type": "stop"}, source)  # type: ignore[arg-type]
        return True
    if name == "hourglass":
        panel.turn_hourglass()
        return True
    return False


def _panel_of(table: TableModel) -> DiggerPanel | None:
    return _PANELS.get(id(table))


_PANELS: dict[int, DiggerPanel] = {}


class DiggerPanel(BoxLayout):
    """Timer, roll and choices for the digger's turn."""

    table = ObjectProperty(None)
    roll = ListProperty([])
    info_text = StringProperty("")
    time_up_pending = BooleanProperty(False)
    timer_idle_but_running = BooleanProperty(False)
    stowed = ListProperty([])
    waiting = ListProperty([])
    can_stop = BooleanProperty(False)
    can_fumble = BooleanProperty(False)

    def __init__(self, table: TableModel, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.table = table
        self.timer = App.get_running_app().timer
        self._sand_was_running = False
        self._showing_stowed = False  # the choices box holds the "stowed" toggles, not take/rob buttons
        _PANELS[id(table)] = self
        table.bind(revision=self.refresh, on_accepted=self.on_events)
        self.timer.bind(on_time_up=self.on_timer_expired, started=self.refresh)
        keypad = DiceKeypad(table=table, face_colours=FACE_COLOURS, compact=True)
        self.ids.keypad_holder.add_widget(keypad)
        self.refresh()

    def detach(self) -> None:
        """Called when another game takes the table."""
        self.table.unbind(revision=self.refresh, on_accepted=self.on_events)
        self.timer.unbind(on_time_up=self.on_timer_expired, started=self.refresh)
        _PANELS.pop(id(self.table), None)

    @property
    def state(self) -> Any:
        session = self.table.session
        if session is None or session.game.id != GAME_ID:  # another game is being put on the table
            return None
        return session.state

    # -- showing -------------------------------------------------------------------------------------
    def refresh(self, *_args: Any) -> None:
        state = self.state
        if state is None:
            return
        self.roll = list(state.roll)
        self.waiting = [colour for colour in STONE_COLOURS if state.waiting.count(colour)]
        if self.time_up_pending and not state.timer_running:
            self.time_up_pending = False
        if self._sand_was_running and not state.timer_running and not self.timer.expired:
            self.timer.reset(state.rules.timer_seconds)  # e.g. the first roll of the turn was undone
        self._sand_was_running = state.timer_running
        self.timer_idle_but_running = state.timer_running and not self.timer.started
        self.can_stop = self.table.check({"type": "stop"}) is None
        self.can_fumble = self.table.check({"type": "fumble"}) is None
        waiting = ", ".join(f"{state.waiting.count(c)} {colour_word(c)}" for c in self.waiting) or "—"
        middle = "  ".join(f"{colour_word(c)} {state.middle.count(c)}" for c in STONE_COLOURS)
        self.info_text = _("Waiting to be stowed: {waiting}\nMiddle: {middle}   Tin: {tin}").format(
            waiting=waiting, middle=middle, tin=state.tin)
        self._rebuild_choices()
        self._rebuild_dice()

    def _rebuild_dice(self) -> None:
        """The dice widgets are kept and recoloured: every action redraws them, and widgets created
        and dropped each time leave their memory scattered over the heap (see docs/performance.md)."""
        dice = _resize(self.ids.dice, len(self.roll), lambda: make("DiggerDie"))
        for die, face in zip(dice, self.roll):
            die.colour = FACE_COLOURS.get(face, "#888888")
            die.unique = self.roll.count(face) == 1 and face != "K"

    def _rebuild_choices(self) -> None:
        box = self.ids.choices
        if self.time_up_pending or self._showing_stowed:  # rare (the sand ran out): toggles built afresh
            box.clear_widgets()
        self._showing_stowed = self.time_up_pending
        if self.time_up_pending:
            for colour in self.waiting:
                toggle = Factory.GToggle(text=_("{colour} stowed").format(colour=colour_word(colour)),
                                         size_hint=(None, None), height=48, width=160,
                                         state="down" if colour in self.stowed else "normal")
                toggle.bind(on_release=lambda _t, c=colour: self.toggle_stowed(c))
                box.add_widget(toggle)
            return
        actions = [action for action in self.table.legal_actions() or [] if action.type in ("take", "rob")]
        buttons = _resize(box, len(actions), self._choice_button)
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
        button.bind(on_release=lambda pressed: self.table.submit(pressed.action))
        return button

    # -- timer -----------------------------------------------------------------------------------------
    def on_events(self, _table: Any, events: tuple[Event, ...]) -> None:
        """The first roll of a turn starts the timer (unless the hourglass already did)."""
        kinds = {event.kind for event in events}
        state = self.state
        if "timer_start" in kinds and not self.timer.running:
            self.timer.start(state.rules.timer_seconds)
        if kinds & {"stop", "fumble", "time_up", "game_over"}:
            self.time_up_pending = False
            self.stowed = []
            self.timer.reset(state.rules.timer_seconds)

    def turn_hourglass(self) -> None:
        """The tilt switch (or the on-screen button): the sand runs from full."""
        state = self.state
        if state is not None and not state.over:
            self.timer.start(state.rules.timer_seconds)
            self.refresh()

    def on_timer_expired(self, *_args: Any) -> None:
        """Sand ran out: time up now, or first ask which colours were already stowed."""
        state = self.state
        if state is None or state.over or not state.timer_running:
            self.timer.reset(state.rules.timer_seconds if state is not None else None)
            return
        if self.waiting and state.rules.time_up_keeps_stowed:
            self.stowed = []
            self.time_up_pending = True
            self.refresh()
            App.get_running_app().go("table")
        else:
            self.table.submit({"type": "time_up", "stowed": []}, "virtual")

    def toggle_stowed(self, colour: str) -> None:
        self.stowed = [c for c in self.stowed if c != colour] if colour in self.stowed else [*self.stowed, colour]
        self._rebuild_choices()

    def confirm_time_up(self) -> None:
        stowed = [colour for colour in STONE_COLOURS if colour in self.stowed]
        if self.table.submit({"type": "time_up", "stowed": stowed}, "touch"):
            self.time_up_pending = False

    def press_time_up(self) -> None:
        """The keeper calls time by hand (e.g. the app was restarted mid-turn)."""
        state = self.state
        if state is not None and state.timer_running:
            self.timer.reset(state.rules.timer_seconds)
            self.stowed = []
            if self.waiting and state.rules.time_up_keeps_stowed:
                self.time_up_pending = True
                self.refresh()
            else:
                self.table.submit({"type": "time_up", "stowed": []}, "touch")


def _resize(box: Any, count: int, new_widget: Callable[[], Any]) -> list[Any]:
    """Keep `count` widgets in `box`, reusing those it holds (in display order), adding or dropping
    at the end."""
    widgets = list(reversed(box.children))
    for widget in widgets[count:]:
        box.remove_widget(widget)
    while len(widgets) < count:
        widgets.append(new_widget())
        box.add_widget(widgets[-1])
    return widgets[:count]


def build_panel(table: TableModel) -> DiggerPanel:
    return DiggerPanel(table)


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
        seats = [seat["name"] for seat in App.get_running_app().players_model.seats]
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
