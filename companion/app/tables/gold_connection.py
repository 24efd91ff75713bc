"""Gold Connection's table panel: the vault with bars, stones and arrows; boxes, chips, counter and odds.

Moves are entered by tapping the destination safe (the shortest way the arrow may go; on the two
unnumbered safes the panel then asks where the arrow points), bars by tapping them in the safe under
the arrow. Dice come from the hardware (the app's hardware roll), the face buttons here or "Roll for
me". Before every roll the panel shows the number to reach and the exact chance with and without chips.
"""

from __future__ import annotations

from typing import Any

from kivy.factory import Factory
from kivy.properties import BooleanProperty, DictProperty, ListProperty, ObjectProperty, StringProperty
from kivy.uix.boxlayout import BoxLayout
from kivy.utils import colormap, get_color_from_hex

from companion.app.boards.gold_connection import VaultBoard
from companion.app.controllers import TableController
from companion.app.i18n import _ as app_text
from companion.app.i18n import catalog
from companion.app.table import TableModel
from companion.engine.core import N_, ActionModel, Refusal, Setup
from companion.games.gold_connection.rules import (
    COLOURS,
    DIE_FACES,
    GoldConnection,
    GoldConnectionState,
    Loot,
    Move,
    Plunder,
    Stop,
    auto_sort,
    bar_sort_key,
    top_bars,
)

GAME_ID = "gold_connection"
SEARCH_DISTANCE = 17  # 12 on the dice plus at most 5 chips: no longer move can ever be rolled


def _(message: str) -> str:
    """A panel string from the game's own catalog (companion/locale/*/gold_connection.po), else the app's."""
    translated = catalog(GAME_ID).gettext(message)
    return translated if translated != message else app_text(message)


