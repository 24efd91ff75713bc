"""Gold Connection's table panel: the vault with bars, stones and arrows; boxes, chips, counter and odds.

Moves are entered by tapping the destination safe (the shortest way the arrow may go; on the two
unnumbered safes the panel then asks where the arrow points), bars by tapping them in the safe under
the arrow; what is being picked is the GoldConnectionController's, the panel only draws. Dice come
from the hardware, the face buttons here or "Roll for me". Before every roll the panel shows the
number to reach and the exact chance with and without chips.
"""

from __future__ import annotations

from typing import Any

from kivy.factory import Factory
from kivy.properties import BooleanProperty, DictProperty, ListProperty, ObjectProperty, StringProperty
from kivy.uix.boxlayout import BoxLayout
from kivy.utils import colormap, get_color_from_hex

from companion.app.boards.gold_connection import VaultBoard
from companion.app.boards.loupe import BoardLoupe
from companion.app.controllers.gold_connection import GoldConnectionController
from companion.app.i18n import _ as app_text
from companion.app.i18n import catalog
from companion.app.table import TableModel
from companion.app.tables.common import resize
from companion.engine.core import ActionModel, Setup
from companion.games.gold_connection.rules import (
    COLOURS,
    DIE_FACES,
    GoldConnection,
    GoldConnectionState,
    Loot,
    Move,
    Stop,
    auto_sort,
    bar_sort_key,
)
from companion.games.gold_connection.words import bars_words, safe_words

GAME_ID = "gold_connection"


def _(message: str) -> str:
    """A panel string from the game's own catalog (companion/locale/*/gold_connection.po), else the app's."""
    translated = catalog(GAME_ID).gettext(message)
    return translated if translated != message else app_text(message)


def action_label(table: TableModel, action: ActionModel) -> str:
    """How a choice is written on a button."""
    if isinstance(action, Move):
        return _("Arrow to {safe}").format(safe=safe_words(action.path[-1]).text(_))
    if isinstance(action, Loot):
        return _("Loot {bars}").format(bars=bars_words(action.bars).text(_))
    if isinstance(action, Stop):
        return _("Stop here")
    return action.type


def setup_steps(setup: Setup) -> list[str]:
    """The setup guide; with the app's deal it lists every safe's six bars for the table to lay out."""
    game = GoldConnection()
    state = game.initial_state(setup)
    steps = [_("Give each player a box, a robber stone and an arrow of one colour; put the 20 consolation "
               "chips beside the board.")]
    if len(setup.players) == 4:
        steps.append(_("With four players the 4-rows of the boxes stay empty."))
    if setup.options.get("deal", "app") == "table":
        steps.append(_("Shuffle the 84 bars, lay six face up into every safe and enter each safe's bars."))
    else:
        steps.append(_("Sort the 84 bars by colour and number, then lay out the safes as dealt:"))
        for safe in game.vault.layout.safes:
            line = _("{safe}: {bars}").format(safe=safe_words(safe.id).text(_),
                                              bars=bars_words(state.safes[safe.id]).text(_))
            steps.append(line[:1].upper() + line[1:])
    steps.append(_("Each player rolls both dice for the start safe (one die or the sum); Goldtable checks it."))
    if setup.options.get("game_end", "counter") == "counter":
        steps.append(_("The turn counter starts beside field 1 of the track."))
    return steps