def action_label(table: TableModel, action: ActionModel) -> str:
    """How a choice is written on a button."""
    if isinstance(action, Move):
        return _("Arrow to {safe}").format(safe=action.path[-1])
    if isinstance(action, Loot):
        return _("Loot {bars}").format(bars=" ".join(action.bars))
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
            name = str(safe.number) if safe.number is not None else safe.id
            steps.append(_("Safe {name}: {bars}").format(name=name, bars=" ".join(state.safes[safe.id])))
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

    def __init__(self, controller: TableController, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.controller = controller
        self.table = controller.table
        self.game = GoldConnection()
        self.board = VaultBoard(layout=self.game.vault.layout)
        self.board.bind(on_safe=lambda _board, safe: self.tap_safe(safe),
                        on_bar=lambda _board, safe, bar: self.tap_bar(safe, bar))
        self.ids.board_holder.add_widget(self.board)
        self._faces_shown = False
        self._revision = -1
        controller.listen(self._changed)
        self.refresh()

    def detach(self) -> None:
        """Called when another game takes the table."""
        self.controller.unlisten(self._changed)

    @property
    def state(self) -> GoldConnectionState | None:
        session = self.table.session
        if session is None or session.game.id != GAME_ID:
            return None
        return session.state  # type: ignore[no-any-return]

    def _changed(self, *_args: Any) -> None:
        """After an action or undo, whatever was being picked for the next one is dropped."""
        if self.table.revision == self._revision:
            self.refresh()
            return
        self._revision = self.table.revision
        self.picked = []
        self.take = {}
        self.pending_move = None
        self.entering = []
        self.refresh()

    # -- showing -------------------------------------------------------------------------------------
    def refresh(self, *_args: Any) -> None:
        state = self.state
        if state is None:
            return
        self.labels = {"Roll for me": _("Roll for me")}
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
            bars = tuple(self.picked) or self._take_bars(state)
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
        if state.phase == "turn":
            return sorted({move.path[-1] for move in self.game.moves(state)})
        if state.phase == "start_choose":
            return [self.game.vault.by_number[number] for number in self.game.start_numbers(state)]
        if state.phase == "arrows":
            return list(self.game.vault.neighbours[state.robbers[state.current].stone or ""])
        return []

    def _take_bars(self, state: GoldConnectionState) -> tuple[str, ...]:
        victim = self._victim(state)
        if victim is None or not self.take:
            return ()
        return top_bars(state.robbers[victim].rows, dict(self.take))

    def _victim(self, state: GoldConnectionState) -> int | None:
        arrow = state.robbers[state.current].arrow
        owner = state.stone_owner(arrow or "")
        return owner if owner is not None and owner != state.current else None

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
        button = Factory.GButton(text=text, disabled=disabled, size_hint_y=None, height=40)
        button.bind(on_release=lambda _b: callback())
        self.ids.choices.add_widget(button)

    def _rebuild_choices(self, state: GoldConnectionState) -> None:
        self.ids.choices.clear_widgets()
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
                self._button(f"[{bar}]" if chosen else bar, lambda b=bar: self.tap_bar(arrow, b))
        if self.picked:
            self._button(_("Loot {bars}").format(bars=" ".join(sorted(self.picked, key=bar_sort_key))),
                         self.loot_picked)
            self._button(_("Clear the bars"), self.clear_picks)
        victim = self._victim(state)
        if victim is not None and state.moved:
            for row, numbers in state.robbers[victim].rows.items():
                if numbers:
                    taken = self.take.get(row, 0)
                    self._button(_("Take from {row} ({taken})").format(row=row, taken=taken),
                                 lambda r=row: self.add_to_take(r), disabled=taken >= len(numbers))
            if self.take:
                self._button(_("Plunder {bars}").format(bars=" ".join(self._take_bars(state))), self.plunder)
        if self.game.validate(state, Stop()) is None:
            self._button(_("Stop here (roll {distance}+)").format(distance=state.distance),
                         lambda: self.controller.submit({"type": "stop"}))
        if state.last_success == "loot" and not state.moved:
            self._button(_("End the turn"), lambda: self.controller.submit({"type": "end_turn"}))

    def _entry_choices(self, state: GoldConnectionState) -> None:
        safe = next(name for name, bars in state.safes.items() if not bars)
        self._button(_("Safe {safe}: {bars}").format(safe=safe, bars=" ".join(self.entering) or "-"),
                     self.clear_entry)
        for colour in COLOURS:
            for number in range(1, 7):
                bar = f"{colour}{number}"
                self._button(bar, lambda b=bar: self.enter_bar(b))

    # -- input ---------------------------------------------------------------------------------------
    def tap_safe(self, safe: str) -> bool:
        """A tap on a safe: start safe, arrow direction, or the destination of the arrow's move."""
        state = self.state
        if state is None:
            return False
        if state.phase == "start_choose":
            return self.controller.submit({"type": "choose_start", "safe": safe})
        if state.phase == "arrows":
            return self.controller.submit({"type": "place_arrow", "heading": safe})
        if state.phase != "turn":
            return False
        moves = [move for move in self.game.moves(state, SEARCH_DISTANCE) if move.path[-1] == safe]
        if not moves:
            return self.controller.submit({"type": "move", "path": [safe]})
        shortest = min(len(move.path) for move in moves)
        move = next(move for move in moves if len(move.path) == shortest)
        if move.heading is not None:
            self.pending_move = Move(path=move.path)
            self.refresh()
            return True
        return self.controller.submit(move)

    def tap_bar(self, safe: str, bar: str) -> bool:
        """A tap on a bar (on the board or its button): pick another copy, or drop them, for the loot."""
        state = self.state
        if state is None or state.phase != "turn":
            return False
        arrow = state.robbers[state.current].arrow
        if not state.moved:
            return self.controller.submit({"type": "loot", "bars": [bar]})
        if safe != arrow:
            self.table.show_refusal(Refusal(code="loot.other_safe", rule="GC-8", params={"safe": arrow},
                                            message=N_("Only bars in the safe under your arrow ({safe}) can be "
                                                       "looted.")))
            return False
        picked = list(self.picked)
        if picked.count(bar) < state.safes[safe].count(bar):
            picked.append(bar)
        else:
            picked = [item for item in picked if item != bar]
        self.picked = picked
        self.refresh()
        return True

    def clear_picks(self) -> None:
        self.picked = []
        self.refresh()

    def loot_picked(self) -> bool:
        return self.controller.submit({"type": "loot", "bars": list(self.picked)})

    def add_to_take(self, row: str) -> None:
        self.take = {**self.take, row: self.take.get(row, 0) + 1}
        self.refresh()

    def plunder(self) -> bool:
        state = self.state
        victim = None if state is None else self._victim(state)
        if victim is None:
            return False
        return self.controller.submit(Plunder(victim=victim, take=dict(self.take)))

    def enter_bar(self, bar: str) -> bool:
        """Table-dealt setup: add a bar to the safe being entered; six bars are submitted at once."""
        state = self.state
        if state is None:
            return False
        self.entering = [*self.entering, bar]
        if len(self.entering) < 6:
            self.refresh()
            return True
        safe = next(name for name, bars in state.safes.items() if not bars)
        bars, self.entering = list(self.entering), []
        accepted = self.controller.submit({"type": "enter_safe", "safe": safe, "bars": bars})
        self.refresh()
        return accepted

    def clear_entry(self) -> None:
        self.entering = []
        self.refresh()

    def roll_for_me(self) -> None:
        self.controller.virtual_roll("virtual")


def build_panel(controller: TableController) -> GoldConnectionPanel:
    return GoldConnectionPanel(controller)