class GoldConnectionPanel(BoxLayout):
    """Board on the left; counter, odds, boxes and the due choices on the right."""

    controller = ObjectProperty(None)
    table = ObjectProperty(None)
    status_text = StringProperty("")
    odds_text = StringProperty("")
    boxes_text = StringProperty("")
    rolling = BooleanProperty(False)
    #: Bars picked in the safe under the arrow, and the pending plunder take (row -> count).
    picked = ListProperty([])
    take = DictProperty({})
    #: Destination waiting for the arrow's direction (on an unnumbered safe).
    pending_move = ObjectProperty(None, allownone=True)
    #: Bars being entered for a safe in the table-dealt setup.
    entering = ListProperty([])
    labels = DictProperty({})

    def __init__(self, controller: GoldConnectionController, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.controller = controller
        self.table = controller.table
        self.game = controller.game
        self.board = VaultBoard(layout=self.game.vault.layout)
        self.board.bind(on_safe=lambda _board, safe: controller.tap_safe(safe),
                        on_bar=lambda _board, safe, bar: controller.tap_bar(safe, bar))
        self.ids.board_holder.add_widget(self.board)
        self.loupe = BoardLoupe(self.board, lambda safe: self.board.dispatch("on_safe", safe),
                                lambda: set(self.board.highlighted), lambda: self.state)
        self._faces_shown = False
        controller.listen(self.refresh)
        self.table.bind(revision=self._relabel)
        self.refresh()

    def detach(self) -> None:
        """Called when another game takes the table."""
        self.controller.unlisten(self.refresh)
        self.table.unbind(revision=self._relabel)
        self.loupe.close()

    @property
    def state(self) -> GoldConnectionState | None:
        return self.controller.state

    # -- showing -------------------------------------------------------------------------------------
    def _relabel(self, *_args: Any) -> None:
        """Button texts in the current language (again after a language switch: the table's revision)."""
        self.labels = {"Roll for me": _("Roll for me")}

    def refresh(self, *_args: Any) -> None:
        state = self.state
        if state is None:
            return
        self._relabel()
        controller = self.controller
        self.picked = list(controller.picked)
        self.take = dict(controller.take)
        self.pending_move = controller.pending_move
        self.entering = list(controller.entering)
        self.rolling = state.phase in ("start_roll", "roll")
        self.status_text = self._status(state)
        self.odds_text = self._odds(state)
        self.boxes_text = self._boxes(state)
        self.board.seat_colours = [list(self._rgb(seat)) for seat in range(len(state.robbers))]
        self.board.state = state
        self.board.highlighted = self._highlights(state)
        arrow = state.robbers[state.current].arrow
        self.board.selected_bars = [[arrow, bar] for bar in self.picked]
        self._rebuild_faces()
        self._rebuild_choices(state)

    def _status(self, state: GoldConnectionState) -> str:
        parts = []
        if state.rules.game_end == "counter":
            parts.append(_("Counter {counter} of 36").format(counter=state.counter))
        if state.phase in ("turn", "roll", "chips"):
            parts.append(_("distance {distance}").format(distance=state.distance))
        if state.tray:
            parts.append(_("tray {bars}").format(bars=" ".join(state.tray)))
        return " · ".join(parts)

    def _odds(self, state: GoldConnectionState) -> str:
        """Target and exact chances for the announced roll, or for the bars picked so far."""
        if state.phase == "roll" and state.announcement is not None:
            odds = self.game.odds(state)
        elif state.phase == "turn" and (self.picked or self.take):
            bars = tuple(self.picked) or self.controller.take_bars(state)
            odds = self.game.odds(state, self.game.target(state, bars))
        else:
            return ""
        return _("Roll {target} or more: {chance}% · with {chips} chips {with_chips}%").format(
            target=odds.target, chance=odds.percent(odds.without_chips), chips=odds.chips,
            with_chips=odds.percent(odds.with_chips))

    def _boxes(self, state: GoldConnectionState) -> str:
        lines = []
        scores = self.game.scores(state)
        for seat, robber in enumerate(state.robbers):
            colour = "".join(f"{round(channel * 255):02x}" for channel in self._rgb(seat))
            name = self.table.player_name(seat)
            rows = []
            for colour_code in COLOURS:
                cells = [f"{row[1:]}:{''.join(map(str, numbers)) or '-'}" for row, numbers in robber.rows.items()
                         if row[0] == colour_code]
                rows.append(f"{colour_code} " + " ".join(cells))
            head = _("{name}: {score} points, {chips} chips, {bars} bars").format(
                name=name, score=scores[seat], chips=robber.chips, bars=robber.bar_count())
            marker = "> " if seat == state.current and state.phase != "over" else ""
            lines.append(f"[b][color={colour}]{marker}{head}[/color][/b]\n" + "  ".join(rows))
        return "\n".join(lines)

    def _rgb(self, seat: int) -> tuple[float, float, float]:
        """A seat's colour as RGB, whether the setup names it in hex (`#d94a4a`) or by name (`pink`)."""
        colour = self.table.player_colour(seat)
        rgba = get_color_from_hex(colour) if colour.startswith("#") else colormap.get(colour.lower())
        return (0.6, 0.6, 0.6) if rgba is None else (rgba[0], rgba[1], rgba[2])

    def _highlights(self, state: GoldConnectionState) -> list[str]:
        if self.table.put_back_places:  # after an undo: the safes the put-back sentences name
            return list(self.table.put_back_places)
        if state.phase == "turn":
            return sorted({move.path[-1] for move in self.game.moves(state)})
        if state.phase == "start_choose":
            return [self.game.vault.by_number[number] for number in self.game.start_numbers(state)]
        if state.phase == "arrows":
            return list(self.game.vault.neighbours[state.robbers[state.current].stone or ""])
        return []

    def _rebuild_faces(self) -> None:
        if self.rolling == self._faces_shown:
            return
        self._faces_shown = self.rolling
        box = self.ids.faces
        box.clear_widgets()
        for face in DIE_FACES if self.rolling else ():
            button = Factory.GButton(text=face)
            button.bind(on_release=lambda _b, f=face: self.controller.enter_die(f))
            box.add_widget(button)

    def _button(self, text: str, callback: Any, disabled: bool = False) -> None:
        self._choices.append((text, callback, disabled))

    def _new_choice_button(self) -> Any:
        """A choice button; `_rebuild_choices` reuses it for whichever choice it shows next."""
        button = Factory.GButton(size_hint_y=None, height=40)
        button.bind(on_release=lambda pressed: pressed.callback())
        return button

    def _rebuild_choices(self, state: GoldConnectionState) -> None:
        self._choices: list[tuple[str, Any, bool]] = []
        self._collect_choices(state)
        buttons = resize(self.ids.choices, len(self._choices), self._new_choice_button)
        for button, (text, callback, disabled) in zip(buttons, self._choices):
            button.text, button.callback, button.disabled = text, callback, disabled

    def _collect_choices(self, state: GoldConnectionState) -> None:
        phase = state.phase
        if phase == "start_choose":
            for number in self.game.start_numbers(state):
                safe = self.game.vault.by_number[number]
                self._button(_("Start on safe {number}").format(number=number),
                             lambda s=safe: self.controller.submit({"type": "choose_start", "safe": s}))
        elif phase == "arrows":
            for heading in self.game.vault.neighbours[state.robbers[state.current].stone or ""]:
                self._button(_("Point to {safe}").format(safe=heading),
                             lambda h=heading: self.controller.submit({"type": "place_arrow", "heading": h}))
        elif phase == "chips":
            assert state.announcement is not None and state.roll is not None
            shortfall = state.announcement.target - sum(state.roll)
            self._button(_("Spend {count} chips").format(count=shortfall),
                         lambda: self.controller.submit({"type": "use_chips", "count": shortfall}))
            self._button(_("Accept the failure"), lambda: self.controller.submit({"type": "use_chips", "count": 0}))
        elif phase == "sort":
            rows = state.robbers[state.current].rows
            for prefer, text in (("long", _("Sort, longest rows first: {rows}")),
                                 ("short", _("Sort, shortest rows first: {rows}"))):
                placing = auto_sort(rows, state.tray, prefer)  # type: ignore[arg-type]
                shown = " ".join(f"{row}+{''.join(map(str, numbers))}" for row, numbers in placing.items()) or "-"
                self._button(text.format(rows=shown),
                             lambda p=placing: self.controller.submit({"type": "sort", "rows": p}))
        elif phase == "enter_safes":
            self._entry_choices(state)
        elif phase == "turn":
            self._turn_choices(state)

    def _turn_choices(self, state: GoldConnectionState) -> None:
        if self.pending_move is not None:
            move: Move = self.pending_move
            came = move.path[-2] if len(move.path) > 1 else state.robbers[state.current].arrow or ""
            for heading in self.game.vault.exits(move.path[-1], came):
                self._button(_("Then point to {safe}").format(safe=heading),
                             lambda h=heading: self.controller.submit(
                                 {"type": "move", "path": list(move.path), "heading": h}))
            return
        arrow = state.robbers[state.current].arrow or ""
        if state.moved and self.game.validate(state, Loot(bars=state.safes[arrow][:1])) is None:
            picked = list(self.picked)
            for bar in state.safes[arrow]:
                chosen = bar in picked
                if chosen:
                    picked.remove(bar)
                self._button(f"[{bar}]" if chosen else bar, lambda b=bar: self.controller.tap_bar(arrow, b))
        if self.picked:
            self._button(_("Loot {bars}").format(bars=" ".join(sorted(self.picked, key=bar_sort_key))),
                         self.controller.play_picks)
            self._button(_("Clear the bars"), self.controller.clear_picks)
        victim = self.controller.victim(state)
        if victim is not None and state.moved:
            for row, numbers in state.robbers[victim].rows.items():
                if numbers:
                    taken = self.take.get(row, 0)
                    self._button(_("Take from {row} ({taken})").format(row=row, taken=taken),
                                 lambda r=row: self.controller.add_to_take(r), disabled=taken >= len(numbers))
            if self.take:
                self._button(_("Plunder {bars}").format(bars=" ".join(self.controller.take_bars(state))),
                             self.controller.play_picks)
        if self.game.validate(state, Stop()) is None:
            self._button(_("Stop here (roll {distance}+)").format(distance=state.distance),
                         lambda: self.controller.submit({"type": "stop"}))
        if state.last_success == "loot" and not state.moved:
            self._button(_("End the turn"), lambda: self.controller.submit({"type": "end_turn"}))

    def _entry_choices(self, state: GoldConnectionState) -> None:
        safe = next(name for name, bars in state.safes.items() if not bars)
        self._button(_("Safe {safe}: {bars}").format(safe=safe, bars=" ".join(self.entering) or "-"),
                     self.controller.clear_safe_entry)
        for colour in COLOURS:
            for number in range(1, 7):
                bar = f"{colour}{number}"
                self._button(bar, lambda b=bar: self.controller.enter_bar(b))

    def roll_for_me(self) -> None:
        self.controller.virtual_roll("virtual")


def build_panel(controller: GoldConnectionController) -> GoldConnectionPanel:
    return GoldConnectionPanel(controller)
